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
//	authbgpd status [--api ADDR | -f FILE] [--json]
//	authbgpd status [--api ADDR | -f FILE] --health
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
		fmt.Fprintln(stderr, "usage: authbgpd status [--api ADDR | -f FILE] [--json | --health]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 || (*api != "" && *file != "") || (*health && *asJSON) {
		fs.Usage()
		return 2
	}
	addr := *api
	if *file != "" {
		cfg, err := config.Load(*file)
		if err != nil {
			for _, e := range config.Errors(err) {
				fmt.Fprintln(stderr, e.Error())
			}
			return 1
		}
		if cfg.API.HTTP == "" {
			fmt.Fprintf(stderr, "authbgpd status: %s:%d: [api] http is off (\"\"); the daemon serves no status\n",
				*file, cfg.API.LineOf("http"))
			return 1
		}
		addr = cfg.API.HTTP
	}
	if addr == "" {
		addr = config.DefaultHTTP
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

// printStatus writes the document as tables.
func printStatus(w io.Writer, st *status.Status) {
	fmt.Fprintf(w, "router-id %s  asn %d\n", orDash(st.RouterID), st.ASN)

	table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, "PEER\tASN\tSTATE\tUPTIME\tAUTH\tKEY\tINSTALLED\tDIAGNOSIS\tVALID\tBAD\tMISSING\tUNEXPECTED\tERROR")
		for _, p := range st.Peers {
			diag, valid, bad, missing, unexp := "-", "-", "-", "-", "-"
			if s := p.Shadow; s != nil {
				diag = orDash(s.Diagnosis)
				if s.PeerKeyID != nil {
					diag += "(" + strconv.Itoa(*s.PeerKeyID) + ")"
				}
				valid = strconv.FormatUint(s.Segments.Valid, 10)
				bad = strconv.FormatUint(s.Segments.BadDigest, 10)
				missing = strconv.FormatUint(s.Segments.Missing, 10)
				unexp = strconv.FormatUint(s.Segments.Unexpected, 10)
			}
			key := "-"
			if p.Auth.KeyID != nil {
				key = strconv.Itoa(*p.Auth.KeyID)
			}
			installed := yesNo(p.Auth.Installed)
			if p.Auth.Pending {
				installed = "pending"
			}
			if p.Auth.Mode == "none" || p.Auth.Mode == "" {
				installed = "-"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
				peerName(p), p.ASN, orDash(p.State), uptime(p), orDash(p.Auth.Mode), key, installed,
				diag, valid, bad, missing, unexp, oneLine(p.Auth.Error))
		}
	})

	printKernel(w, st.Kernel)
	if len(st.SRv6.HMACKeys) > 0 {
		table(w, func(tw io.Writer) {
			fmt.Fprintln(tw, "SRV6 HMAC KEY\tALGORITHM\tINSTALLED\tERROR")
			for _, k := range st.SRv6.HMACKeys {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", k.ID, orDash(k.Algorithm), yesNo(k.Installed), oneLine(k.Error))
			}
		})
	}
	if len(st.SRv6.Policies) > 0 {
		table(w, func(tw io.Writer) {
			fmt.Fprintln(tw, "SR POLICY\tADVERTISED\tINSTALLED\tREASON")
			for _, p := range st.SRv6.Policies {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", orDash(p.Name), yesNo(p.Advertised), yesNo(p.Installed), oneLine(p.Reason))
			}
		})
	}
}

// printKernel writes a line for the kernel's own TCP-MD5 drops when they
// moved since the daemon started (they name no peer: the shadow checker
// does).
func printKernel(w io.Writer, k *status.Kernel) {
	if k == nil || k.MD5DropsSinceStart == (status.Drops{}) {
		return
	}
	d, t := k.MD5DropsSinceStart, k.MD5Drops
	fmt.Fprintf(w, "kernel TCP-MD5 drops since start (all peers): missing %d, unexpected %d, bad_digest %d (since the namespace was made: %d, %d, %d)\n",
		d.Missing, d.Unexpected, d.BadDigest, t.Missing, t.Unexpected, t.BadDigest)
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

// uptime is the humanised uptime of an Established session, "-" otherwise.
func uptime(p status.Peer) string {
	if p.UptimeSeconds <= 0 && p.State != "established" || p.UptimeSeconds < 0 {
		return "-"
	}
	return humanDuration(p.UptimeSeconds)
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
