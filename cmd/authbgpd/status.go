package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/status"
)

// statusTimeout bounds the whole GET /status exchange.
const statusTimeout = 10 * time.Second

// healthTimeout bounds the whole GET /healthz exchange of --health (a
// container HEALTHCHECK must answer well within its own timeout).
const healthTimeout = 2 * time.Second

// cmdStatus prints what GET /status of a running daemon says, as tables or
// (--json) as served.
//
//	authbgpd status [--api ADDR | -f FILE] [--json] [PEER]
//	authbgpd status [--api ADDR | -f FILE] --health
//
// With PEER (an address or a dynamic range) it prints that peer in detail
// (--json: that peer's JSON object); an unknown PEER exits 1.
//
// --health GETs /healthz instead (within healthTimeout) and prints nothing
// when healthy: exit 0 on 200, 1 with the reason on stderr otherwise. It is
// the image's HEALTHCHECK, so the runtime image needs no HTTP client.
func cmdStatus(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	api := fs.String("api", "", "address of the daemon's HTTP API (default "+config.DefaultHTTP+")")
	file := fs.String("f", "", "take the API address from [api] http of this config file")
	asJSON := fs.Bool("json", false, "print the JSON document as served")
	health := fs.Bool("health", false, "GET /healthz (2 s timeout): exit 0 if healthy, 1 with the reason on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: authbgpd status [--api ADDR | -f FILE] [--json] [PEER]\n       authbgpd status [--api ADDR | -f FILE] --health")
		fs.PrintDefaults()
	}
	peer, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if !errors.Is(err, errUsage) {
			return 2
		}
		fs.Usage()
		return 2
	}
	if (*api != "" && *file != "") || (*health && (*asJSON || peer != "")) {
		fs.Usage()
		return 2
	}
	addr, rc := statusAddr(*api, *file, stderr)
	if rc != 0 {
		return rc
	}
	u, err := statusURL(addr)
	if err != nil {
		fmt.Fprintf(stderr, "authbgpd status: API address %q: %v\n", addr, err)
		return 2
	}
	if *health {
		return checkHealth(strings.TrimSuffix(u, "/status")+"/healthz", stderr)
	}
	body, err := fetchStatus(u)
	if err != nil {
		fmt.Fprintf(stderr, "authbgpd status: %v\n", err)
		return 1
	}
	if peer != "" {
		return printPeerOf(body, peer, *asJSON, stdout, stderr)
	}
	if *asJSON {
		stdout.Write(body)
		if len(body) > 0 && body[len(body)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
		return 0
	}
	var st status.Status
	if err := json.Unmarshal(body, &st); err != nil {
		fmt.Fprintf(stderr, "authbgpd status: %s: not a status document: %v\n", u, err)
		return 1
	}
	printStatus(stdout, &st)
	return 0
}

// statusAddr is the API address: api, or [api] http of the config file,
// or the default. rc is 1 (reason on stderr) when file does not give one.
func statusAddr(api, file string, stderr io.Writer) (addr string, rc int) {
	var cfg *config.Config
	if file != "" {
		if cfg = loadConfig(file, stderr); cfg == nil {
			return "", 1
		}
	}
	addr, code := apiAddr("status", api, cfg, file, stderr)
	return addr, max(code, 0)
}

// errUsage: more than one positional argument.
var errUsage = errors.New("usage")

// parseInterleaved parses fs's flags before and after the one optional
// positional argument (status PEER --json), and returns that argument.
func parseInterleaved(fs *flag.FlagSet, args []string) (string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) > 1 {
		return "", errUsage
	}
	if len(pos) == 1 {
		return pos[0], nil
	}
	return "", nil
}

