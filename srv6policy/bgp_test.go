package srv6policy

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	apb "google.golang.org/protobuf/types/known/anypb"
)

var testPolicy = Policy{
	Name:          "gold-to-pe3",
	Color:         100,
	Endpoint:      netip.MustParseAddr("2001:db8::3"),
	Distinguisher: 1,
	Preference:    200,
	BindingSID:    netip.MustParseAddr("fc00:0:1:b6::1f2e"), // last two bytes non-zero
	Segments:      []netip.Addr{netip.MustParseAddr("fc00:0:2::1"), netip.MustParseAddr("fc00:0:3::1")},
	KeyID:         42,
	Headends:      []netip.Addr{netip.MustParseAddr("192.0.2.3"), netip.MustParseAddr("192.0.2.4")},
}

// wire converts an API path the way GoBGP's AddPath does (apiutil, then the
// MP_REACH_NLRI it builds from the next hop) and serializes the NLRI and
// every attribute: what goes on the wire, attribute by attribute.
func wire(t testing.TB, p *api.Path) (nlri []byte, attrs map[uint8][]byte, all [][]byte) {
	t.Helper()
	n, err := apiutil.GetNativeNlri(p)
	if err != nil {
		t.Fatal(err)
	}
	if nlri, err = n.Serialize(); err != nil {
		t.Fatal(err)
	}
	pattrs, err := apiutil.GetNativePathAttributes(p)
	if err != nil {
		t.Fatal(err)
	}
	attrs = map[uint8][]byte{}
	for _, a := range pattrs {
		if nh, ok := a.(*bgp.PathAttributeNextHop); ok {
			a = bgp.NewPathAttributeMpReachNLRI(nh.Value.String(), []bgp.AddrPrefixInterface{n})
		}
		b, err := a.Serialize()
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := attrs[uint8(a.GetType())]; dup {
			t.Fatalf("attribute %d twice", a.GetType())
		}
		attrs[uint8(a.GetType())] = b
		all = append(all, b)
	}
	return nlri, attrs, all
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "\n", "", "\t", "").Replace(s))
	if err != nil {
		panic(err)
	}
	return b
}

// TestPolicyPathWire checks, byte for byte (RFC 9830, RFC 9012, RFC 4360,
// RFC 8092), what GoBGP sends for a policy's path.
func TestPolicyPathWire(t *testing.T) {
	p, err := testPolicy.Path(65001)
	if err != nil {
		t.Fatal(err)
	}
	if p.Family.Afi != api.Family_AFI_IP6 || p.Family.Safi != api.Family_SAFI_SR_POLICY {
		t.Fatalf("family %v", p.Family)
	}
	nlri, attrs, _ := wire(t, p)
	if want := mustHex("c0 00000001 00000064 20010db8000000000000000000000003"); !bytes.Equal(nlri, want) {
		t.Errorf("NLRI\n got %x\nwant %x", nlri, want)
	}
	tun := mustHex(`c0 17 54
		000f 0050
		  0c 06 00 00 000000c8
		  0d 12 00 00 fc000000000100b6000000000000 1f2e
		  80 0031 00
		    09 06 00 00 00000001
		    0d 12 00 00 fc000000000200000000000000000001
		    0d 12 00 00 fc000000000300000000000000000001`)
	if got := attrs[23]; !bytes.Equal(got, tun) {
		t.Errorf("TUNNEL_ENCAP\n got %x\nwant %x", got, tun)
	}
	rts := mustHex("c0 10 10 0102 c0000203 0000 0102 c0000204 0000")
	if got := attrs[16]; !bytes.Equal(got, rts) {
		t.Errorf("EXTENDED_COMMUNITIES\n got %x\nwant %x", got, rts)
	}
	large := mustHex("c0 20 0c 0000fde9 00002232 0000002a")
	if got := attrs[32]; !bytes.Equal(got, large) {
		t.Errorf("LARGE_COMMUNITY\n got %x\nwant %x", got, large)
	}
	if got := attrs[1]; !bytes.Equal(got, mustHex("40 01 01 00")) {
		t.Errorf("ORIGIN %x", got)
	}
	if _, ok := attrs[8]; ok {
		t.Error("COMMUNITIES (NO_ADVERTISE) sent with headends")
	}
	// MP_REACH_NLRI: AFI 2, SAFI 73, next hop :: (GoBGP puts its session
	// address there when it sends), the NLRI.
	if got := attrs[14]; !bytes.Contains(got, append(mustHex("0002 49 10 00000000000000000000000000000000 00"), nlri...)) {
		t.Errorf("MP_REACH_NLRI %x", got)
	}

	// No headends: NO_ADVERTISE and no Route Target; no key: no Large
	// Community; no BSID: no sub-TLV 13; an IPv4 endpoint: 96 bits.
	q := testPolicy
	q.Headends, q.KeyID, q.BindingSID, q.Endpoint = nil, 0, netip.Addr{}, netip.MustParseAddr("198.51.100.3")
	p, err = q.Path(65001)
	if err != nil {
		t.Fatal(err)
	}
	if p.Family.Afi != api.Family_AFI_IP {
		t.Fatalf("family %v", p.Family)
	}
	nlri, attrs, _ = wire(t, p)
	if want := mustHex("60 00000001 00000064 c6336403"); !bytes.Equal(nlri, want) {
		t.Errorf("IPv4 NLRI %x", nlri)
	}
	if got := attrs[8]; !bytes.Equal(got, mustHex("c0 08 04 ffffff02")) {
		t.Errorf("COMMUNITIES %x", got)
	}
	if attrs[16] != nil || attrs[32] != nil {
		t.Errorf("Route Targets or Large Community without headends and key: %x %x", attrs[16], attrs[32])
	}
	if bytes.Contains(attrs[23], []byte{0x0d, 0x12}) && bytes.Index(attrs[23], []byte{0x0d, 0x12}) < 16 {
		t.Errorf("Binding SID sent: %x", attrs[23])
	}
}

