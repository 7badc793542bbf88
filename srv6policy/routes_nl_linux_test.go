//go:build linux

package srv6policy

// Unprivileged tests of the route client against nltest: the exact
// requests (rtmsg and attributes, byte for byte), the dump decoding and
// the error acks. TestKernelRoutesLikeIproute2 and TestKernelRoutesTraffic
// check the same against a kernel.

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
	"golang.org/x/sys/unix"
)

// fakeRoutes is a KernelRoutes on nltest whose requests are recorded and
// answered by answer (nil: an ack).
type fakeRoutes struct {
	*KernelRoutes
	reqs   []netlink.Message
	answer func(req netlink.Message) []netlink.Message
}

func newFakeRoutes(t *testing.T, o RouteOptions) *fakeRoutes {
	t.Helper()
	f := &fakeRoutes{}
	c := nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) != 1 {
			return nil, fmt.Errorf("unexpected read (%d requests)", len(reqs))
		}
		req := reqs[0]
		req.Data = bytes.Clone(req.Data)
		f.reqs = append(f.reqs, req)
		if f.answer != nil {
			return f.answer(req), nil
		}
		return []netlink.Message{kernelAck(req, 0)}, nil
	})
	if o.Protocol == 0 {
		o.Protocol = RouteProtocol
	}
	if o.Table == 0 {
		o.Table = MainTable
	}
	f.KernelRoutes = newKernelRoutes(c, o)
	t.Cleanup(func() { f.Close() })
	return f
}