// printPeerOf prints the peer named by arg of the /status document body:
// its JSON object with asJSON, its detail view otherwise. 1 when unknown.
func printPeerOf(body []byte, arg string, asJSON bool, stdout, stderr io.Writer) int {
	var st status.Status
	if err := json.Unmarshal(body, &st); err != nil {
		fmt.Fprintf(stderr, "authbgpd status: not a status document: %v\n", err)
		return 1
	}
	p, sessions := findPeer(&st, arg)
	if p == nil {
		fmt.Fprintf(stderr, "authbgpd status: no peer %q: not a configured peer, dynamic range or accepted session (see authbgpd status)\n", arg)
		return 1
	}
	if asJSON {
		out, _ := json.MarshalIndent(p, "", "  ")
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	printPeer(stdout, p, st.Capture, sessions)
	return 0
}

// findPeer returns the peer of st whose address is arg (a static peer or a
// session), or the dynamic range arg with the addresses of its sessions.
func findPeer(st *status.Status, arg string) (*status.Peer, []string) {
	norm := arg
	if a, err := netip.ParseAddr(arg); err == nil {
		norm = a.String()
	} else if pf, err := netip.ParsePrefix(arg); err == nil {
		norm = pf.Masked().String()
	}
	for i := range st.Peers {
		if p := &st.Peers[i]; p.Address == norm && (p.Prefix == "" || p.Prefix != p.Address) {
			return p, nil
		}
	}
	for i := range st.Peers {
		p := &st.Peers[i]
		if p.Prefix != norm || p.Address != norm {
			continue
		}
		var sess []string
		for _, q := range st.Peers {
			if q.Prefix == norm && q.Address != norm {
				sess = append(sess, q.Address)
			}
		}
		return p, sess
	}
	return nil, nil
}

// statusURL turns ADDR (host:port, :port, or an http:// URL) into the URL of
// /status. A wildcard listen address is reached on loopback.
func statusURL(addr string) (string, error) {
	if strings.HasPrefix(addr, "http://") || strings.HasPrefix(addr, "https://") {
		return strings.TrimSuffix(strings.TrimSuffix(addr, "/"), "/status") + "/status", nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("bad port %q", port)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/status", nil
}

// checkHealth GETs u (the /healthz URL) within healthTimeout: 0 on 200,
// 1 with the reason (the daemon's 503 text, or why it cannot be reached) on
// stderr.
func checkHealth(u string, stderr io.Writer) int {
	if _, err := fetch(u, healthTimeout); err != nil {
		fmt.Fprintf(stderr, "authbgpd status: unhealthy: %v\n", err)
		return 1
	}
	return 0
}

// fetchStatus GETs url and returns the body of a 200 answer.
func fetchStatus(u string) ([]byte, error) { return fetch(u, statusTimeout) }

// fetch GETs u within timeout and returns the body of a 200 answer.
func fetch(u string, timeout time.Duration) ([]byte, error) {
	client := &http.Client{Timeout: timeout}
	resp, err := client.Get(u)
	if err != nil {
		hint := "is the daemon running, with [api] http set to this address?"
		if errors.Is(err, syscall.ECONNREFUSED) {
			hint = "nothing listens there: is the daemon running, with [api] http set to this address?"
		}
		// Unwrap *url.Error: its text repeats the method and URL.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("cannot reach %s: %v (%s)", u, err, hint)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return nil, fmt.Errorf("%s: %s: %s", u, resp.Status, msg)
	}
	return body, nil
}

// statusNow is the clock "5m ago" is counted from (tests fix it).
var statusNow = time.Now

// printStatus writes the document as tables.
func printStatus(w io.Writer, st *status.Status) {
	fmt.Fprintf(w, "router-id %s  asn %d\n", orDash(st.RouterID), st.ASN)
	fmt.Fprintln(w, captureLine(st.Capture))
	if st.KernelDrops != nil {
		fmt.Fprintln(w, kernelDropsLine(st.KernelDrops))
	}
	table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, "PEER\tASN\tSTATE\tUP/DOWN\tRCVD\tACC\tSENT\tAUTH\tKEY\tINSTALLED\tDIAGNOSIS\tVALID\tBAD\tMISSING\tUNEXPECTED\tKERNEL-DROPS\tLAST-ERROR\tERROR")
		for _, p := range st.Peers {
			diag, valid, bad, missing, unexp := "-", "-", "-", "-", "-"
			if s := p.Shadow; s != nil {
				diag = diagnosis(s, st.Capture)
				valid = strconv.FormatUint(s.Segments.Valid, 10)
				bad = strconv.FormatUint(s.Segments.BadDigest+deref(s.Segments.BadMAC), 10)
				missing = strconv.FormatUint(s.Segments.Missing, 10)
				unexp = strconv.FormatUint(s.Segments.Unexpected, 10)
			}
			diag = withKernelDiagnosis(diag, p.KernelDrops)
			rcvd, acc, sent := prefixTotals(p.Families)
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
				peerName(p), p.ASN, orDash(p.State), upDown(p), rcvd, acc, sent, orDash(p.Auth.Mode),
				keyID(p.Auth.KeyID), installed(p.Auth), diag, valid, bad, missing, unexp, kernelDrops(p.KernelDrops),
				orDash(lastError(p)), oneLine(p.Auth.Error))
		}
	})
	printKernel(w, st.Kernel)
	printSRv6(w, st.SRv6)
}

