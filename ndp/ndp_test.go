package ndp

import (
	"bytes"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEncodeRA(t *testing.T) {
	got := encodeRA([]byte{0x02, 0x00, 0x5e, 0x00, 0x53, 0x01})
	want := []byte{
		134, 0, 0, 0, // type RA, code 0, checksum (kernel)
		0, 0, 0, 0, // cur hop limit 0, flags 0, router lifetime 0
		0, 0, 0, 0, // reachable time 0
		0, 0, 0, 0, // retrans timer 0
		1, 1, 0x02, 0x00, 0x5e, 0x00, 0x53, 0x01, // SLLA, 1 x 8 octets
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encodeRA:\n got % x\nwant % x", got, want)
	}
	if got := encodeRA(nil); !bytes.Equal(got, want[:16]) {
		t.Fatalf("encodeRA(no lladdr) = % x, want the 16-byte header alone", got)
	}
	// An 8-byte link-layer address (e.g. IEEE 802.15.4) takes 2 x 8 octets.
	got = encodeRA([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	if len(got) != 32 || got[16] != 1 || got[17] != 2 || !bytes.Equal(got[18:26], []byte{1, 2, 3, 4, 5, 6, 7, 8}) || !bytes.Equal(got[26:], make([]byte, 6)) {
		t.Fatalf("encodeRA(8-byte lladdr) = % x", got)
	}
}

func ll(s string) netip.Addr { return netip.MustParseAddr(s) }

func TestPickNeighbor(t *testing.T) {
	own := []ifAddr{{ifindex: 3, addr: ll("fe80::1")}, {ifindex: 3, addr: ll("2001:db8::1")}}
	peer := neighbor{ifindex: 3, addr: ll("fe80::2"), state: nudStale}
	for _, tc := range []struct {
		name   string
		neighs []neighbor
		want   string
		err    error
	}{
		{"one stale", []neighbor{peer}, "fe80::2%eth1", nil},
		{"none", nil, "", ErrNoNeighbor},
		{"only our own address", []neighbor{{ifindex: 3, addr: ll("fe80::1"), state: nudReachable}}, "", ErrNoNeighbor},
		{"failed is not a peer", []neighbor{{ifindex: 3, addr: ll("fe80::2"), state: nudFailed}}, "", ErrNoNeighbor},
		{"incomplete is not a peer", []neighbor{peer, {ifindex: 3, addr: ll("fe80::99"), state: nudIncomplete}}, "fe80::2%eth1", nil},
		{"none state is not a peer", []neighbor{{ifindex: 3, addr: ll("fe80::2"), state: 0}}, "", ErrNoNeighbor},
		{"global address ignored", []neighbor{peer, {ifindex: 3, addr: ll("2001:db8::2"), state: nudReachable}}, "fe80::2%eth1", nil},
		{"other interface ignored", []neighbor{peer, {ifindex: 4, addr: ll("fe80::3"), state: nudReachable}}, "fe80::2%eth1", nil},
		{"permanent counts", []neighbor{{ifindex: 3, addr: ll("fe80::5"), state: nudPermanent}}, "fe80::5%eth1", nil},
		{"noarp counts", []neighbor{{ifindex: 3, addr: ll("fe80::5"), state: nudNoARP}}, "fe80::5%eth1", nil},
		{"two", []neighbor{peer, {ifindex: 3, addr: ll("fe80::3"), state: nudDelay}}, "", ErrManyNeighbors},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pickNeighbor("eth1", 3, tc.neighs, own)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				if !strings.Contains(err.Error(), "eth1") {
					t.Fatalf("error %q does not name the interface", err)
				}
				return
			}
			if err != nil || got.String() != tc.want || got.Zone() != "eth1" {
				t.Fatalf("= %v, %v; want %s", got, err, tc.want)
			}
		})
	}
	_, err := pickNeighbor("eth1", 3, []neighbor{peer, {ifindex: 3, addr: ll("fe80::3"), state: nudStale}, {ifindex: 3, addr: ll("fe80::4"), state: nudProbe}}, own)
	if msg := err.Error(); !strings.Contains(msg, "3 IPv6 link-local neighbors on eth1") || !strings.Contains(msg, "point-to-point") {
		t.Fatalf("ErrManyNeighbors text %q: want the count, the interface and point-to-point", msg)
	}
	_, err = pickNeighbor("eth1", 3, nil, own)
	if err.Error() != "ndp: no IPv6 link-local neighbor on eth1 yet" {
		t.Fatalf("ErrNoNeighbor text %q", err)
	}
}

