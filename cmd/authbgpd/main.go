// The binary must never open multipath-TCP listeners: TCP_MD5SIG fails on
// them (go.mod sets the same default for the module; this keeps it even if
// the command is built from another module).

//go:debug multipathtcp=0

// Command authbgpd is a BGP speaker (GoBGP v3 embedded) whose TCP-MD5 keys
// fail closed, change without resets and are verified on the wire, and which
// advertises SRv6 SR policies with HMAC key IDs.
//
//	authbgpd -f FILE            run the daemon (coming with the speaker)
//	authbgpd check -f FILE      validate a config: exit 0, or 1 with FILE:LINE: message lines
//	authbgpd version
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version", "-version":
			fmt.Fprintln(stdout, versionString())
			return 0
		case "check":
			return cmdCheck(args[1:], stdout, stderr)
		case "verify-pcap":
			return cmdVerifyPcap(args[1:], stdout, stderr)
		case "status":
			return cmdStatus(args[1:], stdout, stderr)
		case "srv6":
			return cmdSRv6(args[1:], stdout, stderr)
		case "help", "-h", "--help":
			usage(stdout)
			return 0
		}
	}
	return cmdRun(args, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  authbgpd -f FILE [--log-level LEVEL] [--log-format text|json]   run the speaker
  authbgpd check -f FILE                                          validate a config
  authbgpd status [--api ADDR | -f FILE] [--json]               what GET /status says
  authbgpd status [--api ADDR | -f FILE] --health               GET /healthz (2 s): exit 0 healthy, 1 with the reason
  authbgpd verify-pcap -f FILE [--json] CAPTURE...                check TCP-MD5 signatures in pcap/pcapng files
  authbgpd srv6 hmac --algorithm A --key-file F --key-id N --source ADDR --segments A,B,C   print an SRH HMAC
  authbgpd version
`)
}