func printSRv6(w io.Writer, s status.SRv6) {
	if len(s.HMACKeys) > 0 {
		table(w, func(tw io.Writer) {
			fmt.Fprintln(tw, "SRV6 HMAC KEY\tALGORITHM\tINSTALLED\tERROR")
			for _, k := range s.HMACKeys {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", k.ID, orDash(k.Algorithm), yesNo(k.Installed), oneLine(k.Error))
			}
		})
	}
	if len(s.Policies) > 0 {
		table(w, func(tw io.Writer) {
			fmt.Fprintln(tw, "SR POLICY\tADVERTISED\tINSTALLED\tREASON")
			for _, p := range s.Policies {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", orDash(p.Name), yesNo(p.Advertised), yesNo(p.Installed), oneLine(p.Reason))
			}
		})
	}
}

// kernelDropsLine says whether the kernel's per-peer drop verdicts are
// counted.
func kernelDropsLine(k *status.KernelDropsInfo) string {
	if !k.Available {
		return "kernel drop verdicts: unavailable: " + orDash(oneLine(k.Error))
	}
	return fmt.Sprintf("kernel drop verdicts: counting (%d tracepoints), %d from addresses of no peer", len(k.Tracepoints), k.Other)
}

// kernelDrops is a peer's kernel drops since start, summed ("-" when not
// counted).
func kernelDrops(k *status.KernelDrops) string {
	if k == nil {
		return "-"
	}
	n := k.BadDigest + k.Missing + k.Unexpected + k.BadOption + deref(k.AOBad) + deref(k.AOKeyNotFound) + deref(k.AORequired)
	return strconv.FormatUint(n, 10)
}

// withKernelDiagnosis is the shadow's diagnosis, or the kernel's verdict
// when the shadow has none to give (off, or no traffic captured).
func withKernelDiagnosis(diag string, k *status.KernelDrops) string {
	if k == nil || k.Diagnosis == "" {
		return diag
	}
	switch diag {
	case "-", "no-traffic", "no-capture":
		return k.Diagnosis + "(kernel)"
	}
	return diag
}

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

func keyID(id *int) string {
	if id == nil {
		return "-"
	}
	return strconv.Itoa(*id)
}

func installed(a status.Auth) string {
	switch {
	case a.Mode == "none" || a.Mode == "":
		return "-"
	}
	return yesNo(a.Installed)
}

// prefixTotals sums received, accepted and sent prefixes over families;
// "-" when GoBGP gave none.
func prefixTotals(fs []status.Family) (rcvd, acc, sent string) {
	if len(fs) == 0 {
		return "-", "-", "-"
	}
	var r, a, s uint64
	for _, f := range fs {
		r, a, s = r+f.Received, a+f.Accepted, s+f.Sent
	}
	return strconv.FormatUint(r, 10), strconv.FormatUint(a, 10), strconv.FormatUint(s, 10)
}

// lastError is the newer of the last NOTIFICATION and the last down
// reason, with how long ago: "received cease/peer deconfigured (6/3) 5m ago".
func lastError(p status.Peer) string {
	n, e := p.LastNotification, p.LastError
	switch {
	case n != nil && (e == nil || n.At >= e.At):
		return notifText(n) + " " + ago(n.At)
	case e != nil:
		return oneLine(e.Reason) + " " + ago(e.At)
	}
	return ""
}

// notifText is "received cease/peer deconfigured (6/3)".
func notifText(n *status.Notification) string {
	code, sub := names(n.Text)
	return fmt.Sprintf("%s %s/%s (%d/%d)", n.Direction, code, sub, n.Code, n.Subcode)
}

// names takes the code and subcode names out of GoBGP's text "code
// 6(cease) subcode 3(peer deconfigured)".
func names(text string) (code, sub string) {
	code, sub = "?", "?"
	c, rest, ok := strings.Cut(text, "(")
	if !ok || !strings.HasPrefix(c, "code") {
		return
	}
	code, rest, _ = strings.Cut(rest, ")")
	if _, s, ok := strings.Cut(rest, "("); ok {
		sub, _, _ = strings.Cut(s, ")")
	}
	return
}

