package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/authbgp/authbgpd/status"
)

// captureLine says whether the shadow checker's capture runs.
func captureLine(c *status.Capture) string {
	switch {
	case c == nil:
		return "capture: off (no shadow checker)"
	case c.Mode == "on-demand" && len(c.OnDemand) > 0:
		var ps []string
		for _, d := range c.OnDemand {
			ps = append(ps, fmt.Sprintf("%s until %s (%d segments; %s)", d.Address, d.Until, d.Segments, oneLine(d.Why)))
		}
		return "capture: on demand: capturing " + strings.Join(ps, ", ")
	case c.Mode == "on-demand" && c.Error == "":
		return fmt.Sprintf("capture: on demand: no peer captured now (%d packets so far)", c.Packets)
	case c.Mode == "on-demand":
		return "capture: on demand: could not capture: " + oneLine(c.Error)
	case !c.Running:
		return "capture: not running: " + orDash(oneLine(c.Error))
	}
	on := "all interfaces"
	if len(c.Interfaces) > 0 {
		on = strings.Join(c.Interfaces, ",")
	}
	if c.Workers > 1 {
		on += fmt.Sprintf(" (%d workers)", c.Workers)
	}
	return fmt.Sprintf("capture: running on %s: %d packets, %d dropped, %d truncated", on, c.Packets, c.Drops, c.Truncated)
}

// diagnosis is the shadow's diagnosis with the peer's key id, and
// "no-capture" when no traffic was seen because nothing is captured.
func diagnosis(s *status.Shadow, c *status.Capture) string {
	d := orDash(s.Diagnosis)
	if d == "no-traffic" && c != nil && !c.Running {
		d = "no-capture"
	}
	if s.PeerKeyID != nil {
		d += "(" + strconv.Itoa(*s.PeerKeyID) + ")"
	}
	return d
}

func printShadow(w io.Writer, s *status.Shadow, c *status.Capture) {
	if s == nil {
		fmt.Fprintln(w, "  shadow: -")
		return
	}
	g := s.Segments
	if g.BadMAC != nil { // a TCP-AO peer
		fmt.Fprintf(w, "  shadow: diagnosis %s; received valid %d, bad-mac %d, missing %d, unknown-key %d, unexpected %d, no-handshake %d",
			diagnosis(s, c), g.Valid, *g.BadMAC, g.Missing, deref(g.UnknownKey), g.Unexpected, deref(g.NoHandshake))
	} else {
		fmt.Fprintf(w, "  shadow: diagnosis %s; received valid %d, bad-digest %d, missing %d, unexpected %d",
			diagnosis(s, c), g.Valid, g.BadDigest, g.Missing, g.Unexpected)
	}
	if t := s.Sent; t != nil {
		fmt.Fprintf(w, "; sent valid %d, invalid %d, unsigned %d", t.Valid, t.Invalid, t.Unsigned)
		if t.NoHandshake != nil {
			fmt.Fprintf(w, ", no-handshake %d", *t.NoHandshake)
		}
	}
	fmt.Fprintln(w)
	if len(s.KeyIDs) > 0 {
		fmt.Fprintf(w, "  TCP-AO KeyID/RNextKeyID received: %s\n", keyIDPairs(s.KeyIDs))
	}
	if c != nil && !c.Running {
		fmt.Fprintln(w, "  "+captureLine(c))
	}
	if len(s.History) == 0 {
		return
	}
	fmt.Fprintln(w, "  diagnosis history (oldest first):")
	for _, h := range s.History {
		fmt.Fprintf(w, "    %s  %s (%s)\n", h.At, orDash(h.Diagnosis), ago(h.At))
	}
}