func TestPickSource(t *testing.T) {
	addrs := []ifAddr{
		{ifindex: 2, addr: ll("fe80::9")},
		{ifindex: 3, addr: ll("2001:db8::1")},
		{ifindex: 3, addr: ll("fe80::a"), flags: ifaFTentative},
		{ifindex: 3, addr: ll("fe80::b"), flags: ifaFDADFailed},
	}
	if a, ok := pickSource(3, addrs); ok {
		t.Fatalf("pickSource found %v; all link-local addresses of 3 are tentative or failed", a)
	}
	addrs = append(addrs, ifAddr{ifindex: 3, addr: ll("fe80::c"), flags: 0x80 /* permanent */})
	if a, ok := pickSource(3, addrs); !ok || a != ll("fe80::c") {
		t.Fatalf("pickSource = %v, %v; want fe80::c", a, ok)
	}
}

// nlmsg builds one netlink message (padded) for tests and fuzz seeds.
func nlmsg(typ, flags uint16, seq uint32, body []byte) []byte {
	b := request(typ, flags, seq, body)
	ne.PutUint16(b[6:8], flags) // request() adds NLM_F_REQUEST
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func neighMsg(ifindex int32, state uint16, addr netip.Addr, lladdr []byte) []byte {
	b := make([]byte, ndMsgLen)
	b[0] = afInet6
	ne.PutUint32(b[4:8], uint32(ifindex))
	ne.PutUint16(b[8:10], state)
	a := addr.As16()
	b = appendAttr(b, ndaDst, a[:])
	if lladdr != nil {
		b = appendAttr(b, ndaLLAddr, lladdr)
	}
	return nlmsg(rtmNewNeigh, nlmFMulti, 7, b)
}

func addrMsg(ifindex uint32, addr netip.Addr, flags uint32) []byte {
	b := make([]byte, ifAddrMsgLen)
	b[0], b[1], b[3] = afInet6, 64, 253
	ne.PutUint32(b[4:8], ifindex)
	a := addr.As16()
	b = appendAttr(b, ifaAddress, a[:])
	b = appendAttr(b, ifaFlags, ne.AppendUint32(nil, flags))
	return nlmsg(rtmNewAddr, nlmFMulti, 7, b)
}

func linkMsg(index int32, flags uint32, name string, hw []byte) []byte {
	b := make([]byte, ifInfoMsgLen)
	ne.PutUint32(b[4:8], uint32(index))
	ne.PutUint32(b[8:12], flags)
	b = appendAttr(b, iflaIfname, append([]byte(name), 0))
	b = appendAttr(b, iflaAddress, hw)
	return nlmsg(rtmNewLink, 0, 7, b)
}

func TestParseDump(t *testing.T) {
	var b []byte
	b = append(b, neighMsg(3, nudStale, ll("fe80::2"), []byte{2, 0, 0x5e, 0, 0x53, 2})...)
	b = append(b, neighMsg(3, nudIncomplete, ll("fe80::99"), nil)...)
	v4 := neighMsg(3, nudReachable, ll("192.0.2.1"), nil)
	v4[nlmHdrLen] = 2 // AF_INET: skipped
	b = append(b, v4...)
	b = append(b, addrMsg(3, ll("fe80::1"), ifaFTentative|0x100)...)
	b = append(b, linkMsg(3, iffUp|iffRunning, "eth1", []byte{2, 0, 0x5e, 0, 0x53, 1})...)
	b = append(b, nlmsg(nlmsgDone, nlmFMulti, 7, make([]byte, 4))...)
	d, err := parseDump(b)
	if err != nil {
		t.Fatal(err)
	}
	if !d.done || len(d.neighs) != 2 || len(d.addrs) != 1 || len(d.links) != 1 {
		t.Fatalf("parseDump = %+v", d)
	}
	if n := d.neighs[0]; n.ifindex != 3 || n.addr != ll("fe80::2") || n.state != nudStale || !bytes.Equal(n.lladdr, []byte{2, 0, 0x5e, 0, 0x53, 2}) {
		t.Fatalf("neighbor = %+v", n)
	}
	if a := d.addrs[0]; a.ifindex != 3 || a.addr != ll("fe80::1") || a.flags != ifaFTentative|0x100 || a.scope != 253 {
		t.Fatalf("address = %+v", a)
	}
	if l := d.links[0]; l.index != 3 || l.name != "eth1" || l.flags != iffUp|iffRunning || len(l.hwaddr) != 6 {
		t.Fatalf("link = %+v", l)
	}
	got, err := pickNeighbor("eth1", 3, d.neighs, d.addrs)
	if err != nil || got != ll("fe80::2%eth1") {
		t.Fatalf("pickNeighbor = %v, %v", got, err)
	}

	errMsg := nlmsg(nlmsgError, 0, 7, ne.AppendUint32(nil, uint32(0xffffffed))) // -19 ENODEV
	d, err = parseDump(errMsg)
	if err != nil || !d.acked || d.errno != 19 {
		t.Fatalf("NLMSG_ERROR: %+v, %v", d, err)
	}
	doneErr := nlmsg(nlmsgDone, nlmFMulti, 7, ne.AppendUint32(nil, uint32(0xffffffea))) // -22 EINVAL
	d, err = parseDump(doneErr)
	if err != nil || !d.done || d.errno != 22 {
		t.Fatalf("NLMSG_DONE with an error: %+v, %v", d, err)
	}
	for _, bad := range [][]byte{b[:10], b[:nlmHdrLen+5], {0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}} {
		if _, err := parseDump(bad); err == nil {
			t.Errorf("parseDump(% x) = nil error, want one", bad)
		}
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.Interval != 10*time.Second || o.Retry != time.Second {
		t.Fatalf("defaults = %+v", o)
	}
	if o := (Options{Interval: 100 * time.Millisecond}).withDefaults(); o.Retry != 100*time.Millisecond {
		t.Fatalf("retry not capped by interval: %+v", o)
	}
}

func FuzzParseDump(f *testing.F) {
	f.Add(neighMsg(3, nudStale, ll("fe80::2"), []byte{2, 0, 0x5e, 0, 0x53, 2}))
	f.Add(addrMsg(3, ll("fe80::1"), ifaFTentative))
	f.Add(linkMsg(3, iffUp, "eth1", []byte{1, 2, 3, 4, 5, 6}))
	// Seeds captured from a real kernel live in testdata/fuzz/FuzzParseDump.
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := parseDump(b)
		if err != nil {
			return
		}
		for _, n := range d.neighs {
			if !n.addr.Is6() {
				t.Fatalf("non-IPv6 neighbor %v", n.addr)
			}
		}
		_, _ = pickNeighbor("eth1", 3, d.neighs, d.addrs)
		_, _ = pickSource(3, d.addrs)
	})
}