// TestPolicyPathRoundTrip: what we send decodes to what we configured.
func TestPolicyPathRoundTrip(t *testing.T) {
	p, err := testPolicy.Path(65001)
	if err != nil {
		t.Fatal(err)
	}
	nlri, _, all := wire(t, p)
	r, err := DecodePath(nlri, all)
	if err != nil {
		t.Fatal(err)
	}
	want := &Received{
		Distinguisher: 1, Color: 100, Endpoint: testPolicy.Endpoint,
		HasSRPolicy: true, Preference: 200, HasPreference: true, BindingSID: testPolicy.BindingSID,
		SegmentLists: []SegmentList{{Weight: 1, HasWeight: true, Segments: testPolicy.Segments}},
		RouteTargets: []RouteTarget{{netip.MustParseAddr("192.0.2.3"), 0}, {netip.MustParseAddr("192.0.2.4"), 0}},
		Large:        []LargeCommunity{{65001, 8754, 42}},
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("decoded\n %+v\nwant\n %+v", r, want)
	}
	if ids := r.KeyIDs(); len(ids) != 1 || ids[0] != 42 {
		t.Fatalf("KeyIDs %v", ids)
	}
	// GoBGP decodes our bytes to the same, through its own API form.
	var native []bgp.PathAttributeInterface
	for _, b := range all {
		a, err := bgp.GetPathAttribute(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.DecodeFromBytes(b); err != nil {
			t.Fatal(err)
		}
		native = append(native, a)
	}
	back, err := apiutil.MarshalPathAttributes(native)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range back {
		m, _ := a.UnmarshalNew()
		if tun, ok := m.(*api.TunnelEncapAttribute); ok {
			for _, s := range tun.Tlvs[0].Tlvs {
				sm, _ := s.UnmarshalNew()
				if b, ok := sm.(*api.TunnelEncapSubTLVSRBindingSID); ok {
					bm, _ := b.Bsid.UnmarshalNew()
					if sid := bm.(*api.SRBindingSID).Sid; !bytes.Equal(sid, testPolicy.BindingSID.AsSlice()) {
						t.Errorf("GoBGP reads the BSID as %x", sid)
					}
				}
			}
		}
	}
}

// TestGoBGPQuirks documents what the design works around: GoBGP's
// SRv6BindingSID sends the Binding SID with its last two bytes zeroed, and
// GoBGP's API conversion of a segment list without a Weight panics (our
// decoder reads it).
func TestGoBGPQuirks(t *testing.T) {
	bsid := testPolicy.BindingSID.AsSlice()
	v6, _ := apb.New(&api.SRv6BindingSID{Sid: bsid})
	sub, err := apiutil.UnmarshalSRBSID(v6)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sub.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 20 || !bytes.Equal(b[4:18], bsid[:14]) || b[18] != 0 || b[19] != 0 {
		t.Fatalf("SRv6BindingSID serializes to %x (the quirk is gone? then api.SRv6BindingSID could be used)", b)
	}
	t.Logf("api.SRv6BindingSID %s goes out as %x (last two bytes lost)", testPolicy.BindingSID, b[4:20])

	// A segment list without a Weight, as another implementation may send.
	tun := mustHex(`c0 17 24
		000f 0020
		  0c 06 00 00 00000064
		  80 0015 00
		    0d 12 00 00 fc000000000200000000000000000001`)
	a, err := bgp.GetPathAttribute(tun)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.DecodeFromBytes(tun); err != nil {
		t.Fatal(err)
	}
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		_, _ = apiutil.MarshalPathAttributes([]bgp.PathAttributeInterface{a})
		return false
	}()
	if !panicked {
		t.Log("GoBGP no longer panics on a segment list without a Weight")
	}
	r, err := DecodePath(mustHex("c0 00000001 00000064 20010db8000000000000000000000003"), [][]byte{tun})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.SegmentLists) != 1 || r.SegmentLists[0].HasWeight || len(r.SegmentLists[0].Segments) != 1 {
		t.Fatalf("decoded %+v", r.SegmentLists)
	}
}

