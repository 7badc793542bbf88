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
}

// SRHFunc, when set, is shown every IPv6 packet that carries a Segment
// Routing Header (SRv6 HMAC verification).
type SRHFunc func(pkt *frame.TCP, data []byte)

// ReadCapture feeds every packet of a pcap or pcapng stream to c, with the
// packet's own timestamp (so keychain keys are judged at capture time).
// A file that cannot be read to its end is an error; segments that fail
// their checks are not (they are what the report is about).
func ReadCapture(r io.Reader, c *Checker, srh SRHFunc) (FileStats, error) {
	var st FileStats
	var tcp frame.TCP
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
