package shadow

import (
	"errors"
	"fmt"
	"io"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
)

// FileStats counts what reading a capture file met.
type FileStats struct {
	Packets   uint64 `json:"packets"`   // records read
	TCP       uint64 `json:"tcp"`       // decoded to a TCP segment
	Checked   uint64 `json:"checked"`   // BGP segments of configured peers
	Undecoded uint64 `json:"undecoded"` // not IP/TCP, fragments, unknown link types
	// Link-local BGP segments whose interface the capture does not say
	// (a plain pcap; an SLL2 index Offline.IfNames does not name), with
	// interface peers configured; of those, given to the only interface
	// peer (assumed), to the one whose TCP-MD5 key verified their
	// connection (by key), or to none (unattributed).
	LinkLocalNoInterface  uint64 `json:"link_local_no_interface,omitempty"`
	LinkLocalAssumed      uint64 `json:"link_local_assumed,omitempty"`
	LinkLocalByKey        uint64 `json:"link_local_by_key,omitempty"`
	LinkLocalUnattributed uint64 `json:"link_local_unattributed,omitempty"`
	// LinkLocalUnknownEnd counts segments between two link-local
	// addresses of an interface peer's link whose direction the capture
	// does not say and neither of whose ends is known to be ours
	// (Offline.Local): not checked.
	LinkLocalUnknownEnd uint64 `json:"link_local_unknown_end,omitempty"`
}

// SRHFunc, when set, is shown every IPv6 packet that carries a Segment
// Routing Header (SRv6 HMAC verification).
type SRHFunc func(pkt *frame.TCP, data []byte)

// ReadCapture feeds every packet of a pcap or pcapng stream to c, with the
// packet's own timestamp (so keychain keys are judged at capture time).
// A file that cannot be read to its end is an error; segments that fail
// their checks are not (they are what the report is about).
//
// Link-local addresses are zoned with their interface as far as the file
// says it (see llZoner); an Ethernet capture says neither interface nor
// direction.
func ReadCapture(r io.Reader, c *Checker, srh SRHFunc) (FileStats, error) {
	var st FileStats
	var tcp frame.TCP
	ll := newLLZoner(c, nil, nil)
	err := capfile.Each(r, func(pkt capfile.Packet) error {
		st.Packets++
		derr := frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp)
		if srh != nil && tcp.SRH != nil && (derr == nil || errors.Is(derr, frame.ErrNotTCP)) {
			srh(&tcp, pkt.Data)
		}
		if derr != nil {
			st.Undecoded++
			return nil
		}
		st.TCP++
		ll.zone(&pkt, &tcp, &st)
		if res := c.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, pkt.Time); res.PeerID != "" {
			st.Checked++
		}
		return nil
	})
	if err != nil && st.Packets > 0 {
		return st, fmt.Errorf("shadow: after %d packets: %w", st.Packets, err)
	}
	return st, err
}
