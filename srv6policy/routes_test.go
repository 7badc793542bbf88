package srv6policy

import (
	"errors"
	"net/netip"
	"reflect"
	"testing"

	"github.com/mdlayher/netlink"
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
			msg, err := encodeRoute(r, RouteProtocol, table, false)
			if err != nil {
				t.Fatal(err)
			}
			if msg.Header.Type != rtmNewRoute {
				t.Fatalf("%s: header %+v", r, msg.Header)
			}
			if f := msg.Header.Flags; f != netlink.Request|netlink.Acknowledge|netlink.Create|netlink.Excl {
				t.Fatalf("%s: flags %#x", r, f)
			}
			got, err := decodeRoute(msg.Data)
			if err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			want := r
			want.Table, want.Protocol = table, RouteProtocol
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded %+v, want %+v", got, want)
			}
			msg, _ = encodeRoute(r, RouteProtocol, table, true)
			if f := msg.Header.Flags; f != netlink.Request|netlink.Acknowledge|netlink.Create|netlink.Replace {
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
		if _, err := encodeRoute(r, RouteProtocol, MainTable, false); err == nil {
			t.Errorf("invalid route encoded: %+v", r)
		}
	}
	// A delete names the destination, table and our protocol only.
	d, _ := encodeDelRoute(netip.MustParsePrefix("2001:db8:3::3/128"), RouteProtocol, MainTable)
	if body := d.Data; body[0] != afInet6 || body[1] != 128 || body[4] != MainTable || body[5] != RouteProtocol || body[6] != rtScopeNowhere || body[7] != 0 {
		t.Fatalf("delete rtmsg %x", body[:rtmsgLen])
	}
	// Other routes are not ours.
	other := rtmsg{family: afInet6, dstLen: 64, table: MainTable, proto: 3, typ: rtnUnicast}.marshal()
	if _, err := decodeRoute(other); !errors.Is(err, errNotOurs) {
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
	msg, _ := encodeRoute(r, RouteProtocol, MainTable, false)
	f.Add(msg.Data)
	r.Kind, r.Dst = RouteSteer, netip.MustParsePrefix("198.51.100.0/24")
	msg, _ = encodeRoute(r, RouteProtocol, 1000, false)
	f.Add(msg.Data)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeRoute(b)
		_, _, _ = decodeRouteOIF(b)
	})
}
