package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/authbgp/authbgpd/config"
)

// configFlags is the flag set of a subcommand that reads a config file
// (-f), its errors going to stderr.
func configFlags(name, usage string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs, fs.String("f", "", usage)
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
