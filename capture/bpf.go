package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/authbgp/authbgpd/frame"
)

// This file builds the classic BPF program the kernel runs on every frame
// before it reaches the ring. It is portable (plain data, no syscalls) so it
// can be unit tested anywhere against captured frames.
//
// The program sees a frame exactly as the ring will hold it: for an AF_PACKET
// SOCK_RAW socket, from the link-layer header on devices that have one
// (Ethernet, loopback) and from the IP header on devices that have none (tun,
// WireGuard, IP tunnels). It accepts a frame when frame.DecodeTCP would
// decode a whole TCP segment from it and one of the segment's ports is the
// BGP port:
//
//   - Ethernet with up to maxTags in-band VLAN tags (802.1Q, 802.1ad and the
//     old 0x9100). Tags the kernel moved into packet metadata are simply not
//     in the frame any more; frames with more in-band tags are accepted and
//     left to DecodeTCP.
//   - IPv4: version 4, not a fragment (MF flag or offset), protocol 6, header
//     length >= 20.
//   - IPv6: version 6, then a loop-free walk of up to maxExtHeaders extension
//     headers (hop-by-hop, routing, destination options, AH) to TCP. A
//     fragment header, ESP, "no next header" or any other protocol rejects
//     the frame; a chain longer than the walk is accepted and left to
//     DecodeTCP.
//   - TCP: source or destination port equal to the BGP port, data offset
//     >= 5 and the whole TCP header present.
//
// The filter is thus a (tight) superset of what DecodeTCP plus a port check
// accepts: the only frames it accepts that DecodeTCP rejects are malformed
// ones (lengths in the IP headers that disagree with the frame) and the two
// fallbacks above.
//
// With a host set (Options.Hosts, Capture.SetHosts) the program also
// requires the IP source or destination address to be one of the set's:
// right after the IP version check (IPv6: before the extension header walk,
// so SRv6 packets too are accepted only to or from a listed host), in one
// shared block per address family, reached with the IP header's offset in
// X. IPv4 hosts are
// compared with one 32-bit word per address, IPv6 hosts word by word.

// instruction is one classic BPF instruction (struct sock_filter).
type instruction struct {
	Op     uint16
	Jt, Jf uint8
	K      uint32
}

// Classic BPF opcodes (linux/bpf_common.h, linux/filter.h).
const (
	bpfLD   = 0x00
	bpfLDX  = 0x01
	bpfST   = 0x02
	bpfALU  = 0x04
	bpfJMP  = 0x05
	bpfRET  = 0x06
	bpfMISC = 0x07

	bpfW = 0x00
	bpfH = 0x08
	bpfB = 0x10

	bpfIMM = 0x00
	bpfABS = 0x20
	bpfIND = 0x40
	bpfMEM = 0x60
	bpfMSH = 0xa0

	bpfADD = 0x00
	bpfSUB = 0x10
	bpfAND = 0x50
	bpfLSH = 0x60
	bpfRSH = 0x70

	bpfJA   = 0x00
	bpfJEQ  = 0x10
	bpfJGE  = 0x30
	bpfJSET = 0x40

	bpfK = 0x00
	bpfX = 0x08

	bpfTAX = 0x00
	bpfTXA = 0x80

	// Ancillary data: loads at SKF_AD_OFF + n read packet metadata.
	skfAdOff    = 0xfffff000 // SKF_AD_OFF, -0x1000
	skfAdHatype = 28         // SKF_AD_HATYPE: the device's ARPHRD_ type
)

// ARPHRD_ device types (linux/if_arp.h) the capture knows how to frame.
const (
	arphrdEther    = 1
	arphrdPPP      = 512
	arphrdRawIP    = 519
	arphrdTunnel   = 768 // IPIP
	arphrdTunnel6  = 769 // IP6IP6
	arphrdSit      = 776
	arphrdLoopback = 772
	arphrdNone     = 0xfffe // tun, WireGuard
)

// framing is what the program expects at the start of a frame.
type framing int

const (
	framingAny      framing = iota // decide per frame from the device type (SKF_AD_HATYPE)
	framingEthernet                // Ethernet header (Ethernet, loopback)
	framingRaw                     // IP header (no link-layer header)
)

