package main

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/authbgp/authbgpd/status"
)

// printPeer writes one peer in detail (authbgpd status PEER).
func printPeer(w io.Writer, p *status.Peer, c *status.Capture, sessions []string) {
	fmt.Fprintf(w, "peer %s  asn %d  state %s", peerName(*p), p.ASN, orDash(p.State))
	if d := upDown(*p); d != "-" && p.State == "established" {
		fmt.Fprintf(w, "  up %s", d)
	} else if d != "-" {
		fmt.Fprintf(w, "  down %s", d)
	}
	fmt.Fprintln(w)
	if p.Prefix != "" && p.Prefix == p.Address {
		fmt.Fprintf(w, "  sessions: %s\n", orDash(strings.Join(sessions, ", ")))
	}
	if p.LocalAddress != "" {
		fmt.Fprintf(w, "  local %s  remote port %d\n", net.JoinHostPort(p.LocalAddress, strconv.Itoa(int(p.LocalPort))), p.RemotePort)
	}
	if t := p.Timers; t != nil {
		neg := "not negotiated (no session)"
		if t.NegotiatedHoldTime > 0 || p.State == "established" {
			neg = fmt.Sprintf("negotiated hold %ds keepalive %ds", t.NegotiatedHoldTime, t.NegotiatedKeepalive)
		}
		fmt.Fprintf(w, "  timers: configured hold %ds keepalive %ds connect-retry %ds; %s\n",
			t.HoldTime, t.Keepalive, t.ConnectRetry, neg)
	}
	if s := lastErrorLines(p); s != "" {
		fmt.Fprint(w, s)
	}
	printFamilies(w, p.Families)
	if l := p.PrefixLimit; l != nil {
		fmt.Fprintln(w, prefixLimitLine(l))
	}
	printPolicy(w, p.Policy)
	printMessages(w, p.Messages)
	printAuth(w, p.Auth)
	printShadow(w, p.Shadow, c)
}

// lastErrorLines are the last down reason and NOTIFICATION, when known.
func lastErrorLines(p *status.Peer) string {
	var b strings.Builder
	if e := p.LastError; e != nil {
		fmt.Fprintf(&b, "  last error: %s at %s (%s)\n", oneLine(e.Reason), e.At, ago(e.At))
		if e.MaxPrefixes > 0 {
			fmt.Fprintf(&b, "    because of: more than max-prefixes %d prefixes in a family\n", e.MaxPrefixes)
		}
		if e.Malformed != "" {
			fmt.Fprintf(&b, "    because of: %s\n", oneLine(e.Malformed))
		}
	}
	if n := p.LastNotification; n != nil {
		fmt.Fprintf(&b, "  last notification: %s at %s (%s)\n", notifText(n), n.At, ago(n.At))
	}
	if m := p.Malformed; m != nil {
		fmt.Fprintf(&b, "  malformed: %d UPDATE(s), %d other message(s)%s; %s\n", m.Updates, m.Other, panics(m.Panics), handlings(m.ByHandling))
		l := m.Last
		fmt.Fprintf(&b, "    last: %s: %s (%s, %s) at %s (%s)\n", l.Message, oneLine(l.Reason), l.Handling, l.Text, l.At, ago(l.At))
		if l.Panic != "" {
			fmt.Fprintf(&b, "    panicked in %s (recovered: a GoBGP bug; only this session was reset)\n", l.Panic)
		}
	}
	return b.String()
}

// panics is ", N recovered panic(s)" when there were any.
func panics(n uint64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d recovered panic(s)", n)
}

// handlings is "session-reset 1, treat-as-withdraw 2" in a fixed order.
func handlings(by map[string]uint64) string {
	var parts []string
	for _, h := range []string{"session-reset", "treat-as-withdraw", "attribute-discard", "afi-safi-disable"} {
		if n := by[h]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", h, n))
		}
	}
	return strings.Join(parts, ", ")
}

func printFamilies(w io.Writer, fs []status.Family) {
	if len(fs) == 0 {
		return
	}
	table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, "  FAMILY\tNEGOTIATED\tRECEIVED\tACCEPTED\tSENT")
		for _, f := range fs {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\n", orDash(f.Name), yesNo(f.Negotiated), f.Received, f.Accepted, f.Sent)
		}
	})
}

func printMessages(w io.Writer, m *status.Messages) {
	if m == nil {
		return
	}
	table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, "  MESSAGES\tOPEN\tUPDATE\tNOTIFICATION\tKEEPALIVE\tREFRESH\tTOTAL")
		for _, r := range []struct {
			dir string
			c   status.MessageCounts
		}{{"sent", m.Sent}, {"received", m.Received}} {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%d\t%d\n", r.dir, r.c.Open, r.c.Update, r.c.Notification, r.c.Keepalive, r.c.Refresh, r.c.Total)
		}
	})
}

func printAuth(w io.Writer, a status.Auth) {
	if a.Mode != "md5" && a.Mode != "tcp-ao" {
		fmt.Fprintf(w, "  auth: %s\n", orDash(a.Mode))
		return
	}
	src := orDash(a.Source)
	if a.Keychain != "" {
		src += " " + a.Keychain
	}
	fmt.Fprintf(w, "  auth: %s from %s, key %s, installed %s, verified %s, error %s\n",
		a.Mode, src, keyID(a.KeyID), installed(a), orDash(a.Verified), orDash(oneLine(a.Error)))
	if a.DialError != "" {
		fmt.Fprintf(w, "  dial: refused before its SYN: %s\n", oneLine(a.DialError))
	}
	if a.Mode == "tcp-ao" {
		printAOAuth(w, a)
	}
	if a.Keychain == "" {
		return
	}
	next := "none scheduled"
	if a.NextKeyID != nil {
		next = fmt.Sprintf("%d at %s (%s)", *a.NextKeyID, a.NextKeyAt, ago(a.NextKeyAt))
	}
	fmt.Fprintf(w, "  keychain %s: active key %s, next key %s\n", a.Keychain, keyID(a.KeyID), next)
}

// printAOAuth writes a TCP-AO peer's KeyIDs and kernel counters.
func printAOAuth(w io.Writer, a status.Auth) {
	fmt.Fprintf(w, "  tcp-ao: send id %s, recv id %s (our RNextKeyID), peer's RNextKeyID %s\n",
		keyID(a.SendID), keyID(a.RecvID), keyID(a.PeerRNextKeyID))
	if a.Kernel != nil {
		fmt.Fprintf(w, "  tcp-ao kernel counters (its sessions): %s\n", aoCounts(*a.Kernel))
	}
}

// prefixLimitLine is a peer's prefix limit and how often it was exceeded.
func prefixLimitLine(l *status.PrefixLimit) string {
	s := "  max-prefixes: none"
	if l.MaxPrefixes > 0 {
		s = fmt.Sprintf("  max-prefixes: %d per family", l.MaxPrefixes)
		if l.WarningPct > 0 {
			s += fmt.Sprintf(", warning at %d%%", l.WarningPct)
		}
	}
	return s + fmt.Sprintf("; exceeded %d time(s) since start", l.Exceeded)
}

// printPolicy writes the peer's policies (the config's names) and defaults.
func printPolicy(w io.Writer, p *status.RoutingPolicy) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "  import policy: %s, then %s\n", orDash(strings.Join(p.Import, ", ")), p.DefaultImport)
	fmt.Fprintf(w, "  export policy: %s, then %s\n", orDash(strings.Join(p.Export, ", ")), p.DefaultExport)
}