// TestKernelSeeds parses the rtnetlink replies recorded from a real kernel
// (TestWriteKernelSeeds): a neighbor dump with a STALE router entry (our
// RA's) and a PERMANENT fe80::db8:2, an address dump and a link dump.
func TestKernelSeeds(t *testing.T) {
	load := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzParseDump", name))
		if err != nil {
			t.Fatal(err)
		}
		s, ok := strings.CutPrefix(string(b), "go test fuzz v1\n[]byte(")
		s, ok2 := strings.CutSuffix(s, ")\n")
		if !ok || !ok2 {
			t.Fatalf("%s: not a fuzz seed", name)
		}
		u, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return []byte(u)
	}
	d, err := parseDump(load("kernel-neigh-dump"))
	if err != nil || !d.done || d.errno != 0 {
		t.Fatalf("neighbor dump: %+v, %v", d, err)
	}
	var perm, stale int
	for _, n := range d.neighs {
		if n.addr == ll("fe80::db8:2") && n.state == nudPermanent {
			perm++
		}
		if n.addr.IsLinkLocalUnicast() && n.state == nudStale && n.flags&0x80 != 0 { // NTF_ROUTER
			stale++
		}
	}
	if perm != 1 || stale != 1 {
		t.Fatalf("neighbor dump: want one PERMANENT fe80::db8:2 and one STALE router entry: %+v", d.neighs)
	}
	d, err = parseDump(load("kernel-addr-dump"))
	if err != nil || !d.done || len(d.addrs) == 0 {
		t.Fatalf("address dump: %+v, %v", d, err)
	}
	d, err = parseDump(load("kernel-link-dump"))
	if err != nil || !d.done || len(d.links) < 2 || d.links[0].name != "lo" {
		t.Fatalf("link dump: %+v, %v", d, err)
	}
}
