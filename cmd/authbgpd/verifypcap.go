package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/shadow"
	"github.com/authbgp/authbgpd/srv6"
	"github.com/authbgp/authbgpd/srv6policy"
	"github.com/authbgp/authbgpd/status"
)

// pcapPeer is one entry of verify-pcap's report: the /status peer shape.
type pcapPeer struct {
	Address string `json:"address"` // a link-local one with its interface as zone: fe80::2%eth1
	Peer    string `json:"peer"`    // the configured peer (address, range or interface)
	// Interface and VRF are the configured peer's, where set.
	Interface string         `json:"interface,omitempty"`
	VRF       string         `json:"vrf,omitempty"`
	Shadow    *status.Shadow `json:"shadow"`
}

// pcapReport is verify-pcap's report. SRH counts the verdicts of the SRH
// HMACs in the captures, checked with the config's [[srv6.hmac-keys]].
type pcapReport struct {
	Files []pcapFile     `json:"files"`
	Peers []pcapPeer     `json:"peers"`
	SRH   srv6.SRHCounts `json:"srh"`
}

type pcapFile struct {
	Name  string           `json:"name"`
	Stats shadow.FileStats `json:"stats"`
}

var verifyPcapCommand = &command{
	name: "verify-pcap", synopsis: "-f FILE [--json] [--port N] [--fail-on DIAG[,DIAG]] [--local-address ADDR[,ADDR]] [--if-name INDEX=NAME[,...]]", args: "CAPTURE...",
	summary: "check TCP-MD5 and TCP-AO signatures in pcap/pcapng files",
	detail: `Verifies every TCP-MD5 signature and TCP-AO MAC of the configured peers' BGP
segments in the captures with the keys of FILE, and prints a line per file and
a table of peers with their diagnosis:
  ` + diagnosisCodes() + `.
TCP-AO connections are checked from their handshake: one that began before
the capture is no-handshake. Exit 0 (the report is the answer),
1 when a capture is unreadable or, with --fail-on, when a peer has one of the
listed diagnoses ("any": anything but ok): a CI gate. 2: bad usage.

Interface (unnumbered) peers are told apart by the interface their link-local
segments were captured on: pcapng captures name it (if_name), Linux cooked v2
(SLL2, tcpdump -i any) headers give its index (--if-name 3=eth1 names it). A
capture that does not say it (a plain pcap of one interface) has its link-local
segments given to the only interface peer (said so), or, with several, to the
one whose TCP-MD5 key verifies them; the others are counted, not guessed. Which
end is ours comes from the capture (pcapng epb_flags, SLL/SLL2 packet type) or
from --local-address (and the peers' local-address).`,
	flags: func(fs *flag.FlagSet) { verifyPcapFlags(fs) },
}

// diagnosisCodes lists the diagnoses a peer can get, from shadow's table:
// "ok, wrong-mechanism;", "TCP-MD5: bad-digest, ...;", "TCP-AO: ...", a
// line each.
func diagnosisCodes() string {
	var parts []string
	for _, mech := range []string{"", "tcp-md5", "tcp-ao"} {
		var codes []string
		for _, d := range shadow.Diagnoses {
			if d.Mechanism == mech && d.Code != shadow.DiagNoTraffic {
				codes = append(codes, d.Code)
			}
		}
		if mech != "" {
			codes[0] = strings.ToUpper(mech) + ": " + codes[0]
		}
		parts = append(parts, strings.Join(codes, ", "))
	}
	return strings.Join(parts, ";\n  ")
}

type verifyPcapFlagValues struct {
	file, failOn   *string
	asJSON         *bool
	port           *uint
	local, ifNames *string
}

func verifyPcapFlags(fs *flag.FlagSet) verifyPcapFlagValues {
	return verifyPcapFlagValues{
		file:    fs.String("f", "", "config file (TOML) whose peers and keys to check with"),
		asJSON:  fs.Bool("json", false, "print the report as JSON"),
		port:    fs.Uint("port", 179, "the BGP port of the captured sessions (segments to or from it are checked)"),
		failOn:  fs.String("fail-on", "", "exit 1 if a peer's diagnosis is one of these (comma-separated; \"any\": not ok)"),
		local:   fs.String("local-address", "", "our link-local addresses (comma-separated): their end of a segment is not the peer's, for captures that do not record the direction"),
		ifNames: fs.String("if-name", "", "names of the interface indexes of SLL2 captures, as INDEX=NAME (comma-separated)"),
	}
}

// failDiagnoses are the names --fail-on takes: the failures of
// shadow.Diagnoses, and "any".
var failDiagnoses = append(shadow.FailureCodes(), "any")

