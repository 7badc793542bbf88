// The binary must never open multipath-TCP listeners: TCP_MD5SIG fails on
// them (go.mod sets the same default for the module; this keeps it even if
// the command is built from another module).

//go:debug multipathtcp=0

// Command authbgpd is a BGP speaker (GoBGP v3 embedded) whose TCP-MD5 keys
// fail closed, change without resets and are verified on the wire, and which
// advertises SRv6 SR policies with HMAC key IDs.
//
//	authbgpd -f FILE                 run the daemon
//	authbgpd check -f FILE [--diff]  validate a config (and preview its reload)
//	authbgpd reload                  ask the running daemon to reload
//	authbgpd help [COMMAND]          every command (commands.go is the table)
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return daemonCommand.dispatch(args, stdout, stderr)
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "--version", "-version":
		return versionCommand.dispatch(args[1:], stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		return daemonCommand.dispatch(args, stdout, stderr)
	}
	if c, rest := lookup(args); c != nil {
		return c.dispatch(rest, stdout, stderr)
	}
	if args[0] == "srv6" {
		return cmdSRv6(args[1:], stdout, stderr) // "srv6" alone, or an unknown srv6 subcommand
	}
	fmt.Fprintf(stderr, "authbgpd: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

var daemonCommand = &command{
	synopsis: "-f FILE [--log-level LEVEL] [--log-format text|json]",
	summary:  "run the speaker (SIGHUP or `authbgpd reload` reloads FILE, SIGTERM stops)",
	detail: `Runs the BGP speaker with the config FILE until SIGTERM or SIGINT, which send
a NOTIFICATION Cease to every peer. SIGHUP, or POST /-/reload on the HTTP API
(authbgpd reload), re-reads FILE. Exit 0 after a clean stop, 1 if it cannot start.`,
	flags: func(fs *flag.FlagSet) { daemonFlags(fs) },
}

var checkCommand = &command{
	name: "check", synopsis: "-f FILE [--diff [--api ADDR]]",
	summary: "validate a config; --diff: what a reload of it would change",
	detail: `Exit 0 when FILE is valid (warnings on stderr), 1 with every error as
FILE:LINE: message. With --diff the running daemon (its HTTP API: --api, or
[api] http of FILE) previews a reload of FILE: peers added, removed, changed
(re-keyed: never the secret) and refused keys, each with FILE:LINE; exit 1 if
the reload would be refused. The daemon reads FILE itself, so it must be in the
directory of the daemon's config file, at the path the daemon sees.`,
	flags: func(fs *flag.FlagSet) { checkFlags(fs) },
}

var statusCommand = &command{
	name: "status", synopsis: "[--api ADDR | -f FILE] [--json | --health] [PEER]",
	summary: "what GET /status of the running daemon says",
	detail: `Prints the daemon's status as tables, or (--json) as served. With PEER (an
address or a range) it prints that peer in detail: timers, local address,
families, message counts, auth and key schedule, shadow counts and the last
diagnoses; an unknown PEER exits 1. --health GETs /healthz instead (2 s
timeout): exit 0 healthy, 1 with the reason.`,
	// cmdStatus (status.go) declares and parses its flags itself: the
	// table learns them from its -h output, so the two cannot drift.
	flags: flagsFromHelp(func(args []string, stderr io.Writer) int { return cmdStatus(args, io.Discard, stderr) }),
}

var srv6HMACCommand = &command{
	name: "srv6 hmac", synopsis: "--algorithm sha1|sha256 --key-file FILE --key-id N --source ADDR --segments A,B,C",
	summary: "print the SRH HMAC of an encap SRH",
	detail:  srv6Detail,
	flags:   func(fs *flag.FlagSet) { hmacFlags(fs) },
}
