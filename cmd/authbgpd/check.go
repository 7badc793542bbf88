package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/httpapi"
)

type checkFlagValues struct {
	file, api *string
	diff      *bool
}

// checkFlags declares the flags of `check` on fs.
func checkFlags(fs *flag.FlagSet) checkFlagValues {
	return checkFlagValues{
		file: fs.String("f", "", "config file (TOML)"),
		diff: fs.Bool("diff", false, "ask the running daemon what a reload of FILE would change (exit 1 if it would be refused)"),
		api:  fs.String("api", "", "with --diff: the daemon's HTTP API address (default: [api] http of FILE)"),
	}
}

// cmdCheck validates a config file: exit 0 (warnings go to stderr), or exit
// 1 with every error as "FILE:LINE: message", one per line. With --diff it
// then asks the daemon to preview a reload of the file.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", stderr)
	fl := checkFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *fl.file == "" || fs.NArg() != 0 || (*fl.api != "" && !*fl.diff) {
		fmt.Fprintln(stderr, "usage: "+checkCommand.usageLine())
		return 2
	}
	cfg := loadConfig(*fl.file, stderr)
	if cfg == nil {
		return 1
	}
	for _, w := range append(cfg.Warnings, cfg.PolicyWarnings()...) {
		fmt.Fprintln(stderr, "warning: "+w.String())
	}
	fmt.Fprintf(stdout, "%s: ok (%d peers, %d keychains, %d SRv6 HMAC keys, %d SR policies)\n",
		*fl.file, len(cfg.Peers), len(cfg.Keychains), len(cfg.SRv6.HMACKeys), len(cfg.SRv6.Policies))
	printChecked(stdout, cfg)
	if !*fl.diff {
		return 0
	}
	addr, code := apiAddr("check", *fl.api, cfg, *fl.file, stderr)
	if code >= 0 {
		return code
	}
	abs, err := filepath.Abs(*fl.file)
	if err != nil {
		fmt.Fprintf(stderr, "authbgpd check: %v\n", err)
		return 1
	}
	return postReload("check", addr, httpapi.ReloadRequest{DryRun: true, File: abs}, false, stdout, stderr)
}

// printChecked says what check took from outside the file: the router ID
// when it is not written (from the environment, or the host's address it
// would pick now), and the networks, whose prefix may come from the
// environment.
func printChecked(w io.Writer, cfg *config.Config) {
	if g := cfg.Global; g.RouterIDFrom != "" {
		fmt.Fprintf(w, "router-id %s (from %s)\n", g.RouterID, g.RouterIDFrom)
	}
	for i := range cfg.Networks {
		n := &cfg.Networks[i]
		from := ""
		if n.PrefixEnv != "" {
			from = " (prefix from environment variable " + n.PrefixEnv + ")"
		}
		fmt.Fprintf(w, "network %s%s\n", n.ID(), from)
	}
}