// parseFailOn parses --fail-on into a set of diagnoses.
func parseFailOn(s string) (map[string]bool, error) {
	set := map[string]bool{}
	if s == "" {
		return set, nil
	}
	for _, d := range strings.Split(s, ",") {
		d = strings.TrimSpace(d)
		if !slices.Contains(failDiagnoses, d) {
			return nil, fmt.Errorf("--fail-on: unknown diagnosis %q (want %s)", d, strings.Join(failDiagnoses, ", "))
		}
		set[d] = true
	}
	return set, nil
}

// failingPeers lists the peers whose diagnosis is in set.
func failingPeers(rep pcapReport, set map[string]bool) []string {
	var out []string
	for _, p := range rep.Peers {
		if d := p.Shadow.Diagnosis; set[d] || (set["any"] && d != shadow.DiagOK) {
			out = append(out, p.Address+" "+d)
		}
	}
	return out
}

// cmdVerifyPcap checks every TCP-MD5 signature in capture files with the
// keys of a config. Failing segments are the report (exit 0, or 1 with
// --fail-on); an unreadable or truncated capture is an error (exit 1).
func cmdVerifyPcap(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify-pcap", stderr)
	fl := verifyPcapFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	file, asJSON, port := fl.file, fl.asJSON, fl.port
	failOn, err := parseFailOn(*fl.failOn)
	if err != nil {
		fmt.Fprintf(stderr, "authbgpd verify-pcap: %v\n", err)
		return 2
	}
	if *file == "" || fs.NArg() == 0 || *port == 0 || *port > 65535 {
		fmt.Fprintln(stderr, "usage: "+verifyPcapCommand.usageLine())
		return 2
	}
	local, ifNames, err := parseInterfaceFlags(*fl.local, *fl.ifNames)
	if err != nil {
		fmt.Fprintf(stderr, "authbgpd verify-pcap: %v\n", err)
		return 2
	}
	cfg := loadConfig(*file, stderr)
	if cfg == nil {
		return 1
	}
	for _, p := range cfg.Peers {
		if p.LocalAddress.IsValid() {
			local = append(local, p.LocalAddress)
		}
	}
	rep := pcapReport{Files: []pcapFile{}, Peers: []pcapPeer{}}
	keys, kerrs := srv6.SRHKeys(cfg)
	for _, err := range kerrs {
		fmt.Fprintf(stderr, "authbgpd verify-pcap: %v\n", err)
	}
	// Offline: no hysteresis delay matters, but keep the live rules so the
	// diagnosis means the same; no idle timeout (captures are history).
	// The digests are verified on every core.
	off := shadow.Offline{
		Peers:   shadow.PeersOf(peerindex.New(cfg)),
		Options: shadow.Options{Port: uint16(*port), IdleAfter: -1},
		SRH:     func(pkt *frame.TCP, _ []byte) { rep.SRH.Add(srv6policy.VerifySRH(keys, pkt.Src, pkt.SRH)) },
		IfNames: ifNames,
		Local:   local,
	}
	stats, reports, err := off.Run(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "authbgpd verify-pcap: %v\n", err)
		return 1
	}
	for i, st := range stats {
		rep.Files = append(rep.Files, pcapFile{Name: fs.Arg(i), Stats: st})
	}
	for _, r := range reports {
		rep.Peers = append(rep.Peers, pcapPeer{Address: r.Address.String(), Peer: r.PeerID, Interface: r.Interface, VRF: r.VRF, Shadow: shadow.StatusOf(r)})
	}
	for i, st := range stats {
		for _, n := range interfaceNotes(st) {
			fmt.Fprintf(stderr, "authbgpd verify-pcap: %s: %s\n", fs.Arg(i), n)
		}
	}
	code := 0
	if *asJSON {
		code = printPcapJSON(rep, stdout, stderr)
	} else {
		printPcapReport(rep, stdout)
	}
	if bad := failingPeers(rep, failOn); len(bad) > 0 {
		fmt.Fprintf(stderr, "authbgpd verify-pcap: --fail-on %s: %s\n", *fl.failOn, strings.Join(bad, ", "))
		return 1
	}
	return code
}

// parseInterfaceFlags parses --local-address and --if-name.
func parseInterfaceFlags(localFlag, namesFlag string) ([]netip.Addr, map[int]string, error) {
	var local []netip.Addr
	for _, a := range strings.Split(localFlag, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		ad, err := netip.ParseAddr(a)
		if err != nil {
			return nil, nil, fmt.Errorf("--local-address: %v", err)
		}
		local = append(local, ad)
	}
	names := map[int]string{}
	for _, kv := range strings.Split(namesFlag, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		idx, err := strconv.Atoi(k)
		if !ok || err != nil || idx <= 0 || v == "" || strings.ContainsAny(v, "/: %") {
			return nil, nil, fmt.Errorf("--if-name: %q is not INDEX=NAME (an interface index and its name)", kv)
		}
		names[idx] = v
	}
	return local, names, nil
}

