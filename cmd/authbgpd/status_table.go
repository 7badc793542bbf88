package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/authbgp/authbgpd/status"
)

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
	printFIB(w, st.FIB)
	printNetworks(w, st.Networks) // status_networks.go
	printSRv6(w, st.SRv6)
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

func peerName(p status.Peer) string {
	n := p.Address
	switch {
	case p.Interface != "" && p.Address == "":
		n = p.Interface + " (no neighbor yet)"
	case p.Interface != "":
		n = p.Interface + " (" + p.Address + ")"
	case p.Address == "" && p.Prefix == "":
		n = "-"
	case p.Address == "":
		n = p.Prefix
	case p.Prefix != "" && p.Prefix != p.Address:
		n = p.Address + " (" + p.Prefix + ")"
	}
	if p.VRF != "" {
		n += " vrf " + p.VRF
	}
	return n
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
