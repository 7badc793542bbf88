package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/authbgp/authbgpd/config"
)

// cmdRun runs the speaker. Until the speaker lands it validates the config
// and says so, rather than pretending to run.
func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("authbgpd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "config file (TOML)")
	_ = fs.String("log-level", "", "debug | info | warn | error (overrides [log] level)")
	_ = fs.String("log-format", "", "text | json (overrides [log] format)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *file == "" || fs.NArg() != 0 {
		usage(stderr)
		return 2
	}
	if _, err := config.Load(*file); err != nil {
		for _, e := range config.Errors(err) {
			fmt.Fprintln(stderr, e.Error())
		}
		return 1
	}
	fmt.Fprintln(stderr, "authbgpd: the BGP speaker is not built yet (issue [2/5]); config is valid")
	return 1
}
