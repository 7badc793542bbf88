package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/md5auth/shadow"
	"github.com/authbgp/authbgpd/srv6"
	"github.com/authbgp/authbgpd/srv6policy"
	"github.com/authbgp/authbgpd/status"
)

// pcapPeer is one entry of verify-pcap's report: the /status peer shape.
type pcapPeer struct {
	Address string         `json:"address"`
	Peer    string         `json:"peer"` // the configured peer (address or range)
	Shadow  *status.Shadow `json:"shadow"`
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

// cmdVerifyPcap checks every TCP-MD5 signature in capture files with the
// keys of a config. Failing segments are the report (exit 0); an unreadable
// or truncated capture is an error (exit 1).
func cmdVerifyPcap(args []string, stdout, stderr io.Writer) int {
	fs, file := configFlags("verify-pcap", "config file (TOML) whose peers and keys to check with", stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	port := fs.Uint("port", 179, "BGP port")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *file == "" || fs.NArg() == 0 || *port == 0 || *port > 65535 {
		fmt.Fprintln(stderr, "usage: authbgpd verify-pcap -f FILE [--json] CAPTURE...")
		return 2
	}
	cfg := loadConfig(*file, stderr)
	if cfg == nil {
		return 1
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
		Peers:   shadow.PeersOf(cfg),
		Options: shadow.Options{Port: uint16(*port), IdleAfter: -1},
		SRH:     func(pkt *frame.TCP, _ []byte) { rep.SRH.Add(srv6policy.VerifySRH(keys, pkt.Src, pkt.SRH)) },
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
		rep.Peers = append(rep.Peers, pcapPeer{Address: r.Address.String(), Peer: r.PeerID, Shadow: shadow.StatusOf(r)})
	}
	if *asJSON {
		return printPcapJSON(rep, stdout, stderr)
	}
	printPcapReport(rep, stdout)
	return 0
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
	fmt.Fprintln(tw, "PEER\tCONFIGURED\tDIAGNOSIS\tVALID\tBAD\tMISSING\tUNEXPECTED\tSENT-VALID\tSENT-INVALID\tSENT-UNSIGNED")
	for _, p := range rep.Peers {
		d := p.Shadow.Diagnosis
		if p.Shadow.PeerKeyID != nil {
			d = fmt.Sprintf("%s(%d)", d, *p.Shadow.PeerKeyID)
		}
		s := p.Shadow.Segments
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", p.Address, p.Peer, d, s.Valid, s.BadDigest, s.Missing, s.Unexpected,
			p.Shadow.Sent.Valid, p.Shadow.Sent.Invalid, p.Shadow.Sent.Unsigned)
	}
	tw.Flush()
	if len(rep.Peers) == 0 {
		fmt.Fprintln(stdout, "no BGP segments of configured peers in the capture")
	}
	if h := rep.SRH; h.Total() > 0 {
		fmt.Fprintf(stdout, "SRv6 SRH HMACs: %d valid, %d invalid, %d without HMAC, %d with an unknown key ID\n", h.Valid, h.Invalid, h.NoHMAC, h.UnknownKey)
	}
}
