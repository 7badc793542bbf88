package srv6policy

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"reflect"
	"testing"
)

// TestRouteCodec: our RTM_NEWROUTE requests decode back to the route (the
// kernel answers a dump with the same attributes), for both kinds, IPv6
// and IPv4, with and without HMAC. The privileged TestKernelRoutesLikeIproute2
// compares the encoding with iproute2's through the kernel.
func TestRouteCodec(t *testing.T) {
	for _, r := range []Route{
		{Kind: RouteBSID, Dst: polBSIDp, Segments: polSegsp, KeyID: 42, OIF: 3},
		{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::3/128"), Segments: polSegsp, KeyID: 4294967295, OIF: 7},
		{Kind: RouteSteer, Dst: netip.MustParsePrefix("198.51.100.0/24"), Segments: polSegsp[:1], KeyID: 1, OIF: 2},
		{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::4/128"), Segments: polSegsp, OIF: 2},
	} {
		for _, table := range []uint32{MainTable, 1000} {
			msg, err := encodeRoute(9, r, RouteProtocol, table, false)
			if err != nil {
				t.Fatal(err)
			}
			if l := binary.NativeEndian.Uint32(msg[0:4]); int(l) != len(msg) || binary.NativeEndian.Uint16(msg[4:6]) != rtmNewRoute {
				t.Fatalf("%s: header %x", r, msg[:16])
			}
			if f := binary.NativeEndian.Uint16(msg[6:8]); f != nlmFRequest|nlmFAck|nlmFCreate|nlmFExcl {
				t.Fatalf("%s: flags %#x", r, f)
			}
			got, err := decodeRoute(msg[nlmsgHdrLen:])
			if err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			want := r
			want.Table, want.Protocol = table, RouteProtocol
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded %+v, want %+v", got, want)
			}
			msg, _ = encodeRoute(9, r, RouteProtocol, table, true)
			if f := binary.NativeEndian.Uint16(msg[6:8]); f != nlmFRequest|nlmFAck|nlmFCreate|nlmFReplace {
				t.Fatalf("%s: replace flags %#x", r, f)
			}
		}
	}
	// Invalid routes are refused before anything is sent.
	for _, r := range []Route{
		{Kind: RouteBSID, Dst: netip.MustParsePrefix("fc00::/64"), Segments: polSegsp, OIF: 1},
		{Kind: RouteBSID, Dst: netip.MustParsePrefix("192.0.2.1/32"), Segments: polSegsp, OIF: 1},
		{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8::1/128"), OIF: 1},
		{Kind: 9, Dst: netip.MustParsePrefix("2001:db8::1/128"), Segments: polSegsp, OIF: 1},
		{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8::1/128"), Segments: polSegsp},
		{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8::1/128"), Segments: make([]netip.Addr, 15), KeyID: 1, OIF: 1},
	} {
		if _, err := encodeRoute(1, r, RouteProtocol, MainTable, false); err == nil {
			t.Errorf("invalid route encoded: %+v", r)
		}
	}
	// A delete names the destination, table and our protocol only.
	d := encodeDelRoute(5, netip.MustParsePrefix("2001:db8:3::3/128"), RouteProtocol, MainTable)
	if body := d[nlmsgHdrLen:]; body[0] != afInet6 || body[1] != 128 || body[4] != MainTable || body[5] != RouteProtocol || body[6] != rtScopeNowhere || body[7] != 0 {
		t.Fatalf("delete rtmsg %x", body[:rtmsgLen])
	}
	// Other routes are not ours.
	other := nlFinish(appendRtmsg(nlHeader(rtmNewRoute, 0, 1), afInet6, 64, MainTable, 3, 0, rtnUnicast))
	if _, err := decodeRoute(other[nlmsgHdrLen:]); !errors.Is(err, errNotOurs) {
		t.Fatalf("plain route: %v", err)
	}
}

var (
	polSegsp = []netip.Addr{netip.MustParseAddr("fc00:0:2::1"), netip.MustParseAddr("fc00:0:3::1")}
	polBSIDp = netip.MustParsePrefix("fc00:0:1:b6::100/128")
)

// FuzzDecodeRoute: decoding whatever the kernel (or anyone) sends never
// panics.
func FuzzDecodeRoute(f *testing.F) {
	r := Route{Kind: RouteBSID, Dst: polBSIDp, Segments: polSegsp, KeyID: 42, OIF: 3}
	msg, _ := encodeRoute(1, r, RouteProtocol, MainTable, false)
	f.Add(msg[nlmsgHdrLen:])
	r.Kind, r.Dst = RouteSteer, netip.MustParsePrefix("198.51.100.0/24")
	msg, _ = encodeRoute(1, r, RouteProtocol, 1000, false)
	f.Add(msg[nlmsgHdrLen:])
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeRoute(b)
		_, _, _ = decodeRouteOIF(b)
	})
}