// interfaceNotes says what a capture could not tell of its link-local
// segments (see shadow.FileStats), so a report never misleads silently.
func interfaceNotes(st shadow.FileStats) []string {
	var out []string
	if n := st.LinkLocalNoInterface; n > 0 {
		out = append(out, fmt.Sprintf("%d link-local BGP segments without an interface: the capture does not say which interface it saw them on (pcapng and SLL2 captures carry it; --if-name names SLL2 indexes)", n))
	}
	if n := st.LinkLocalAssumed; n > 0 {
		out = append(out, fmt.Sprintf("%d of them given to the only interface peer, assumed to be the capture's interface", n))
	}
	if n := st.LinkLocalByKey; n > 0 {
		out = append(out, fmt.Sprintf("%d of them given to the interface peer whose TCP-MD5 key verifies them", n))
	}
	if n := st.LinkLocalUnattributed; n > 0 {
		out = append(out, fmt.Sprintf("%d of them not checked: link-local segments to peers on several interfaces, and no one interface peer's key verifies them: cannot tell which interface (or peer) they belong to", n))
	}
	if n := st.LinkLocalUnknownEnd; n > 0 {
		out = append(out, fmt.Sprintf("%d link-local BGP segments not checked: the capture does not record their direction, so which end is ours is unknown; name our link-local address with --local-address", n))
	}
	return out
}

func printPcapJSON(rep pcapReport, stdout, stderr io.Writer) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		fmt.Fprintln(stderr, "authbgpd verify-pcap:", err)
		return 1
	}
	return 0
}

// printPcapReport prints rep as a line per file and a table of peers.
func printPcapReport(rep pcapReport, stdout io.Writer) {
	for _, f := range rep.Files {
		fmt.Fprintf(stdout, "%s: %d packets, %d TCP, %d BGP segments of configured peers checked\n", f.Name, f.Stats.Packets, f.Stats.TCP, f.Stats.Checked)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	// BAD is bad_digest for TCP-MD5 peers, bad_mac for TCP-AO ones; the
	// TCP-AO columns come last ("-" for TCP-MD5 peers).
	fmt.Fprintln(tw, "PEER\tCONFIGURED\tDIAGNOSIS\tVALID\tBAD\tMISSING\tUNEXPECTED\tSENT-VALID\tSENT-INVALID\tSENT-UNSIGNED\tUNKNOWN-KEY\tNO-HANDSHAKE")
	for _, p := range rep.Peers {
		d := p.Shadow.Diagnosis
		if p.Shadow.PeerKeyID != nil {
			d = fmt.Sprintf("%s(%d)", d, *p.Shadow.PeerKeyID)
		}
		s := p.Shadow.Segments
		unknown, noHS := "-", "-"
		if s.UnknownKey != nil {
			unknown = fmt.Sprint(*s.UnknownKey)
		}
		if s.NoHandshake != nil {
			noHS = fmt.Sprint(*s.NoHandshake)
		}
		peer := p.Peer
		if p.VRF != "" {
			peer += " (vrf " + p.VRF + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", p.Address, peer, d, s.Valid, s.BadDigest+deref(s.BadMAC), s.Missing, s.Unexpected,
			p.Shadow.Sent.Valid, p.Shadow.Sent.Invalid, p.Shadow.Sent.Unsigned, unknown, noHS)
	}
	tw.Flush()
	if len(rep.Peers) == 0 {
		fmt.Fprintln(stdout, "no BGP segments of configured peers in the capture")
	}
	for _, p := range rep.Peers {
		if len(p.Shadow.KeyIDs) > 0 {
			fmt.Fprintf(stdout, "%s: TCP-AO KeyID/RNextKeyID sent: %s\n", p.Address, keyIDPairs(p.Shadow.KeyIDs))
		}
	}
	if h := rep.SRH; h.Total() > 0 {
		fmt.Fprintf(stdout, "SRv6 SRH HMACs: %d valid, %d invalid, %d without HMAC, %d with an unknown key ID\n", h.Valid, h.Invalid, h.NoHMAC, h.UnknownKey)
	}
}

// deref is *p, or 0 for nil.
func deref(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// keyIDPairs writes TCP-AO KeyID pairs as "1/2 (40 segments), 2/2 (3 segments)".
func keyIDPairs(l []status.KeyIDCount) string {
	parts := make([]string, len(l))
	for i, k := range l {
		parts[i] = fmt.Sprintf("%d/%d (%d segments)", k.KeyID, k.RNextKeyID, k.Segments)
	}
	return strings.Join(parts, ", ")
}
