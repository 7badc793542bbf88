package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/authbgp/authbgpd/status"
)

// kernelDropsLine says whether the kernel's per-peer drop verdicts are
// counted.
func kernelDropsLine(k *status.KernelDropsInfo) string {
	if !k.Available {
		return "kernel drop verdicts: unavailable: " + orDash(oneLine(k.Error))
	}
	line := fmt.Sprintf("kernel drop verdicts: counting (%d tracepoints), %d from addresses of no peer", len(k.Tracepoints), k.Other)
	if k.Missed > 0 {
		line += fmt.Sprintf(", %d not counted (runs the kernel skipped)", k.Missed)
	}
	return line
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
	if line := aoAlgorithmsLine(k); line != "" {
		fmt.Fprintln(w, line)
	}
}

// aoAlgorithmsLine says which keychain algorithms the kernel accepts for
// TCP-AO and which it refused ("" when the daemon did not say).
func aoAlgorithmsLine(k *status.Kernel) string {
	kernel := "kernel"
	if k.Release != "" {
		kernel = "kernel " + k.Release
	}
	switch {
	case len(k.TCPAOAlgorithms)+len(k.TCPAOAlgorithmsMissing) > 0:
		line := fmt.Sprintf("%s TCP-AO algorithms: %s", kernel, orDash(strings.Join(k.TCPAOAlgorithms, ", ")))
		if len(k.TCPAOAlgorithmsMissing) > 0 {
			line += "; not offered (a key with one holds its peer down): " + strings.Join(k.TCPAOAlgorithmsMissing, ", ")
		}
		return line
	case k.TCPAOAlgorithmsError != "":
		return fmt.Sprintf("%s TCP-AO algorithms: none known: %s", kernel, oneLine(k.TCPAOAlgorithmsError))
	}
	return ""
}

// aoCounts formats TCP-AO counters.
func aoCounts(a status.AOCounters) string {
	return fmt.Sprintf("good %d, bad %d, key_not_found %d, ao_required %d, dropped_icmp %d",
		a.Good, a.Bad, a.KeyNotFound, a.AORequired, a.DroppedICMP)
}
