package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/authbgp/authbgpd/config"
)

// newFlagSet is the flag set of a subcommand, its errors going to stderr.
// Its usage is the caller's to print (dispatch prints --help on stdout).
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	return fs
}

// loadConfig loads file; on error it prints every error as
// "FILE:LINE: message", one per line, and returns nil.
func loadConfig(file string, stderr io.Writer) *config.Config {
	cfg, err := config.Load(file)
	if err != nil {
		for _, e := range config.Errors(err) {
			fmt.Fprintln(stderr, e.Error())
		}
		return nil
	}
	return cfg
}
