package capture

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
)

// hostFilters caches host-filtered programs by framing, SRv6 flag and
// host set, each checked with the kernel's rules once.
type hostFilters struct {
	progs map[string]cbpf
	vms   map[string]*bpf.VM
}

func newHostFilters() *hostFilters {
	return &hostFilters{progs: map[string]cbpf{}, vms: map[string]*bpf.VM{}}
}

func (hf *hostFilters) prog(t testing.TB, fr framing, spec filterSpec) (cbpf, *bpf.VM) {
	t.Helper()
	key := fmt.Sprint(fr, spec.port, spec.srv6, spec.hosts)
	if p, ok := hf.progs[key]; ok {
		return p, hf.vms[key]
	}
	p := cbpf{buildFilterSpec(fr, spec)}
	if err := p.verify(); err != nil {
		t.Fatalf("filter(framing %d, %v) fails the kernel's checks: %v", fr, spec.hosts, err)
	}
	hf.progs[key] = p
	if fr != framingAny {
		raw := make([]bpf.RawInstruction, len(p.prog))
		for i, in := range p.prog {
			raw[i] = bpf.RawInstruction{Op: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
		}
		insts, all := bpf.Disassemble(raw)
		if !all {
			t.Fatalf("x/net/bpf cannot decode the host filter (framing %d)", fr)
		}
		vm, err := bpf.NewVM(insts)
		if err != nil {
			t.Fatalf("x/net/bpf.NewVM: %v", err)
		}
		hf.vms[key] = vm
	}
	return p, hf.vms[key]
}

// accepts runs the any-framing program, the device's own framing program
// and x/net/bpf's VM on a frame seen on a device of type hatype, checks
// that they agree and returns the verdict.
func (hf *hostFilters) accepts(t testing.TB, spec filterSpec, data []byte, hatype uint16) bool {
	t.Helper()
	set, err := hostSet(spec.hosts)
	if err != nil {
		t.Fatal(err)
	}
	spec.hosts = set
	anyP, _ := hf.prog(t, framingAny, spec)
	any, err := anyP.run(data, hatype)
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	_, fr, ok := linkOf(hatype)
	if !ok {
		if any != 0 {
			t.Fatalf("frame of unsupported device type %d accepted", hatype)
		}
		return false
	}
	oneP, vm := hf.prog(t, fr, spec)
	one, err := oneP.run(data, hatype)
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	vmRes, err := vm.Run(data)
	if err != nil {
		t.Fatalf("x/net/bpf VM: %v", err)
	}
	if (any != 0) != (one != 0) || (one != 0) != (vmRes != 0) {
		t.Fatalf("programs disagree on %x (hosts %v): any-framing %d, framing %d: %d, x/net VM %d", data, spec.hosts, any, fr, one, vmRes)
	}
	if any != 0 && any != snapAll {
		t.Fatalf("accepting program returned snap length %d, want all", any)
	}
	return any != 0
}

// near returns addresses that differ from a in one place: for IPv4 the
// first and the last byte, for IPv6 each 32-bit word (the program compares
// word by word).
func near(a netip.Addr) []netip.Addr {
	var out []netip.Addr
	if a.Is4() {
		b := a.As4()
		for _, i := range []int{0, 3} {
			c := b
			c[i] ^= 0x01
			out = append(out, netip.AddrFrom4(c))
		}
		return out
	}
	b := a.As16()
	for w := range 4 {
		c := b
		c[4*w+3] ^= 0x80
		out = append(out, netip.AddrFrom16(c))
	}
	return out
}

// filler returns n addresses of both families that no test frame uses.
func filler(n int) []netip.Addr {
	out := make([]netip.Addr, 0, n)
	for i := range n {
		if i%2 == 0 {
			out = append(out, netip.AddrFrom4([4]byte{203, 0, 113, byte(i)}))
		} else {
			out = append(out, netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 15: byte(i)}))
		}
	}
	return out
}