// ago is how long before statusNow the RFC 3339 time at was: "5m12s ago";
// "at" itself when it does not parse.
func ago(at string) string {
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return "at " + orDash(at)
	}
	d := int64(statusNow().Sub(t).Seconds())
	if d < 0 {
		return "in " + humanDuration(-d)
	}
	return humanDuration(d) + " ago"
}

// printKernel writes a line for the kernel's own TCP-MD5 drops when they
// moved since the daemon started (they name no peer: the shadow checker
// does).
func printKernel(w io.Writer, k *status.Kernel) {
	if k == nil {
		return
	}
	if k.MD5DropsSinceStart != (status.Drops{}) {
		d, t := k.MD5DropsSinceStart, k.MD5Drops
		fmt.Fprintf(w, "kernel TCP-MD5 drops since start (all peers): missing %d, unexpected %d, bad_digest %d (since the namespace was made: %d, %d, %d)\n",
			d.Missing, d.Unexpected, d.BadDigest, t.Missing, t.Unexpected, t.BadDigest)
	}
	if a := k.AOSinceStart; a != nil && *a != (status.AOCounters{}) {
		fmt.Fprintf(w, "kernel TCP-AO since start (all peers): %s\n", aoCounts(*a))
	}
}

// aoCounts formats TCP-AO counters.
func aoCounts(a status.AOCounters) string {
	return fmt.Sprintf("good %d, bad %d, key_not_found %d, ao_required %d, dropped_icmp %d",
		a.Good, a.Bad, a.KeyNotFound, a.AORequired, a.DroppedICMP)
}

// table lays out one tabwriter table and writes it without trailing blanks.
func table(w io.Writer, rows func(io.Writer)) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	rows(tw)
	tw.Flush()
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
}

func peerName(p status.Peer) string {
	switch {
	case p.Address == "" && p.Prefix == "":
		return "-"
	case p.Address == "":
		return p.Prefix
	case p.Prefix != "" && p.Prefix != p.Address:
		return p.Address + " (" + p.Prefix + ")"
	}
	return p.Address
}

// upDown is how long the session has been Established, or (any other
// state) down; "-" when unknown.
func upDown(p status.Peer) string {
	switch {
	case p.State == "established" && p.UptimeSeconds >= 0:
		return humanDuration(p.UptimeSeconds)
	case p.DowntimeSeconds != nil && *p.DowntimeSeconds >= 0:
		return humanDuration(*p.DowntimeSeconds)
	}
	return "-"
}

// humanDuration writes seconds with the two largest units: 42s, 5m12s,
// 3h7m, 3d4h.
func humanDuration(s int64) string {
	const (
		minute = 60
		hour   = 60 * minute
		day    = 24 * hour
	)
	switch {
	case s < minute:
		return fmt.Sprintf("%ds", s)
	case s < hour:
		return fmt.Sprintf("%dm%ds", s/minute, s%minute)
	case s < day:
		return fmt.Sprintf("%dh%dm", s/hour, s%hour/minute)
	}
	return fmt.Sprintf("%dd%dh", s/day, s%day/hour)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps a free-text cell on its row: tabs and newlines would break
// the table.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

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
	printMessages(w, p.Messages)
	printAuth(w, p.Auth)
	printShadow(w, p.Shadow, c)
}

// lastErrorLines are the last down reason and NOTIFICATION, when known.
func lastErrorLines(p *status.Peer) string {
	var b strings.Builder
	if e := p.LastError; e != nil {
		fmt.Fprintf(&b, "  last error: %s at %s (%s)\n", oneLine(e.Reason), e.At, ago(e.At))
	}
	if n := p.LastNotification; n != nil {
		fmt.Fprintf(&b, "  last notification: %s at %s (%s)\n", notifText(n), n.At, ago(n.At))
	}
	return b.String()
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

// printAOAuth writes a TCP-AO peer's KeyIDs and kernel counters.
func printAOAuth(w io.Writer, a status.Auth) {
	fmt.Fprintf(w, "  tcp-ao: send id %s, recv id %s (our RNextKeyID), peer's RNextKeyID %s\n",
		keyID(a.SendID), keyID(a.RecvID), keyID(a.PeerRNextKeyID))
	if a.Kernel != nil {
		fmt.Fprintf(w, "  tcp-ao kernel counters (its sessions): %s\n", aoCounts(*a.Kernel))
	}
}