// linkOf maps a device type to the link type of its frames on a SOCK_RAW
// packet socket, and the framing the filter uses for it. ok is false for
// device types the capture does not support (their frames are skipped).
func linkOf(hatype uint16) (link uint32, fr framing, ok bool) {
	switch hatype {
	case arphrdEther, arphrdLoopback:
		// Loopback frames carry an Ethernet header with zero addresses.
		return frame.LinkEthernet, framingEthernet, true
	case arphrdNone, arphrdRawIP, arphrdTunnel, arphrdTunnel6, arphrdSit, arphrdPPP:
		// These devices have no header_ops: frames start at the IP header.
		return frame.LinkRaw, framingRaw, true
	}
	return 0, 0, false
}

const (
	// maxTags is how many in-band VLAN tags the filter walks.
	maxTags = 3
	// maxExtHeaders is how many IPv6 extension headers the filter walks.
	maxExtHeaders = 8
	// snapAll is the filter's "accept" return value: keep the whole frame
	// (the ring's block size is then the only limit).
	snapAll = 0xffffffff
)

// buildFilter returns the classic BPF program that accepts TCP segments to
// or from port, for frames of framing fr.
func buildFilter(port uint16, fr framing) []instruction {
	return buildFilterSRv6(port, fr, false)
}

// buildFilterSRv6 is buildFilter that, with srv6, also accepts every IPv6
// packet with a Segment Routing Header (routing header type 4) among the
// extension headers it walks, whatever follows it (SRv6 encapsulation
// carries an inner IP packet, not TCP): the shadow checker verifies their
// SRH HMACs.
func buildFilterSRv6(port uint16, fr framing, srv6 bool) []instruction {
	return buildFilterSpec(fr, filterSpec{port: port, srv6: srv6})
}

// filterSpec is what a capture filter accepts besides the framing.
type filterSpec struct {
	port uint16
	srv6 bool // also IPv6 packets with an SRH (buildFilterSRv6)
	// hosts, if not empty, is the set of IP addresses one end of an
	// accepted packet must have (from hostSet: unmapped, sorted, unique).
	hosts []netip.Addr
}

// MaxHosts is the most addresses Options.Hosts and Capture.SetHosts take
// (each IPv6 host costs 18 filter instructions, an IPv4 host 4, and a
// classic BPF program at most 4096).
const MaxHosts = 64

// hostSet normalises a host set: IPv4-mapped IPv6 addresses become IPv4
// (such peers are IPv4 on the wire), zones go, duplicates go, and the
// result is sorted. It refuses invalid addresses and more than MaxHosts.
func hostSet(hosts []netip.Addr) ([]netip.Addr, error) {
	out := make([]netip.Addr, 0, len(hosts))
	for _, h := range hosts {
		if !h.IsValid() {
			return nil, errors.New("capture: host set with an invalid (zero) address")
		}
		out = append(out, h.Unmap().WithZone(""))
	}
	slices.SortFunc(out, netip.Addr.Compare)
	out = slices.Compact(out)
	if len(out) > MaxHosts {
		return nil, fmt.Errorf("capture: %d hosts, at most %d", len(out), MaxHosts)
	}
	return out, nil
}

// buildFilterSpec returns the capture filter for frames of framing fr that
// accepts what f says: TCP segments to or from f.port (and with f.srv6 the
// IPv6 packets with an SRH), to or from one of f.hosts when it is not
// empty.
func buildFilterSpec(fr framing, f filterSpec) []instruction {
	a := &assembler{labels: map[string]int{}, srv6: f.srv6, hostsOn: len(f.hosts) > 0}
	for _, h := range f.hosts {
		if h.Is4() {
			b := h.As4()
			a.hosts4 = append(a.hosts4, binary.BigEndian.Uint32(b[:]))
			continue
		}
		b := h.As16()
		var w [4]uint32
		for i := range w {
			w[i] = binary.BigEndian.Uint32(b[4*i:])
		}
		a.hosts6 = append(a.hosts6, w)
	}
	p := uint32(f.port)
	switch fr {
	case framingAny:
		a.stmt(bpfLD|bpfW|bpfABS, skfAdOff+skfAdHatype)
		a.jeq(arphrdEther, "eth0", "")
		a.jeq(arphrdLoopback, "eth0", "")
		for _, t := range []uint32{arphrdNone, arphrdRawIP, arphrdTunnel, arphrdTunnel6, arphrdSit, arphrdPPP} {
			a.jeq(t, "raw", "")
		}
		a.ret(0)
		a.raw()
		a.ethernet()
	case framingEthernet:
		a.ethernet()
	case framingRaw:
		a.raw()
	default:
		panic("capture: unknown framing")
	}
	if a.hostsOn {
		a.hosts()
	}
	a.walk()
	a.tcp(p)
	return a.assemble()
}

