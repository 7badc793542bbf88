package shadow

import (
	"net/netip"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/md5auth"
)

// Interface peers in capture files. The live capture knows the interface
// and the direction of every frame; a file may say them or not:
//   - the interface: a pcapng interface block's if_name; a Linux cooked v2
//     (SLL2) header's interface index, a name only when Offline.IfNames
//     has it (a capture of "any" in pcapng names the interface "any", and
//     its SLL2 headers the real one); nothing in a plain pcap of Ethernet
//     or raw IP;
//   - the direction: a pcapng epb_flags, or a cooked (SLL, SLL2) header's
//     packet type; else an address known to be ours (Offline.Local, or
//     learnt from a packet whose direction the file gave).
//
// A link-local segment whose interface the file does not say is given to
// the interface peer only when that cannot be wrong for the reason shown:
// the config has one interface peer (counted as assumed: the report says
// so), or, with several, exactly one of their TCP-MD5 keys verifies the
// segment. Otherwise it is counted unattributed, never given to some
// peer: with several interface peers, such a capture shows only the
// segments that verify. Without a direction,
// both link-local ends are zoned, and the checker does not attribute a
// segment between two addresses of one interface peer (which end is
// ours?): counted as unknown end.

// llZoner zones the link-local addresses of the BGP segments read from
// capture files (see above). Not safe for concurrent use.
type llZoner struct {
	port   uint16
	ifaces []*Peer          // the interface peers (candidates)
	byName map[string]*Peer // the same, by interface
	names  map[int]string   // interface index -> name (Offline.IfNames)
	local  map[netip.Addr]bool
	z      zoner
	d      *md5auth.Digester
}

func newLLZoner(c *Checker, names map[int]string, local []netip.Addr) *llZoner {
	l := &llZoner{port: c.opts.Port, byName: map[string]*Peer{}, names: names, local: map[netip.Addr]bool{},
		d: md5auth.NewDigester()}
	c.mu.Lock()
	for _, p := range c.peers {
		if _, dup := l.byName[p.Interface]; p.Interface != "" && !dup {
			l.ifaces = append(l.ifaces, p)
			l.byName[p.Interface] = p
		}
	}
	c.mu.Unlock()
	for _, a := range local {
		l.local[a.Unmap().WithZone("")] = true
	}
	return l
}

// zone gives the link-local ends of tcp (a BGP segment of packet p) the
// interface p was seen on, as far as the file tells (counting in st what
// it could not tell). It reports whether it changed tcp's addresses.
func (l *llZoner) zone(p *capfile.Packet, tcp *frame.TCP, st *FileStats) bool {
	srcLL, dstLL := IsLinkLocal(tcp.Src), IsLinkLocal(tcp.Dst)
	if !srcLL && !dstLL || tcp.SrcPort != l.port && tcp.DstPort != l.port {
		return false
	}
	ifindex, pktType, cooked := frame.CookedHeader(p.LinkType, p.Data)
	name := p.InterfaceName
	if cooked && ifindex > 0 && (name == "" || name == "any") {
		name = l.names[ifindex] // "" when not given: the index names no interface we know
	}
	dir := p.Direction
	if dir == capfile.DirUnknown && cooked {
		switch pktType {
		case frame.PacketOutgoing:
			dir = capfile.DirOutbound
		case frame.PacketHost, 1, 2: // to us, broadcast, multicast
			dir = capfile.DirInbound
		}
	}
	src, dst := tcp.Src.WithZone(""), tcp.Dst.WithZone("")
	switch dir { // learn our end
	case capfile.DirOutbound:
		l.learn(src)
	case capfile.DirInbound:
		l.learn(dst)
	}
	if name == "" {
		if len(l.ifaces) == 0 {
			return false // no interface peers: addresses alone decide
		}
		st.LinkLocalNoInterface++
		switch name = l.guess(src, dst, tcp); {
		case name == "":
			st.LinkLocalUnattributed++
			return false
		case len(l.ifaces) == 1:
			st.LinkLocalAssumed++
		default:
			st.LinkLocalByKey++
		}
	}
	zoneSrc, zoneDst := srcLL, dstLL
	switch {
	case dir == capfile.DirInbound || l.local[dst]:
		zoneDst = false
	case dir == capfile.DirOutbound || l.local[src]:
		zoneSrc = false
	default:
		if srcLL && dstLL && l.byName[name] != nil {
			st.LinkLocalUnknownEnd++
		}
	}
	if zoneSrc {
		tcp.Src = l.z.zone(src, name)
	}
	if zoneDst {
		tcp.Dst = l.z.zone(dst, name)
	}
	return zoneSrc || zoneDst
}

// learn records a as one of our addresses, if link-local (bounded: a
// capture of a link holds few).
func (l *llZoner) learn(a netip.Addr) {
	if IsLinkLocal(a) && !l.local[a] && len(l.local) < 1024 {
		l.local[a] = true
	}
}

// guess is the interface of a link-local segment whose capture does not
// say it: the only interface peer's, or the one interface peer's whose
// TCP-MD5 key verifies the segment; "" when neither holds. (Not the
// connection's: two links may carry connections with the same ends, and a
// segment that verifies with no key may be either's.)
func (l *llZoner) guess(src, dst netip.Addr, tcp *frame.TCP) string {
	if len(l.ifaces) == 1 {
		return l.ifaces[0].Interface
	}
	sig, err := md5auth.SignatureOf(tcp.Segment)
	if err != nil || sig == nil {
		return ""
	}
	ph, err := md5auth.NewPseudoHeader(src, dst)
	if err != nil {
		return ""
	}
	found := ""
	for _, p := range l.ifaces {
		if p.TCPAO {
			continue // its MACs need the connection's handshake
		}
		for _, key := range p.Keys {
			if v, err := l.d.CheckSignaturePrepared(&ph, tcp.Segment, sig, key.Secret); err == nil && v == md5auth.Valid {
				if found != "" && found != p.Interface {
					return "" // two peers share the key: it tells nothing
				}
				found = p.Interface
				break
			}
		}
	}
	return found
}
