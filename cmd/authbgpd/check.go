package main

import (
	"fmt"
	"io"
)

// cmdCheck validates a config file: exit 0 (warnings go to stderr), or exit
// 1 with every error as "FILE:LINE: message", one per line.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs, file := configFlags("check", "config file (TOML)", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *file == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: authbgpd check -f FILE")
		return 2
	}
	cfg := loadConfig(*file, stderr)
	if cfg == nil {
		return 1
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "warning: "+w.String())
	}
	fmt.Fprintf(stdout, "%s: ok (%d peers, %d keychains, %d SRv6 HMAC keys, %d SR policies)\n",
		*file, len(cfg.Peers), len(cfg.Keychains), len(cfg.SRv6.HMACKeys), len(cfg.SRv6.Policies))
	return 0
}
