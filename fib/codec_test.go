package fib

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/mdlayher/netlink"
)

func route(table uint32, dst string, nhs ...NextHop) Route {
	r := Route{Key: Key{Table: table, Dst: netip.MustParsePrefix(dst)}, NextHops: nhs}
	r.Normalize()
	return r
}

func via(gw string, ifindex int) NextHop {
	return NextHop{Gateway: netip.MustParseAddr(gw), Ifindex: ifindex}
}

// randRoute returns a valid, normalized route drawn from rng.
func randRoute(rng *rand.Rand) Route {
	var r Route
	tables := []uint32{MainTable, 1, 100, 255, 256, 1000, 1<<32 - 1}
	r.Table = tables[rng.IntN(len(tables))]
	var a netip.Addr
	v4 := rng.IntN(2) == 0
	if v4 {
		a = netip.AddrFrom4([4]byte{byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32())})
	} else {
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		a = netip.AddrFrom16(b)
	}
	r.Dst = netip.PrefixFrom(a, rng.IntN(a.BitLen()+1)).Masked()
	for range 1 + rng.IntN(4) {
		var n NextHop
		switch rng.IntN(4) {
		case 0:
			if v4 {
				n.Gateway = netip.AddrFrom4([4]byte{192, 0, 2, byte(rng.Uint32())})
			} else {
				n.Gateway = netip.MustParseAddr("2001:db8::").Next()
			}
		case 1:
			n.Gateway = netip.AddrFrom16([16]byte{0xfe, 0x80, 15: byte(rng.Uint32())})
			n.Ifindex = 1 + rng.IntN(100)
		case 2:
			n.Ifindex = 1 + rng.IntN(1<<31-1)
		case 3:
			if v4 {
				n.Gateway = netip.AddrFrom4([4]byte{198, 51, 100, byte(rng.Uint32())})
			} else {
				n.Gateway = netip.AddrFrom16([16]byte{0x20, 0x01, 0xd, 0xb8, 15: byte(rng.Uint32())})
			}
			n.Ifindex = rng.IntN(5)
		}
		r.NextHops = append(r.NextHops, n)
	}
	r.Normalize()
	return r
}

// encode returns the body (after the netlink header) of op's request.
func encode(t testing.TB, op Op) []byte {
	t.Helper()
	b, err := appendOp(nil, op, 7)
	if err != nil {
		t.Fatalf("encode %s: %v", op, err)
	}
	typ, flags, seq, body, rest, ok := nextMessage(b)
	if !ok || rest != nil || seq != 7 || flags&nlmFAck == 0 || (typ == rtmDelRoute) != op.Delete {
		t.Fatalf("encode %s: bad message header", op)
	}
	return body
}

func TestCodecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		r := randRoute(rng)
		if err := r.Validate(); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		got, m, ok := parseRoute(encode(t, Op{Route: r}), nil)
		if !ok || !got.Equal(r) || !m.ours() || m.Scope != rtScopeUniverse {
			t.Fatalf("round trip of %s: %s %+v %v", r, got, m, ok)
		}
		var arena []NextHop
		if got, _, _ := parseRoute(encode(t, Op{Route: r}), &arena); !got.Equal(r) || len(arena) != len(r.NextHops) {
			t.Fatalf("round trip in an arena of %s: %s", r, got)
		}
		// A delete names only our route: protocol, metric, table, key.
		got, m, ok = parseRoute(encode(t, Op{Delete: true, Route: r}), nil)
		if !ok || got.Key != r.Key || len(got.NextHops) != 0 || m.Protocol != Protocol || m.Metric != Metric || m.Type != 0 || m.Scope != rtScopeNowhere {
			t.Fatalf("delete of %s: %s %+v", r, got, m)
		}
	}
}

