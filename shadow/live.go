package shadow

// The live path of a Runner's worker: its ring's frames, decoded, their
// link-local ends zoned with the interface, into its checker.

import (
	"errors"
	"time"

	"github.com/authbgp/authbgpd/capture"
	"github.com/authbgp/authbgpd/frame"
)

// loop reads one worker's ring into its checker until Close.
func (s *Runner) loop(c *capture.Capture, chk *Checker) {
	w := &worker{names: ifNames{resolve: c.InterfaceName}}
	handle := func(pkt capture.Packet) { s.handle(chk, w, pkt) }
	lastStats := time.Now()
	for {
		// The checker's lock is taken once per ring block.
		err := c.NextBatch(handle, chk)
		if errors.Is(err, capture.ErrClosed) {
			return
		}
		if err != nil {
			s.err.Store(err.Error())
			s.log.WithError(err).Error("shadow capture failed")
			return
		}
		if time.Since(lastStats) > time.Second {
			s.pollStats()
			lastStats = time.Now()
		}
	}
}

// worker is one capture loop's scratch: the decoded frame, and the
// interface names and zoned addresses of link-local peers' segments.
type worker struct {
	tcp   frame.TCP
	z     zoner
	names ifNames
}

// handle decodes one captured frame and hands its segment to chk, between
// chk.Begin and chk.End; SRv6 packets go to the SRH checker. A link-local
// remote end (the source of a received frame, the destination of one we
// send) is zoned with the name of the interface the frame was seen on, so
// the checker tells interface peers apart (see Checker.Check); an index
// that does not resolve leaves it unzoned: looked up by address only, never
// given to an interface peer.
func (s *Runner) handle(chk *Checker, w *worker, pkt capture.Packet) {
	if pkt.Truncated {
		s.truncated.Add(1)
		return
	}
	tcp := &w.tcp
	err := frame.DecodeTCP(pkt.LinkType, pkt.Data, tcp)
	if s.od != nil {
		// On demand: only the segments of the addresses being
		// captured, up to their bound (the kernel filter narrows the
		// capture to them, admit also counts and bounds them).
		if err != nil || !s.od.admit(tcp.Src, tcp.Dst) {
			return
		}
	} else if tcp.SRH != nil && (err == nil || errors.Is(err, frame.ErrNotTCP)) {
		s.srhMu.Lock()
		s.srh.Check(tcp.Src, tcp.SRH, pkt.Outgoing)
		s.srhMu.Unlock()
	}
	if err != nil {
		return
	}
	remote := &tcp.Src
	if pkt.Outgoing {
		remote = &tcp.Dst
	}
	if IsLinkLocal(*remote) {
		*remote = w.z.zone(*remote, w.names.name(pkt.IfIndex, pkt.Time))
	}
	chk.CheckHeld(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, pkt.Time)
}
