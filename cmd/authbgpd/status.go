package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/status"
)

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
// arg may name the VRF as a peer's ID does ("blue/192.0.2.2"); without
// one, the first peer of the address in any VRF (the default VRF's first).
func findPeer(st *status.Status, arg string) (*status.Peer, []string) {
	vrf, name := config.SplitScopedID(arg)
	anyVRF := vrf == ""
	norm := name
	if a, err := netip.ParseAddr(name); err == nil {
		norm = a.String()
	} else if pf, err := netip.ParsePrefix(name); err == nil {
		norm = pf.Masked().String()
	}
	in := func(p *status.Peer) bool { return anyVRF || p.VRF == vrf }
	for i := range st.Peers {
		if p := &st.Peers[i]; (p.Address == norm && in(p) || p.Interface != "" && p.Interface == arg) && (p.Prefix == "" || p.Prefix != p.Address) {
			return p, nil
		}
	}
	for i := range st.Peers {
		p := &st.Peers[i]
		if p.Prefix != norm || p.Address != norm || !in(p) {
			continue
		}
		var sess []string
		for _, q := range st.Peers {
			if q.Prefix == norm && q.Address != norm && q.VRF == p.VRF {
				sess = append(sess, q.Address)
			}
		}
		return p, sess
	}
	return nil, nil
}