// hosts emits the host address checks: at host4 for an IPv4 header at
// offset X, on to tcp with the TCP header's offset in X; at host6 for an
// IPv6 header at offset X, on to the extension header walk with its
// registers set as ipv6 sets them without hosts.
func (a *assembler) hosts() {
	a.label("host4")
	if len(a.hosts4) > 0 {
		for i, off := range []uint32{12, 16} { // source, destination
			a.stmt(bpfLD|bpfW|bpfIND, off)
			for j, h := range a.hosts4 {
				skip := fmt.Sprintf("h4-%d-%d", i, j)
				a.jeq(h, "", skip)
				a.ja("match4")
				a.label(skip)
			}
		}
	}
	a.ret(0)
	if len(a.hosts4) > 0 {
		// X = X + header length, the offset of the TCP header (the
		// IPv4 path checked the length). Recomputed rather than kept in
		// scratch memory: the kernel's check of scratch memory reads
		// carries what is written on the path before a return into the
		// code after it, so a read here would be refused.
		a.label("match4")
		a.stmt(bpfLD|bpfB|bpfIND, 0)
		a.stmt(bpfALU|bpfAND|bpfK, 0x0f)
		a.stmt(bpfALU|bpfLSH|bpfK, 2)
		a.stmt(bpfALU|bpfADD|bpfX, 0)
		a.stmt(bpfMISC|bpfTAX, 0)
		a.ja("tcp")
	}
	a.label("host6")
	if len(a.hosts6) > 0 {
		for i, off := range []uint32{8, 24} { // source, destination
			for j, h := range a.hosts6 {
				skip := fmt.Sprintf("h6-%d-%d", i, j)
				for w := range uint32(4) {
					a.stmt(bpfLD|bpfW|bpfIND, off+4*w)
					a.jeq(h[w], "", skip)
				}
				a.ja("match6")
				a.label(skip)
			}
		}
	}
	a.ret(0)
	if len(a.hosts6) > 0 {
		a.label("match6")
		a.stmt(bpfLD|bpfB|bpfIND, 6) // next header
		a.stmt(bpfST, 1)
		a.stmt(bpfMISC|bpfTXA, 0)
		a.stmt(bpfALU|bpfADD|bpfK, 40)
		a.stmt(bpfMISC|bpfTAX, 0) // X = offset after the fixed header
		a.stmt(bpfLD|bpfMEM, 1)   // A = next header
		a.ja("walk0")
	}
}

// raw emits the code for frames that start at the IP header.
func (a *assembler) raw() {
	a.label("raw")
	a.stmt(bpfLD|bpfB|bpfABS, 0)
	a.stmt(bpfALU|bpfAND|bpfK, 0xf0)
	a.jeq(0x40, "ip4@0", "")
	a.jeq(0x60, "ip6@0", "")
	a.ret(0)
	a.ipv4(0)
	a.ipv6(0)
}