// hostSets are the sets each frame is checked against, with whether
// src→dst should pass them.
func hostSets(src, dst netip.Addr) []struct {
	name  string
	hosts []netip.Addr
	match bool
} {
	type hs = struct {
		name  string
		hosts []netip.Addr
		match bool
	}
	sets := []hs{
		{"source", []netip.Addr{src}, true},
		{"destination", []netip.Addr{dst}, true},
		{"both", []netip.Addr{dst, src}, true},
		{"others", filler(8), false},
		{"near misses", append(near(src), near(dst)...), false},
		{"source among the most", append(filler(MaxHosts-1), src), true},
		{"destination among the most", append([]netip.Addr{dst}, filler(MaxHosts-1)...), true},
	}
	if src.Is4() {
		sets = append(sets, hs{"source v4-mapped", []netip.Addr{netip.AddrFrom16(src.As16())}, true})
	}
	for i := range sets {
		// A near miss may hit the other end (a pair differing in one
		// place): then it matches after all.
		if !sets[i].match {
			sets[i].match = slices.Contains(sets[i].hosts, src) || slices.Contains(sets[i].hosts, dst)
		}
	}
	return sets
}

// TestFilterHostsRealFrames runs the host filter over every frame of the
// project's real captures (the corpus of TestFilterRealFrames, plus the
// BGP sessions of e2e/testdata and shadow/testdata), for sets holding the
// frame's source, its destination, neither (other hosts, addresses one
// byte or one word away), a full set, and IPv4 sources written as
// IPv4-mapped IPv6: it must accept exactly what the plain filter accepts
// and DecodeTCP attributes to a listed address.
func TestFilterHostsRealFrames(t *testing.T) {
	var files []string
	for _, g := range []string{"../frame/testdata/*.pcap*", "capfile/testdata/*.pcap*", "../e2e/testdata/*.pcap*", "../shadow/testdata/*.pcap*"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	fs := newFilterSet(t)
	hf := newHostFilters()
	var views4, views6, accepted, rejected int
	for _, name := range files {
		if filepath.Ext(name) == ".golden" {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := capfile.NewReader(f)
		if err != nil {
			f.Close()
			t.Fatalf("%s: %v", name, err)
		}
		for i := 1; ; i++ {
			pkt, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			data := append([]byte{}, pkt.Data...)
			for _, v := range views(pkt.LinkType, data) {
				var seg frame.TCP
				if v.link == 0 {
					continue
				}
				derr := frame.DecodeTCP(v.link, v.data, &seg)
				base := fs.accepts(t, 179, v.data, v.hatype)
				if derr != nil {
					// Not a whole TCP segment (or a malformed one the
					// plain filter may let through): the host filter
					// accepts no more than the plain one.
					for _, hosts := range [][]netip.Addr{filler(4), filler(MaxHosts)} {
						if hf.accepts(t, filterSpec{port: 179, hosts: hosts}, v.data, v.hatype) && !base {
							t.Errorf("%s #%d (%s): host filter accepts what the plain filter rejects", name, i, v.what)
						}
					}
					continue
				}
				if seg.Src.Is4() {
					views4++
				} else {
					views6++
				}
				for _, hs := range hostSets(seg.Src, seg.Dst) {
					for _, port := range []uint16{179, seg.SrcPort} {
						want := base && hs.match
						if port != 179 {
							want = hs.match // DecodeTCP decoded it: port matches
						}
						got := hf.accepts(t, filterSpec{port: port, hosts: hs.hosts}, v.data, v.hatype)
						if got != want {
							t.Errorf("%s #%d (%s, %v→%v, port %d, hosts %s): accepts=%v, want %v", name, i, v.what, seg.Src, seg.Dst, port, hs.name, got, want)
						}
						if port == 179 {
							if got {
								accepted++
							} else {
								rejected++
							}
						}
					}
				}
			}
		}
		f.Close()
	}
	t.Logf("%d IPv4 and %d IPv6 segment views: %d accepted, %d rejected (port 179, all host sets)", views4, views6, accepted, rejected)
	if views4 < 50 || views6 < 50 || accepted < 500 || rejected < 500 {
		t.Errorf("corpus too thin: %d v4, %d v6 views; %d accepted, %d rejected", views4, views6, accepted, rejected)
	}
}

// at returns pkt (from ip4 or ip6) with source src and destination dst.
func at(pkt []byte, src, dst netip.Addr) []byte {
	p := append([]byte{}, pkt...)
	if p[0]>>4 == 4 {
		s, d := src.As4(), dst.As4()
		copy(p[12:], s[:])
		copy(p[16:], d[:])
		return p
	}
	s, d := src.As16(), dst.As16()
	copy(p[8:], s[:])
	copy(p[24:], d[:])
	return p
}

// TestFilterHostsSynthetic: the host check on every path to the TCP
// header: VLAN tag stacks, IPv4 options, IPv6 extension header chains
// (and SRv6 with Options.SRv6), each framing; the port check still holds
// with a matching host; an empty set is the plain filter, instruction for
// instruction.
func TestFilterHostsSynthetic(t *testing.T) {
	hf := newHostFilters()
	v4a, v4b := netip.MustParseAddr("192.0.2.6"), netip.MustParseAddr("198.51.100.9")
	v6a, v6b := netip.MustParseAddr("2001:db8:1:2:3:4:5:6"), netip.MustParseAddr("2001:db8::9")
	type pkt struct {
		name     string
		data     []byte
		et       uint16
		src, dst netip.Addr
		plain    bool // the plain filter accepts it
		srv6Only bool // accepted only by the SRv6 filter
	}
	pkts := []pkt{
		{"v4 to 179", ip4(6, 0x4000, 0, tcpSeg(40000, 179, 50)), 0x0800, v4a, v4b, true, false},
		{"v4 from 179, options", ip4(6, 0, 3, tcpSeg(179, 40000, 0)), 0x0800, v4b, v4a, true, false},
		{"v4 port 8080", ip4(6, 0, 0, tcpSeg(40000, 8080, 10)), 0x0800, v4a, v4b, false, false},
		{"v4 udp 179", ip4(17, 0, 0, udpDgram(179, 179)), 0x0800, v4a, v4b, false, false},
		{"v4 fragment", ip4(6, 0x2000, 0, tcpSeg(40000, 179, 100)), 0x0800, v4a, v4b, false, false},
		{"v6 to 179", ip6(nil, 6, tcpSeg(40000, 179, 50)), 0x86dd, v6a, v6b, true, false},
		{"v6 from 179, hbh dst srh dst", ip6([]byte{0, 60, 43, 60}, 6, tcpSeg(179, 40000, 10)), 0x86dd, v6b, v6a, true, false},
		{"v6 ah", ip6([]byte{51}, 6, tcpSeg(179, 40000, 10)), 0x86dd, v6a, v6b, true, false},
		{"v6 port 8080", ip6(nil, 6, tcpSeg(8080, 40000, 10)), 0x86dd, v6a, v6b, false, false},
		{"v6 fragment", ip6([]byte{44}, 6, tcpSeg(40000, 179, 10)), 0x86dd, v6a, v6b, false, false},
		{"v6 srh encap", ip6([]byte{43}, 41, ip6(nil, 58, make([]byte, 16))), 0x86dd, v6a, v6b, false, true},
	}
	for _, fr := range []framing{framingAny, framingEthernet, framingRaw} {
		for _, srv6 := range []bool{false, true} {
			plain := buildFilterSRv6(179, fr, srv6)
			for _, empty := range [][]netip.Addr{nil, {}} {
				if got := buildFilterSpec(fr, filterSpec{port: 179, srv6: srv6, hosts: empty}); !slices.Equal(got, plain) {
					t.Errorf("framing %d, srv6 %v: an empty host set changes the program", fr, srv6)
				}
			}
		}
	}
	n := 0
	for _, p := range pkts {
		data := at(p.data, p.src, p.dst)
		type view struct {
			data   []byte
			hatype uint16
			what   string
		}
		vs := []view{{data, arphrdNone, "raw"}, {data, arphrdTunnel6, "ip6ip6"}}
		for _, tags := range [][]uint16{nil, {0x8100}, {0x88a8, 0x8100}, {0x9100, 0x88a8, 0x8100}} {
			vs = append(vs, view{ether(data, p.et, tags...), arphrdEther, fmt.Sprintf("eth tags %x", tags)})
		}
		vs = append(vs, view{ether(data, p.et), arphrdLoopback, "lo"})
		for _, v := range vs {
			for _, srv6 := range []bool{false, true} {
				pass := p.plain || (srv6 && p.srv6Only)
				for _, hs := range hostSets(p.src, p.dst) {
					got := hf.accepts(t, filterSpec{port: 179, srv6: srv6, hosts: hs.hosts}, v.data, v.hatype)
					if want := pass && hs.match; got != want {
						t.Errorf("%s (%s, srv6 %v, hosts %s %v): accepts=%v, want %v", p.name, v.what, srv6, hs.name, hs.hosts, got, want)
					}
					n++
				}
				// The other family's address with the same bytes never
				// matches.
				var other netip.Addr
				if p.src.Is4() {
					b := p.src.As4()
					other = netip.AddrFrom16([16]byte{12: b[0], 13: b[1], 14: b[2], 15: b[3]}) // ::a.b.c.d, not mapped
				} else {
					b := p.src.As16()
					other = netip.AddrFrom4([4]byte(b[12:]))
				}
				if hf.accepts(t, filterSpec{port: 179, srv6: srv6, hosts: []netip.Addr{other}}, v.data, v.hatype) {
					t.Errorf("%s (%s): accepted for %v, the other family's address", p.name, v.what, other)
				}
			}
		}
	}
	t.Logf("%d verdicts checked", n)
}

// TestFilterHostsShape: the largest host sets still make programs the
// kernel takes (at most 4096 instructions, every jump inside, scratch
// memory written before read), and hostSet normalises and bounds sets.
func TestFilterHostsShape(t *testing.T) {
	all6 := make([]netip.Addr, MaxHosts)
	all4 := make([]netip.Addr, MaxHosts)
	for i := range MaxHosts {
		all6[i] = netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 14: byte(i >> 8), 15: byte(i)})
		all4[i] = netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
	}
	for _, fr := range []framing{framingAny, framingEthernet, framingRaw} {
		for _, set := range []struct {
			name  string
			hosts []netip.Addr
		}{{"64 IPv6", all6}, {"64 IPv4", all4}, {"mixed", filler(MaxHosts)}, {"one IPv4", all4[:1]}, {"one IPv6", all6[:1]}} {
			for _, srv6 := range []bool{false, true} {
				p := buildFilterSpec(fr, filterSpec{port: 179, srv6: srv6, hosts: set.hosts})
				if err := (cbpf{p}).verify(); err != nil {
					t.Errorf("framing %d, %s, srv6 %v: %v", fr, set.name, srv6, err)
				}
				if !srv6 {
					t.Logf("framing %d, %s hosts: %d instructions", fr, set.name, len(p))
				}
			}
		}
	}

	v4 := netip.MustParseAddr("192.0.2.6")
	got, err := hostSet([]netip.Addr{netip.MustParseAddr("2001:db8::1%eth0"), netip.AddrFrom16(v4.As16()), v4, netip.MustParseAddr("2001:db8::1")})
	if err != nil || !slices.Equal(got, []netip.Addr{v4, netip.MustParseAddr("2001:db8::1")}) {
		t.Errorf("hostSet: %v, %v", got, err)
	}
	if got, err := hostSet(nil); err != nil || len(got) != 0 {
		t.Errorf("hostSet(nil): %v, %v", got, err)
	}
	if _, err := hostSet([]netip.Addr{{}}); err == nil {
		t.Error("hostSet accepts the zero Addr")
	}
	if _, err := hostSet(append(all6, all4[0])); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("hostSet of %d: %v", MaxHosts+1, err)
	}
	// Duplicates do not count against the bound.
	if got, err := hostSet(append(all6, all6...)); err != nil || len(got) != MaxHosts {
		t.Errorf("hostSet of duplicates: %d, %v", len(got), err)
	}
	if _, err := Open(Options{Hosts: append(all6, all4[0])}); err == nil || errors.Is(err, ErrPermission) {
		t.Errorf("Open with %d hosts: %v", MaxHosts+1, err)
	}
}