func TestDecodePathErrors(t *testing.T) {
	nlri := mustHex("c0 00000001 00000064 20010db8000000000000000000000003")
	for _, c := range []struct {
		name  string
		nlri  []byte
		attrs [][]byte
	}{
		{"empty NLRI", nil, nil},
		{"NLRI bits", mustHex("80 00000001 00000064 20010db8000000000000000000000003"), nil},
		{"NLRI short", nlri[:20], nil},
		{"attr short", nlri, [][]byte{{0x40, 1}}},
		{"attr length", nlri, [][]byte{mustHex("40 01 02 00")}},
		{"communities", nlri, [][]byte{mustHex("c0 08 03 ffffff")}},
		{"ext communities", nlri, [][]byte{mustHex("c0 10 04 01020304")}},
		{"large", nlri, [][]byte{mustHex("c0 20 04 00000001")}},
		{"tlv header", nlri, [][]byte{mustHex("c0 17 02 000f")}},
		{"tlv length", nlri, [][]byte{mustHex("c0 17 06 000f 0009 0c06")}},
		{"preference length", nlri, [][]byte{mustHex("c0 17 09 000f 0005 0c 03 000000")}},
		{"bsid length", nlri, [][]byte{mustHex("c0 17 09 000f 0005 0d 03 000000")}},
		{"segment length", nlri, [][]byte{mustHex("c0 17 0c 000f 0008 80 0005 00 0d 02 0000")}},
		{"segment list truncated", nlri, [][]byte{mustHex("c0 17 08 000f 0004 80 0009 00")}},
	} {
		if _, err := DecodePath(c.nlri, c.attrs); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func received(t *testing.T, p Policy, asn uint32) *Received {
	t.Helper()
	ap, err := p.Path(asn)
	if err != nil {
		t.Fatal(err)
	}
	nlri, _, all := wire(t, ap)
	r, err := DecodePath(nlri, all)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCheck(t *testing.T) {
	have := func(ids ...uint32) func(uint32) bool {
		return func(id uint32) bool {
			for _, i := range ids {
				if i == id {
					return true
				}
			}
			return false
		}
	}
	me := netip.MustParseAddr("192.0.2.4")
	view := HeadendView{RouterID: me, HaveKey: have(42)}
	r := received(t, testPolicy, 65001)
	in, err := r.Check(view)
	if err != nil || in.KeyID != 42 || in.BindingSID != testPolicy.BindingSID || !reflect.DeepEqual(in.Segments, testPolicy.Segments) {
		t.Fatalf("Check: %+v, %v", in, err)
	}
	for _, c := range []struct {
		name string
		mod  func(*Policy)
		view HeadendView
		want string
	}{
		{"other headend", func(p *Policy) { p.Headends = p.Headends[:1] }, view, "for another headend: Route Target 192.0.2.3:0"},
		{"unknown key", nil, HeadendView{RouterID: me, HaveKey: have(43)}, "HMAC key ID 42 not in our key table"},
		{"no key", func(p *Policy) { p.KeyID = 0 }, view, "no HMAC key ID"},
		{"no-advertise, not direct", func(p *Policy) { p.Headends = nil }, view, "NO_ADVERTISE without a Route Target from a neighbor that is not directly connected"},
		{"no-advertise, direct", func(p *Policy) { p.Headends = nil }, HeadendView{RouterID: me, HaveKey: have(42), Direct: true}, ""},
		{"15 segments", func(p *Policy) {
			p.KeyID = 0
			for i := 0; i < 15; i++ {
				p.Segments = append(p.Segments[:0:0], p.Segments...)
				p.Segments = append(p.Segments, netip.MustParseAddr("fc00:9::1"))
			}
		}, view, "no HMAC key ID"},
	} {
		p := testPolicy
		p.Headends = append([]netip.Addr(nil), p.Headends...)
		if c.mod != nil {
			c.mod(&p)
		}
		_, err := received(t, p, 65001).Check(c.view)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Segment lists: the usable one with the highest weight wins; a list
	// with a label, or too long, is skipped; none usable is an error.
	r = received(t, testPolicy, 65001)
	seg := func(s string) []netip.Addr { return []netip.Addr{netip.MustParseAddr(s)} }
	long := make([]netip.Addr, 15)
	for i := range long {
		long[i] = netip.MustParseAddr("fc00:7::1")
	}
	r.SegmentLists = []SegmentList{
		{Weight: 5, Segments: seg("fc00:1::1")},
		{Weight: 9, Segments: seg("fc00:2::1"), Other: 1},
		{Weight: 9, Segments: long},
		{Weight: 7, Segments: seg("fc00:3::1")},
	}
	if in, err := r.Check(view); err != nil || in.Segments[0] != netip.MustParseAddr("fc00:3::1") {
		t.Fatalf("segment list choice: %+v, %v", in, err)
	}
	r.SegmentLists = r.SegmentLists[1:3]
	if _, err := r.Check(view); err == nil {
		t.Fatal("no usable segment list accepted")
	}
	r.HasSRPolicy = false
	if _, err := r.Check(view); err == nil || !strings.Contains(err.Error(), "type 15") {
		t.Fatalf("no SR policy TLV: %v", err)
	}
}

func TestSelectBest(t *testing.T) {
	mk := func(color, pref, dist uint32, nb string, asn uint32) Candidate {
		return Candidate{
			Received:  &Received{Color: color, Endpoint: netip.MustParseAddr("2001:db8::3"), Preference: pref, Distinguisher: dist},
			Neighbor:  netip.MustParseAddr(nb),
			SourceASN: asn,
		}
	}
	cands := []Candidate{
		mk(100, 100, 1, "2001:db8::1", 65001),
		mk(100, 200, 2, "2001:db8::2", 65001), // best for color 100
		mk(200, 100, 1, "2001:db8::2", 65001),
		mk(200, 100, 1, "2001:db8::1", 65001), // lower neighbor wins the tie
		mk(300, 50, 1, "2001:db8::1", 65002),
		mk(300, 50, 1, "2001:db8::1", 65001), // lower ASN wins
		mk(400, 10, 1, "2001:db8::1", 65001),
		mk(400, 10, 7, "2001:db8::1", 65001),  // higher distinguisher wins
		mk(500, 900, 1, "2001:db8::1", 65001), // invalid
	}
	best := SelectBest(cands, func(i int) bool { return i != 8 })
	want := map[string]int{"100/2001:db8::3": 1, "200/2001:db8::3": 3, "300/2001:db8::3": 5, "400/2001:db8::3": 7}
	if !reflect.DeepEqual(best, want) {
		t.Fatalf("SelectBest = %v, want %v", best, want)
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, mod := range []func(*Policy){
		func(p *Policy) { p.Endpoint = netip.Addr{} },
		func(p *Policy) { p.BindingSID = netip.MustParseAddr("192.0.2.1") },
		func(p *Policy) { p.Segments = nil },
		func(p *Policy) { p.Segments = []netip.Addr{netip.MustParseAddr("192.0.2.1")} },
		func(p *Policy) { p.Headends = []netip.Addr{netip.MustParseAddr("2001:db8::1")} },
		func(p *Policy) {
			for len(p.Segments) <= MaxHMACSegments {
				p.Segments = append(p.Segments, netip.MustParseAddr("fc00::1"))
			}
		},
	} {
		p := testPolicy
		p.Segments = append([]netip.Addr(nil), p.Segments...)
		mod(&p)
		if _, err := p.Path(1); err == nil {
			t.Errorf("invalid policy accepted: %+v", p)
		}
	}
}

// FuzzDecodePath: DecodePath never panics, and what it accepts it accepts
// again from the same bytes.
func FuzzDecodePath(f *testing.F) {
	p, _ := testPolicy.Path(65001)
	nlri, attrs, _ := wire(f, p)
	f.Add(nlri, attrs[23], attrs[16], attrs[32])
	f.Add(nlri, mustHex("c0 17 24 000f 0020 0c 06 00 00 00000064 80 0015 00 0d 12 00 00 fc000000000200000000000000000001"), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, nlri, a, b, c []byte) {
		r1, err1 := DecodePath(nlri, [][]byte{a, b, c})
		r2, err2 := DecodePath(nlri, [][]byte{a, b, c})
		if (err1 == nil) != (err2 == nil) || (err1 == nil && !reflect.DeepEqual(r1, r2)) {
			t.Fatal("not deterministic")
		}
		if err1 == nil {
			_, _ = r1.Check(HeadendView{RouterID: netip.MustParseAddr("192.0.2.3"), HaveKey: func(uint32) bool { return true }})
		}
	})
}