// ethernet emits the code for frames that start with an Ethernet header.
func (a *assembler) ethernet() {
	for i := 0; i <= maxTags; i++ {
		l := uint32(14 + 4*i) // offset of the IP header
		a.label(fmt.Sprintf("eth%d", i))
		a.stmt(bpfLD|bpfH|bpfABS, l-2) // EtherType
		a.jeq(0x0800, fmt.Sprintf("ip4@%d", l), "")
		a.jeq(0x86dd, fmt.Sprintf("ip6@%d", l), "")
		next := fmt.Sprintf("tag%d", i)
		if i == maxTags {
			// More tags than the filter walks: let DecodeTCP decide.
			next = fmt.Sprintf("many%d", i)
		}
		for _, et := range []uint32{0x8100, 0x88a8, 0x9100} {
			a.jeq(et, next, "")
		}
		a.ret(0)
		if i < maxTags {
			a.label(next)
			a.ja(fmt.Sprintf("eth%d", i+1))
		} else {
			a.label(next)
			a.ret(snapAll)
		}
		a.ipv4(l)
		a.ipv6(l)
	}
}

// ipv4 emits the code for an IPv4 header at offset l.
func (a *assembler) ipv4(l uint32) {
	rej := a.ipVersion(4, l)
	a.stmt(bpfLD|bpfH|bpfABS, l+6) // flags and fragment offset
	a.jump(bpfJSET, 0x3fff, rej, "")
	a.stmt(bpfLD|bpfB|bpfABS, l+9) // protocol
	a.jeq(6, "", rej)
	a.stmt(bpfLDX|bpfB|bpfMSH, l) // X = header length
	a.stmt(bpfMISC|bpfTXA, 0)
	a.jump(bpfJGE, 20, "", rej)
	if a.hostsOn {
		a.stmt(bpfLDX|bpfW|bpfIMM, l) // X = offset of the IP header
		a.ja("host4")
	} else {
		a.stmt(bpfALU|bpfADD|bpfK, l)
		a.stmt(bpfMISC|bpfTAX, 0) // X = offset of the TCP header
		a.ja("tcp")
	}
	a.label(rej)
	a.ret(0)
}

// ipVersion emits the code at label ip<v>@l that rejects a packet unless
// the IP header at offset l has version v, and returns the label of the
// rejection (the caller places it).
func (a *assembler) ipVersion(v, l uint32) string {
	rej := fmt.Sprintf("rej%d@%d", v, l)
	a.label(fmt.Sprintf("ip%d@%d", v, l))
	a.stmt(bpfLD|bpfB|bpfABS, l)
	a.stmt(bpfALU|bpfAND|bpfK, 0xf0)
	a.jeq(v<<4, "", rej)
	return rej
}

// ipv6 emits the code for an IPv6 header at offset l: it hands the walk the
// next header in A and the offset after the fixed header in X.
func (a *assembler) ipv6(l uint32) {
	rej := a.ipVersion(6, l)
	if a.hostsOn {
		a.stmt(bpfLDX|bpfW|bpfIMM, l) // X = offset of the IP header
		a.ja("host6")
	} else {
		a.stmt(bpfLD|bpfB|bpfABS, l+6) // next header
		a.stmt(bpfLDX|bpfW|bpfIMM, l+40)
		a.ja("walk0")
	}
	a.label(rej)
	a.ret(0)
}

