package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one subcommand. The same table drives dispatch, --help,
// `help COMMAND`, shell completion and the man page, so they cannot
// disagree. flags declares the command's flags on a flag set; the
// command's own parser declares them with the same function. (A table
// and the standard flag package rather than spf13/cobra: ten commands
// with a few flags each need no framework, and the commands keep
// their own io.Writer-based entry points, which the tests call.)
type command struct {
	name     string // "check", "srv6 hmac"; "" is the daemon itself
	args     string // the positional arguments' synopsis ("CAPTURE...")
	synopsis string // flags synopsis for the usage line
	summary  string // one line
	detail   string // paragraphs for --help and the man page
	flags    func(fs *flag.FlagSet)
	run      func(args []string, stdout, stderr io.Writer) int
}

// commands is every subcommand, in the order help lists them. It is filled
// in init (the help and man commands refer to it).
var commands []*command

func init() {
	// The runners are set here: they print their command's usage line, and
	// a runner in the command's literal would be an initialization cycle.
	daemonCommand.run, checkCommand.run, reloadCommand.run = cmdRun, cmdCheck, cmdReload
	statusCommand.run, verifyPcapCommand.run, srv6HMACCommand.run = cmdStatus, cmdVerifyPcap, cmdSRv6HMAC
	commands = []*command{
		daemonCommand, checkCommand, reloadCommand, statusCommand, verifyPcapCommand,
		srv6HMACCommand, versionCommand, helpCommand, completionCommand, manCommand,
	}
}

// lookup finds the command args start with ("srv6 hmac" takes two words)
// and returns the remaining arguments.
func lookup(args []string) (*command, []string) {
	var best *command
	var rest []string
	for _, c := range commands {
		words := strings.Fields(c.name)
		if len(words) == 0 || len(words) > len(args) {
			continue
		}
		if strings.Join(args[:len(words)], " ") == c.name && (best == nil || len(words) > len(strings.Fields(best.name))) {
			best, rest = c, args[len(words):]
		}
	}
	return best, rest
}

// flagSet returns the command's flag set, errors to stderr.
func (c *command) flagSet(stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(c.fullName(), flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	if c.flags != nil {
		c.flags(fs)
	}
	return fs
}

func (c *command) fullName() string { return strings.TrimSpace("authbgpd " + c.name) }

// usageLine is "authbgpd NAME SYNOPSIS ARGS".
func (c *command) usageLine() string {
	return strings.Join(strings.Fields(c.fullName()+" "+c.synopsis+" "+c.args), " ")
}

// dispatch runs c with args: --help anywhere (before "--") prints the help
// on stdout (exit 0); flags may come before or after the positional
// arguments; a bad flag is a usage error (exit 2). The command gets its
// flags first, then "--" and the positional arguments.
func (c *command) dispatch(args []string, stdout, stderr io.Writer) int {
	flags, pos, err := splitArgs(c.flagSet(io.Discard), args)
	if errors.Is(err, flag.ErrHelp) {
		c.printHelp(stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\nusage: %s\n", c.fullName(), err, c.usageLine())
		return 2
	}
	if len(pos) > 0 {
		flags = append(append(flags, "--"), pos...)
	}
	return c.run(flags, stdout, stderr)
}

// splitArgs parses args with fs, letting flags and positional arguments
// mix; "--" ends the flags. It returns the flag arguments and the
// positional ones, in order.
func splitArgs(fs *flag.FlagSet, args []string) (flags, pos []string, err error) {
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return nil, nil, err
		}
		consumed := rest[:len(rest)-fs.NArg()]
		rest = fs.Args()
		if n := len(consumed); n > 0 && consumed[n-1] == "--" {
			flags = append(flags, consumed[:n-1]...)
			return flags, append(pos, rest...), nil
		}
		flags = append(flags, consumed...)
		if len(rest) > 0 {
			pos, rest = append(pos, rest[0]), rest[1:]
		}
	}
	return flags, pos, nil
}

// printHelp writes the command's usage, description and flags.
func (c *command) printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.usageLine(), c.summary)
	if c.detail != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.detail))
	}
	fs := c.flagSet(w)
	if hasFlags(fs) {
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// usage writes the global usage: one line per command.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %s\n      %s\n", c.usageLine(), c.summary)
	}
	fmt.Fprintln(w, "\n`authbgpd help COMMAND` or `authbgpd COMMAND --help` describes one.")
}

var versionCommand = &command{
	name: "version", summary: "print the version (authbgpd, GoBGP, Go)",
	run: func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			fmt.Fprintln(stderr, "usage: authbgpd version")
			return 2
		}
		fmt.Fprintln(stdout, versionString())
		return 0
	},
}

var helpCommand = &command{
	name: "help", args: "[COMMAND]", summary: "describe every command, or one",
	run: func(args []string, stdout, stderr io.Writer) int {
		args = dropDashes(args)
		if len(args) == 0 {
			usage(stdout)
			return 0
		}
		c, rest := lookup(args)
		if c == nil || len(rest) > 0 {
			fmt.Fprintf(stderr, "authbgpd help: unknown command %q\n", strings.Join(args, " "))
			usage(stderr)
			return 2
		}
		c.printHelp(stdout)
		return 0
	},
}

// dropDashes removes the "--" dispatch puts before positional arguments.
func dropDashes(args []string) []string {
	if len(args) > 0 && args[0] == "--" {
		return args[1:]
	}
	return args
}

// flagsFromHelp declares on a flag set the flags that run (a command
// whose parser lives elsewhere) prints for -h in flag.PrintDefaults form
// ("  -name type" or "  -name" for a boolean, then "\tusage" lines).
func flagsFromHelp(run func(args []string, stderr io.Writer) int) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) {
		var b strings.Builder
		run([]string{"-h"}, &b)
		var name, typ string
		var usage []string
		flush := func() {
			if name == "" || fs.Lookup(name) != nil {
				return
			}
			text := strings.Join(usage, " ")
			if typ == "" {
				fs.Bool(name, false, text)
			} else {
				fs.String(name, "", text)
			}
		}
		for _, line := range strings.Split(b.String(), "\n") {
			t := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "    "):
				flush()
				head, same, _ := strings.Cut(strings.TrimPrefix(t, "-"), "\t") // "-x\tusage" for one-letter booleans
				f := strings.Fields(head)
				name, typ, usage = f[0], strings.Join(f[1:], " "), nil
				if same != "" {
					usage = append(usage, strings.TrimSpace(same))
				}
			case name != "" && strings.HasPrefix(line, "    "):
				usage = append(usage, t)
			}
		}
		flush()
	}
}