// rawAttr is a netlink attribute, encoded by hand (not by the library
// under test): length, type, value, padding.
func rawAttr(typ uint16, vs ...[]byte) []byte {
	v := bytes.Join(vs, nil)
	b := nativeEndian.AppendUint16(nil, uint16(4+len(v)))
	b = nativeEndian.AppendUint16(b, typ)
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func u16b(v uint16) []byte { return nativeEndian.AppendUint16(nil, v) }

func mustSRH(t *testing.T, segs []netip.Addr, keyID uint32) []byte {
	t.Helper()
	s, err := EncapSRH(segs, keyID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNLRouteInstall: Replace and Add send RTM_NEWROUTE with iproute2's
// flags, rtmsg and attributes, for seg6 encap (IPv6, IPv4) and seg6local
// End.B6.Encaps with an HMAC'd SRH, in the main table and in table 1000.
func TestNLRouteInstall(t *testing.T) {
	steer := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::/48"), Segments: polSegsp, KeyID: 42, OIF: 3}
	steer4 := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("198.51.100.0/24"), Segments: polSegsp[:1], OIF: 2}
	bsid := Route{Kind: RouteBSID, Dst: polBSIDp, Segments: polSegsp, KeyID: 4294967295, OIF: 5}
	seg6Encap := func(r Route) []byte {
		return rawAttr(rtaEncap|0x8000, rawAttr(seg6IPTunnelSRH, u32b(seg6IPTunModeEncap), mustSRH(t, r.Segments, r.KeyID)))
	}
	for _, c := range []struct {
		r       Route
		table   uint32
		replace bool
		flags   netlink.HeaderFlags
		want    []byte
	}{
		{steer, MainTable, true, netlink.Request | netlink.Acknowledge | netlink.Create | netlink.Replace, bytes.Join([][]byte{
			{afInet6, 48, 0, 0, MainTable, RouteProtocol, rtScopeUniverse, rtnUnicast, 0, 0, 0, 0},
			rawAttr(rtaDst, netip.MustParseAddr("2001:db8:3::").AsSlice()),
			rawAttr(rtaOIF, u32b(3)),
			rawAttr(rtaEncapType, u16b(lwtunnelEncapSeg6)),
			seg6Encap(steer),
		}, nil)},
		{steer4, MainTable, false, netlink.Request | netlink.Acknowledge | netlink.Create | netlink.Excl, bytes.Join([][]byte{
			{afInet, 24, 0, 0, MainTable, RouteProtocol, rtScopeLink, rtnUnicast, 0, 0, 0, 0},
			rawAttr(rtaDst, []byte{198, 51, 100, 0}),
			rawAttr(rtaOIF, u32b(2)),
			rawAttr(rtaEncapType, u16b(lwtunnelEncapSeg6)),
			seg6Encap(steer4),
		}, nil)},
		{bsid, 1000, false, netlink.Request | netlink.Acknowledge | netlink.Create | netlink.Excl, bytes.Join([][]byte{
			{afInet6, 128, 0, 0, 0, RouteProtocol, rtScopeUniverse, rtnUnicast, 0, 0, 0, 0},
			rawAttr(rtaTable, u32b(1000)),
			rawAttr(rtaDst, polBSIDp.Addr().AsSlice()),
			rawAttr(rtaOIF, u32b(5)),
			rawAttr(rtaEncapType, u16b(lwtunnelEncapSeg6Local)),
			rawAttr(rtaEncap|0x8000, rawAttr(seg6LocalAction, u32b(seg6LocalActionEndB6Encap)), rawAttr(seg6LocalSRH, mustSRH(t, bsid.Segments, bsid.KeyID))),
		}, nil)},
	} {
		f := newFakeRoutes(t, RouteOptions{Table: c.table})
		install := f.Add
		if c.replace {
			install = f.Replace
		}
		if err := install(c.r); err != nil {
			t.Fatalf("%s: %v", c.r, err)
		}
		if len(f.reqs) != 1 {
			t.Fatalf("%s: %d requests", c.r, len(f.reqs))
		}
		req := f.reqs[0]
		if req.Header.Type != unix.RTM_NEWROUTE || req.Header.Flags != c.flags {
			t.Errorf("%s: header %+v, want type %d flags %v", c.r, req.Header, unix.RTM_NEWROUTE, c.flags)
		}
		if !bytes.Equal(req.Data, c.want) {
			t.Errorf("%s:\nsent %x\nwant %x", c.r, req.Data, c.want)
		}
	}
	// An invalid route is not sent.
	f := newFakeRoutes(t, RouteOptions{})
	if err := f.Add(Route{Kind: RouteBSID, Dst: netip.MustParsePrefix("fc00::/64"), Segments: polSegsp}); err == nil || len(f.reqs) != 0 {
		t.Fatalf("invalid route: %v, %d requests", err, len(f.reqs))
	}
}

// routeAnswer is the kernel's RTM_NEWROUTE answer to req with body.
func routeAnswer(req netlink.Message, body []byte) netlink.Message {
	return netlink.Message{Header: netlink.Header{Type: unix.RTM_NEWROUTE, Sequence: req.Header.Sequence, PID: req.Header.PID}, Data: body}
}

// TestNLRouteOIF: a route without OIF gets the interface of the route to
// its first segment (RTM_GETROUTE, no ack: the answer is the route); a
// local or interface-less answer is refused; InterfaceTo asks the same.
func TestNLRouteOIF(t *testing.T) {
	f := newFakeRoutes(t, RouteOptions{})
	rtype, oif := uint8(rtnUnicast), uint32(7)
	f.answer = func(req netlink.Message) []netlink.Message {
		if req.Header.Type != unix.RTM_GETROUTE {
			return []netlink.Message{kernelAck(req, 0)}
		}
		body := append([]byte{afInet6, 128, 0, 0, MainTable, 2, 0, rtype, 0, 0, 0, 0}, rawAttr(rtaDst, polSegsp[0].AsSlice())...)
		if oif != 0 {
			body = append(body, rawAttr(rtaOIF, u32b(oif))...)
		}
		return []netlink.Message{routeAnswer(req, body)}
	}
	r := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::3/128"), Segments: polSegsp}
	if err := f.Add(r); err != nil {
		t.Fatal(err)
	}
	if len(f.reqs) != 2 {
		t.Fatalf("%d requests", len(f.reqs))
	}
	get := f.reqs[0]
	wantGet := append([]byte{afInet6, 128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, rawAttr(rtaDst, polSegsp[0].AsSlice())...)
	if get.Header.Type != unix.RTM_GETROUTE || get.Header.Flags != netlink.Request || !bytes.Equal(get.Data, wantGet) {
		t.Fatalf("route get %+v %x, want %x", get.Header, get.Data, wantGet)
	}
	r.OIF = 7
	if want, _ := encodeRoute(r, RouteProtocol, MainTable, false); !bytes.Equal(f.reqs[1].Data, want.Data) {
		t.Fatalf("install with the found OIF: %x, want %x", f.reqs[1].Data, want.Data)
	}
	if n, err := f.InterfaceTo(netip.MustParseAddr("192.0.2.1")); err != nil || n != 7 {
		t.Fatalf("InterfaceTo: %d, %v", n, err)
	}
	if last := f.reqs[len(f.reqs)-1]; !bytes.Equal(last.Data, append([]byte{afInet, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, rawAttr(rtaDst, []byte{192, 0, 2, 1})...)) {
		t.Fatalf("IPv4 route get %x", last.Data)
	}
	rtype = 2 // RTN_LOCAL: the first segment is ours
	r.OIF = 0
	if err := f.Add(r); err == nil || !strings.Contains(err.Error(), "first segment") || !strings.Contains(err.Error(), "not a unicast route") {
		t.Fatalf("local first segment: %v", err)
	}
	rtype, oif = rtnUnicast, 0
	if _, err := f.InterfaceTo(polSegsp[0]); err == nil || !strings.Contains(err.Error(), "no output interface") {
		t.Fatalf("no OIF: %v", err)
	}
	f.answer = func(req netlink.Message) []netlink.Message {
		return []netlink.Message{kernelAck(req, unix.ENETUNREACH)}
	}
	if _, err := f.InterfaceTo(polSegsp[0]); !errors.Is(err, unix.ENETUNREACH) {
		t.Fatalf("unreachable: %v", err)
	}
}

// extAck is the kernel's error ack on a NETLINK_EXT_ACK socket: errno,
// the whole request, and the message attribute.
func extAck(req netlink.Message, errno unix.Errno, msg string) netlink.Message {
	b, err := req.MarshalBinary()
	if err != nil {
		panic(err)
	}
	data := append(nativeEndian.AppendUint32(nil, uint32(-int32(errno))), b...)
	data = append(data, rawAttr(unix.NLMSGERR_ATTR_MSG, []byte(msg+"\x00"))...)
	return netlink.Message{Header: netlink.Header{Type: netlink.Error, Flags: netlink.AcknowledgeTLVs, Sequence: req.Header.Sequence, PID: req.Header.PID}, Data: data}
}

// TestNLRouteErrors: error acks map as they always have: EEXIST to
// ErrRouteExists, ESRCH/ENOENT to ErrRouteNotFound, EPERM to a message
// about CAP_NET_ADMIN, EOPNOTSUPP/ENOTSUPP to ErrNoRouteSupport; others
// (ENODEV, EINVAL with the kernel's message) wrapped as they are.
func TestNLRouteErrors(t *testing.T) {
	f := newFakeRoutes(t, RouteOptions{})
	r := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::3/128"), Segments: polSegsp, KeyID: 42, OIF: 3}
	var ack func(netlink.Message) netlink.Message
	f.answer = func(req netlink.Message) []netlink.Message { return []netlink.Message{ack(req)} }
	for _, c := range []struct {
		errno unix.Errno
		msg   string
		is    []error
		text  string
	}{
		{unix.EEXIST, "", []error{ErrRouteExists, unix.EEXIST}, "srv6policy: install 2001:db8:3::3/128 encap seg6 mode encap segs fc00:0:2::1,fc00:0:3::1 hmac 42: " + ErrRouteExists.Error() + ": file exists"},
		{unix.ENODEV, "", []error{unix.ENODEV}, "srv6policy: install 2001:db8:3::3/128 encap seg6 mode encap segs fc00:0:2::1,fc00:0:3::1 hmac 42: no such device"},
		{unix.EINVAL, "Invalid SRH", []error{unix.EINVAL}, "srv6policy: install 2001:db8:3::3/128 encap seg6 mode encap segs fc00:0:2::1,fc00:0:3::1 hmac 42: invalid argument (Invalid SRH)"},
		{unix.EPERM, "", []error{unix.EPERM}, "srv6policy: install 2001:db8:3::3/128 encap seg6 mode encap segs fc00:0:2::1,fc00:0:3::1 hmac 42: installing SRv6 routes needs CAP_NET_ADMIN: operation not permitted"},
		{unix.EOPNOTSUPP, "", []error{ErrNoRouteSupport}, ""},
		{enotsupp, "", []error{ErrNoRouteSupport}, ""},
	} {
		ack = func(req netlink.Message) netlink.Message { return extAck(req, c.errno, c.msg) }
		for _, err := range []error{f.Add(r), f.Replace(r)} {
			for _, w := range c.is {
				if !errors.Is(err, w) {
					t.Errorf("%v: %v is not %v", c.errno, err, w)
				}
			}
			if c.text != "" && err.Error() != c.text {
				t.Errorf("%v:\n got %q\nwant %q", c.errno, err, c.text)
			}
		}
	}
	// Delete: ESRCH (and ENOENT) is ErrRouteNotFound; the request names
	// the destination, our table and our protocol only.
	for _, errno := range []unix.Errno{unix.ESRCH, unix.ENOENT} {
		ack = func(req netlink.Message) netlink.Message { return kernelAck(req, errno) }
		if err := f.Delete(r.Dst); !errors.Is(err, ErrRouteNotFound) || !errors.Is(err, errno) {
			t.Fatalf("Delete, %v: %v", errno, err)
		}
	}
	ack = func(req netlink.Message) netlink.Message { return kernelAck(req, 0) }
	if err := f.Delete(netip.MustParsePrefix("198.51.100.0/24")); err != nil {
		t.Fatal(err)
	}
	del := f.reqs[len(f.reqs)-1]
	want := append([]byte{afInet, 24, 0, 0, MainTable, RouteProtocol, rtScopeNowhere, 0, 0, 0, 0, 0}, rawAttr(rtaDst, []byte{198, 51, 100, 0})...)
	if del.Header.Type != unix.RTM_DELROUTE || del.Header.Flags != netlink.Request|netlink.Acknowledge || !bytes.Equal(del.Data, want) {
		t.Fatalf("delete %+v %x, want %x", del.Header, del.Data, want)
	}
	f2 := newFakeRoutes(t, RouteOptions{Protocol: 99, Table: 1000})
	if err := f2.Delete(polBSIDp); err != nil {
		t.Fatal(err)
	}
	want = bytes.Join([][]byte{{afInet6, 128, 0, 0, 0, 99, rtScopeNowhere, 0, 0, 0, 0, 0}, rawAttr(rtaTable, u32b(1000)), rawAttr(rtaDst, polBSIDp.Addr().AsSlice())}, nil)
	if !bytes.Equal(f2.reqs[0].Data, want) {
		t.Fatalf("delete in table 1000: %x, want %x", f2.reqs[0].Data, want)
	}
	// Closed: nothing is sent.
	n := len(f.reqs)
	f.Close()
	_, lerr := f.List()
	_, ierr := f.InterfaceTo(polSegsp[0])
	for _, err := range []error{f.Add(r), f.Delete(r.Dst), lerr, ierr} {
		if err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("closed: %v", err)
		}
	}
	if len(f.reqs) != n || f.Close() != nil {
		t.Fatal("a closed KernelRoutes sent a request, or failed to close again")
	}
}

// TestNLRouteList: List and ListAll dump IPv6 then IPv4 routes
// (RTM_GETROUTE, NLM_F_DUMP) and keep the SR policy routes (ours only for
// List) from multipart answers; Flush deletes ours.
func TestNLRouteList(t *testing.T) {
	ours := []Route{
		{Kind: RouteBSID, Dst: polBSIDp, Segments: polSegsp, KeyID: 42, OIF: 3, Table: MainTable, Protocol: RouteProtocol},
		{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::/48"), Segments: polSegsp, OIF: 4, Table: MainTable, Protocol: RouteProtocol},
	}
	ours4 := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("198.51.100.0/24"), Segments: polSegsp[:1], KeyID: 7, OIF: 2, Table: MainTable, Protocol: RouteProtocol}
	theirs := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:4::/48"), Segments: polSegsp, OIF: 4, Table: MainTable, Protocol: 3}
	otherTable := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:5::/48"), Segments: polSegsp, OIF: 4, Table: 1000, Protocol: RouteProtocol}
	body := func(r Route) []byte {
		m, err := encodeRoute(r, r.Protocol, r.Table, false)
		if err != nil {
			t.Fatal(err)
		}
		return m.Data
	}
	plain := append([]byte{afInet6, 64, 0, 0, MainTable, 2, 0, rtnUnicast, 0, 0, 0, 0}, rawAttr(rtaDst, make([]byte, 16))...)
	f := newFakeRoutes(t, RouteOptions{})
	var dumps []netlink.Message
	f.answer = func(req netlink.Message) []netlink.Message {
		if req.Header.Type != unix.RTM_GETROUTE {
			return []netlink.Message{kernelAck(req, 0)}
		}
		dumps = append(dumps, req)
		var bodies [][]byte
		if req.Data[0] == afInet6 {
			bodies = [][]byte{body(ours[0]), plain, body(theirs), body(otherTable), body(ours[1])}
		} else {
			bodies = [][]byte{body(ours4)}
		}
		var msgs []netlink.Message
		for _, b := range bodies {
			msgs = append(msgs, routeAnswer(req, b))
		}
		msgs, _ = nltest.Multipart(append(msgs, netlink.Message{Header: netlink.Header{Sequence: req.Header.Sequence}, Data: make([]byte, 4)}))
		return msgs
	}
	got, err := f.List()
	if err != nil {
		t.Fatal(err)
	}
	if want := append(ours, ours4); !reflect.DeepEqual(got, want) {
		t.Fatalf("List:\n%+v\nwant\n%+v", got, want)
	}
	if len(dumps) != 2 {
		t.Fatalf("%d dumps", len(dumps))
	}
	for i, fam := range []uint8{afInet6, afInet} {
		if d := dumps[i]; d.Header.Flags != netlink.Request|netlink.Dump || !bytes.Equal(d.Data, []byte{fam, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}) {
			t.Fatalf("dump %d: %+v %x", i, d.Header, d.Data)
		}
	}
	all, err := f.ListAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := []Route{ours[0], theirs, otherTable, ours[1], ours4}; !reflect.DeepEqual(all, want) {
		t.Fatalf("ListAll:\n%+v\nwant\n%+v", all, want)
	}
	f.reqs = nil
	n, err := f.Flush()
	if err != nil || n != 3 {
		t.Fatalf("Flush: %d, %v", n, err)
	}
	var deleted []string
	for _, r := range f.reqs {
		if r.Header.Type == unix.RTM_DELROUTE {
			deleted = append(deleted, fmt.Sprintf("%d/%d", r.Data[0], r.Data[1]))
		}
	}
	if want := []string{"10/128", "10/48", "2/24"}; !reflect.DeepEqual(deleted, want) {
		t.Fatalf("Flush deleted %v, want %v", deleted, want)
	}
	// A dump error fails the list.
	f.answer = func(req netlink.Message) []netlink.Message { return []netlink.Message{kernelAck(req, unix.EPERM)} }
	if _, err := f.List(); !errors.Is(err, unix.EPERM) {
		t.Fatalf("List, EPERM: %v", err)
	}
	// An empty dump is no routes.
	f.answer = func(req netlink.Message) []netlink.Message {
		return []netlink.Message{{Header: netlink.Header{Type: netlink.Done, Flags: netlink.Multi, Sequence: req.Header.Sequence}, Data: make([]byte, 4)}}
	}
	if rs, err := f.ListAll(); err != nil || len(rs) != 0 {
		t.Fatalf("empty dump: %v, %v", rs, err)
	}
}