// walk emits the IPv6 extension header walk: A holds a next-header value,
// X the offset of that header.
func (a *assembler) walk() {
	for i := 0; i <= maxExtHeaders; i++ {
		a.label(fmt.Sprintf("walk%d", i))
		t := fmt.Sprintf("t%d", i)
		e := fmt.Sprintf("e%d", i)
		ah := fmt.Sprintf("ah%d", i)
		if i == maxExtHeaders {
			// Still extension headers: too long a chain for the
			// filter, let DecodeTCP decide.
			e, ah = "longchain", "longchain"
		}
		rt := e
		if a.srv6 && i < maxExtHeaders {
			rt = fmt.Sprintf("rt%d", i)
		}
		a.jeq(6, t, "")
		a.jeq(0, e, "")   // hop-by-hop options
		a.jeq(43, rt, "") // routing
		a.jeq(60, e, "")  // destination options
		a.jeq(51, ah, "")
		a.ret(0) // fragment, ESP, no next header, UDP, ...
		a.label(t)
		a.ja("tcp")
		if i == maxExtHeaders {
			a.label("longchain")
			a.ret(snapAll)
			break
		}
		if rt != e {
			// Routing header: type 4 (SRH) is accepted whole; any other
			// type is walked like every extension header.
			a.label(rt)
			a.stmt(bpfLD|bpfB|bpfIND, 2)
			a.jeq(4, "", e)
			a.ret(snapAll)
		}
		c := fmt.Sprintf("c%d", i)
		// Generic extension header: length (hdr[1]+1)*8.
		a.label(e)
		a.stmt(bpfLD|bpfB|bpfIND, 0)
		a.stmt(bpfST, 0) // M[0] = next header
		a.stmt(bpfLD|bpfB|bpfIND, 1)
		a.stmt(bpfALU|bpfADD|bpfK, 1)
		a.stmt(bpfALU|bpfLSH|bpfK, 3)
		a.ja(c)
		// Authentication header: length (hdr[1]+2)*4.
		a.label(ah)
		a.stmt(bpfLD|bpfB|bpfIND, 0)
		a.stmt(bpfST, 0)
		a.stmt(bpfLD|bpfB|bpfIND, 1)
		a.stmt(bpfALU|bpfADD|bpfK, 2)
		a.stmt(bpfALU|bpfLSH|bpfK, 2)
		a.label(c)
		a.stmt(bpfALU|bpfADD|bpfX, 0) // A = X + length
		a.stmt(bpfMISC|bpfTAX, 0)
		a.stmt(bpfLD|bpfMEM, 0) // A = next header
	}
}

// tcp emits the port check for a TCP header at offset X.
func (a *assembler) tcp(port uint32) {
	a.label("tcp")
	a.stmt(bpfLD|bpfH|bpfIND, 0) // source port
	a.jeq(port, "match", "")
	a.stmt(bpfLD|bpfH|bpfIND, 2) // destination port
	a.jeq(port, "", "rejtcp")
	a.label("match")
	a.stmt(bpfLD|bpfB|bpfIND, 12) // data offset
	a.stmt(bpfALU|bpfRSH|bpfK, 2)
	a.stmt(bpfALU|bpfAND|bpfK, 0x3c) // header length in bytes
	a.jump(bpfJGE, 20, "", "rejtcp")
	// Load the last byte of the TCP header: a frame that ends before it
	// makes the load fail, which rejects the frame.
	a.stmt(bpfALU|bpfADD|bpfX, 0)
	a.stmt(bpfALU|bpfSUB|bpfK, 1)
	a.stmt(bpfMISC|bpfTAX, 0)
	a.stmt(bpfLD|bpfB|bpfIND, 0)
	a.ret(snapAll)
	a.label("rejtcp")
	a.ret(0)
}

// assembler lays out instructions with symbolic forward jumps.
type assembler struct {
	ins    []instruction
	labels map[string]int
	refs   []jumpRef
	srv6   bool // accept IPv6 packets with an SRH (buildFilterSRv6)
	// hostsOn: only packets to or from hosts4 (addresses as big-endian
	// words) or hosts6 (four words each) are accepted.
	hostsOn bool
	hosts4  []uint32
	hosts6  [][4]uint32
}

type jumpRef struct {
	at    int
	field byte // 't', 'f' (conditional) or 'k' (ja)
	label string
}

func (a *assembler) stmt(op uint16, k uint32) {
	a.ins = append(a.ins, instruction{Op: op, K: k})
}

func (a *assembler) ret(k uint32) { a.stmt(bpfRET|bpfK, k) }

func (a *assembler) label(name string) {
	if _, dup := a.labels[name]; dup {
		panic("capture: duplicate BPF label " + name)
	}
	a.labels[name] = len(a.ins)
}

// jump emits a conditional jump comparing A with k; an empty label means
// the next instruction.
func (a *assembler) jump(op uint16, k uint32, jt, jf string) {
	at := len(a.ins)
	a.ins = append(a.ins, instruction{Op: bpfJMP | op | bpfK, K: k})
	if jt != "" {
		a.refs = append(a.refs, jumpRef{at, 't', jt})
	}
	if jf != "" {
		a.refs = append(a.refs, jumpRef{at, 'f', jf})
	}
}

func (a *assembler) jeq(k uint32, jt, jf string) { a.jump(bpfJEQ, k, jt, jf) }