// TestCodecLikeNetlink: mdlayher/netlink's decoder (not ours) reads our
// attributes as iproute2 writes them.
func TestCodecLikeNetlink(t *testing.T) {
	r := route(1000, "198.51.100.0/24", via("fe80::1", 3), via("192.0.2.2", 0))
	body := encode(t, Op{Route: r})
	if body[0] != afInet || body[1] != 24 || body[4] != 0 || body[5] != Protocol || body[7] != rtnUnicast {
		t.Fatalf("rtmsg % x", body[:rtmsgLen])
	}
	ad, err := netlink.NewAttributeDecoder(body[rtmsgLen:])
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint16]bool{}
	for ad.Next() {
		seen[ad.Type()] = true
		switch ad.Type() {
		case rtaTable:
			if ad.Uint32() != 1000 {
				t.Error("RTA_TABLE")
			}
		case rtaPriority:
			if ad.Uint32() != Metric {
				t.Error("RTA_PRIORITY")
			}
		case rtaDst:
			if string(ad.Bytes()) != string([]byte{198, 51, 100, 0}) {
				t.Error("RTA_DST")
			}
		case rtaMultipath:
			mp := ad.Bytes()
			// rtnexthop 1: 192.0.2.2 (sorted first), any device.
			if ne.Uint16(mp) != 16 || ne.Uint32(mp[4:]) != 0 || ne.Uint16(mp[10:]) != rtaGateway {
				t.Errorf("first rtnexthop % x", mp[:16])
			}
			// rtnexthop 2: RTA_VIA inet6 fe80::1 on device 3.
			nh := mp[16:]
			if ne.Uint16(nh) != 8+24 || ne.Uint32(nh[4:]) != 3 || ne.Uint16(nh[8:]) != 22 || ne.Uint16(nh[10:]) != rtaVia || ne.Uint16(nh[12:]) != afInet6 {
				t.Errorf("second rtnexthop % x", nh)
			}
		}
	}
	if ad.Err() != nil || len(seen) != 4 {
		t.Errorf("attributes %v: %v", seen, ad.Err())
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		r    Route
		want string
	}{
		{route(MainTable, "198.51.100.0/24"), "no next hop"},
		{route(0, "198.51.100.0/24", via("192.0.2.1", 0)), "no table"},
		{Route{Key: Key{Table: 1, Dst: netip.MustParsePrefix("198.51.100.1/24")}, NextHops: []NextHop{via("192.0.2.1", 0)}}, "masked"},
		{route(MainTable, "2001:db8::/32", via("192.0.2.1", 0)), "IPv4 gateway of an IPv6 route"},
		{route(MainTable, "2001:db8::/32", via("fe80::1", 0)), "link-local gateway needs its device"},
		{route(MainTable, "198.51.100.0/24", NextHop{}), "neither gateway nor device"},
		{route(MainTable, "198.51.100.0/24", via("::ffff:192.0.2.1", 1)), "IPv4-mapped"},
		{route(MainTable, "198.51.100.0/24", via("192.0.2.1", -1)), "bad device index"},
		{Route{Key: Key{Table: 1, Dst: netip.MustParsePrefix("198.51.100.0/24")}, NextHops: []NextHop{via("192.0.2.2", 0), via("192.0.2.1", 0)}}, "not sorted"},
	} {
		err := c.r.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%s) = %v, want %q", c.r, err, c.want)
		}
		if _, err := appendOp(nil, Op{Route: c.r}, 1); err == nil {
			t.Errorf("%s encoded", c.r)
		}
	}
}

func TestMatches(t *testing.T) {
	want := route(MainTable, "198.51.100.0/24", via("192.0.2.2", 0), via("fe80::1", 3))
	if !want.Matches(route(MainTable, "198.51.100.0/24", via("192.0.2.2", 3), via("fe80::1", 3))) {
		t.Error("a device the kernel filled in")
	}
	for _, k := range []Route{
		route(MainTable, "198.51.100.0/24", via("192.0.2.2", 3), via("fe80::1", 4)),
		route(MainTable, "198.51.100.0/24", via("192.0.2.2", 3)),
		route(1, "198.51.100.0/24", via("192.0.2.2", 3), via("fe80::1", 3)),
	} {
		if want.Matches(k) {
			t.Errorf("%s matches %s", want, k)
		}
	}
}

// TestParseAck: an error ack with the kernel's message, capped and not.
func TestParseAck(t *testing.T) {
	req, _ := appendOp(nil, Op{Delete: true, Route: route(MainTable, "198.51.100.0/24")}, 42)
	for _, capped := range []bool{true, false} {
		errno := int32(-3) // ESRCH
		b := ne.AppendUint32(nil, uint32(errno))
		echo := req
		if capped {
			echo = req[:nlmsgHdrLen]
		}
		b = append(b, echo...)
		b = append(ne.AppendUint16(ne.AppendUint16(b, 4+6), nlmsgerrAttrMsg), "oops\x00\x00\x00\x00"...)
		flags := uint16(nlmFAckTLVs)
		if capped {
			flags |= nlmFCapped
		}
		errno, seq, msg, ok := parseAck(b, flags)
		if !ok || errno != 3 || seq != 42 || msg != "oops" {
			t.Errorf("capped %v: %d %d %q %v", capped, errno, seq, msg, ok)
		}
	}
}
