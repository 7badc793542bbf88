package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/speaker"
)

type daemonFlagValues struct{ file, level, format *string }

// daemonFlags declares the daemon's flags on fs.
func daemonFlags(fs *flag.FlagSet) daemonFlagValues {
	return daemonFlagValues{
		file:   fs.String("f", "", "config file (TOML)"),
		level:  fs.String("log-level", "", "debug | info | warn | error (overrides [log] level)"),
		format: fs.String("log-format", "", "text | json (overrides [log] format)"),
	}
}

// cmdRun runs the speaker until SIGTERM/SIGINT; SIGHUP reloads the config.
func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("authbgpd", stderr)
	fl := daemonFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *fl.file == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: "+daemonCommand.usageLine())
		return 2
	}
	if os.Geteuid() != 0 {
		// Non-root with file or ambient capabilities: make them effective.
		if have, err := raiseCaps(); err != nil {
			fmt.Fprintf(stderr, "authbgpd: warning: cannot raise capabilities (%s): %v\n", capsSummary(have), err)
		}
	}
	tuneRuntime(os.LookupEnv)
	err := speaker.Run(speaker.Options{ConfigFile: *fl.file, LogLevel: *fl.level, LogFormat: *fl.format, Version: versionString(), Sockets: testSockets()})
	if err != nil {
		if errs := config.Errors(err); len(errs) > 0 && errs[0].File != "" {
			for _, e := range errs {
				fmt.Fprintln(stderr, e.Error())
			}
		} else {
			fmt.Fprintln(stderr, "authbgpd: "+err.Error())
		}
		return 1
	}
	return 0
}