func (a *assembler) ja(label string) {
	a.refs = append(a.refs, jumpRef{len(a.ins), 'k', label})
	a.ins = append(a.ins, instruction{Op: bpfJMP | bpfJA})
}

// assemble resolves the jumps. Classic BPF only jumps forward, conditional
// jumps at most 255 instructions: the builder is laid out so that they stay
// local (far targets go through a ja), and a violation is a programming
// error caught by the tests.
func (a *assembler) assemble() []instruction {
	for _, r := range a.refs {
		to, ok := a.labels[r.label]
		if !ok {
			panic("capture: undefined BPF label " + r.label)
		}
		d := to - r.at - 1
		if d < 0 {
			panic("capture: backward BPF jump to " + r.label)
		}
		switch r.field {
		case 't', 'f':
			if d > 255 {
				panic(fmt.Sprintf("capture: BPF jump to %s too far (%d)", r.label, d))
			}
			if r.field == 't' {
				a.ins[r.at].Jt = uint8(d)
			} else {
				a.ins[r.at].Jf = uint8(d)
			}
		case 'k':
			a.ins[r.at].K = uint32(d)
		}
	}
	if len(a.ins) > 4096 { // BPF_MAXINSNS
		panic("capture: BPF program too long")
	}
	return a.ins
}

// Loads at SKF_NET_OFF + n read the packet from its network header, where
// the kernel has it on both the receive and the transmit path: a fanout
// program runs before the packet socket pushes the link-layer header back
// (received frames start at the IP header then, sent ones at the link-layer
// header), so absolute offsets would differ by direction.
const (
	skfNetOff = 0xfff00000 // SKF_NET_OFF, -0x100000
	bpfXOR    = 0xa0
)

// buildFanout returns the program that picks a ring of a fanout group
// (PACKET_FANOUT_CBPF; the kernel takes its result modulo the number of
// rings) for each frame: a hash of the IP source and destination
// addresses that is the same whichever way the packet goes (the XOR of
// the address words), so that both directions of an address pair land in
// one ring and the shadow checker reading that ring holds all of the
// pair's state (diagnosis, hysteresis, stale sessions). Ports are left
// out on purpose: a peer's new connections go where its old ones went.
// The 32-bit XOR is folded to 8 bits so that every address byte counts
// whatever the number of rings. Frames that are neither IPv4 nor IPv6 go
// to ring 0; the capture filter drops them anyway.
func buildFanout() []instruction {
	a := &assembler{labels: map[string]int{}}
	a.stmt(bpfLD|bpfB|bpfABS, skfNetOff)
	a.stmt(bpfALU|bpfRSH|bpfK, 4)
	a.jeq(4, "", "not4")
	a.stmt(bpfLD|bpfW|bpfABS, skfNetOff+12) // source
	a.stmt(bpfMISC|bpfTAX, 0)
	a.stmt(bpfLD|bpfW|bpfABS, skfNetOff+16) // destination
	a.stmt(bpfALU|bpfXOR|bpfX, 0)
	a.ja("fold")
	a.label("not4")
	a.jeq(6, "", "other")
	a.stmt(bpfLD|bpfW|bpfABS, skfNetOff+8) // source and destination: 8 words
	for off := uint32(12); off < 40; off += 4 {
		a.stmt(bpfMISC|bpfTAX, 0)
		a.stmt(bpfLD|bpfW|bpfABS, skfNetOff+off)
		a.stmt(bpfALU|bpfXOR|bpfX, 0)
	}
	a.label("fold")
	a.stmt(bpfMISC|bpfTAX, 0)
	a.stmt(bpfALU|bpfRSH|bpfK, 16)
	a.stmt(bpfALU|bpfXOR|bpfX, 0)
	a.stmt(bpfMISC|bpfTAX, 0)
	a.stmt(bpfALU|bpfRSH|bpfK, 8)
	a.stmt(bpfALU|bpfXOR|bpfX, 0)
	a.stmt(bpfALU|bpfAND|bpfK, 0xff)
	a.stmt(bpfRET|0x10, 0) // RET A
	a.label("other")
	a.ret(0)
	return a.assemble()
}
