package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/httpapi"
)

// reloadTimeout bounds a POST /-/reload exchange: a reload that removes and
// adds many peers takes a while.
const reloadTimeout = 60 * time.Second

var reloadCommand = &command{
	name: "reload", synopsis: "[--api ADDR | -f FILE] [--json]",
	summary: "ask the running daemon to reload its config (POST /-/reload)",
	detail: `Asks the daemon whose HTTP API is at ADDR (default: [api] http of FILE, or
` + config.DefaultHTTP + `) to re-read its config file, and prints what it did:
peers added, removed, changed (re-keyed: never the secret), or why it refused.
Exit 0 when applied, 1 when refused or applied with errors. The API takes
reloads from loopback only unless [api] reload-allow-remote = true. SIGHUP
still works.`,
	flags: func(fs *flag.FlagSet) { reloadFlags(fs) },
}

type reloadFlagValues struct {
	api, file *string
	asJSON    *bool
}

func reloadFlags(fs *flag.FlagSet) reloadFlagValues {
	return reloadFlagValues{
		api:    fs.String("api", "", "address of the daemon's HTTP API (default "+config.DefaultHTTP+")"),
		file:   fs.String("f", "", "take the API address from [api] http of this config file"),
		asJSON: fs.Bool("json", false, "print the answer as JSON"),
	}
}

func cmdReload(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("reload", stderr)
	fl := reloadFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || (*fl.api != "" && *fl.file != "") {
		fmt.Fprintln(stderr, "usage: "+reloadCommand.usageLine())
		return 2
	}
	var cfg *config.Config
	if *fl.file != "" {
		if cfg = loadConfig(*fl.file, stderr); cfg == nil {
			return 1
		}
	}
	addr, code := apiAddr("reload", *fl.api, cfg, *fl.file, stderr)
	if code >= 0 {
		return code
	}
	return postReload("reload", addr, httpapi.ReloadRequest{}, *fl.asJSON, stdout, stderr)
}

// apiAddr is the daemon's API address: api, else [api] http of cfg, else
// the default. code is an exit code when there is none (else -1).
func apiAddr(cmd, api string, cfg *config.Config, file string, stderr io.Writer) (addr string, code int) {
	switch {
	case api != "":
		return api, -1
	case cfg == nil:
		return config.DefaultHTTP, -1
	case cfg.API.HTTP == "":
		fmt.Fprintf(stderr, "authbgpd %s: %s:%d: [api] http is off (\"\"); the daemon serves no API: use --api\n", cmd, file, cfg.API.LineOf("http"))
		return "", 1
	}
	return cfg.API.HTTP, -1
}

// postReload POSTs req to the daemon at addr and prints the answer: exit 0
// when the reload is (or would be) accepted without errors, else 1.
func postReload(cmd, addr string, req httpapi.ReloadRequest, asJSON bool, stdout, stderr io.Writer) int {
	u, err := statusURL(addr)
	if err != nil {
		fmt.Fprintf(stderr, "authbgpd %s: API address %q: %v\n", cmd, addr, err)
		return 2
	}
	u = strings.TrimSuffix(u, "/status") + httpapi.ReloadPath
	p, raw, err := post(u, req)
	if err != nil {
		fmt.Fprintf(stderr, "authbgpd %s: %v\n", cmd, err)
		return 1
	}
	if asJSON {
		stdout.Write(raw)
	} else {
		printPreview(stdout, p)
	}
	if !p.OK() || len(p.Errors) > 0 {
		return 1
	}
	return 0
}

// post sends req and decodes the preview of a 200 or 422 answer.
func post(u string, req httpapi.ReloadRequest) (*config.Preview, []byte, error) {
	body, _ := json.Marshal(req)
	client := &http.Client{Timeout: reloadTimeout}
	resp, err := client.Post(u, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot reach %s: %w (is the daemon running, with [api] http set to this address?)", u, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading the answer: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusUnprocessableEntity {
		return nil, nil, fmt.Errorf("%s: %s: %s", u, resp.Status, strings.TrimSpace(string(raw)))
	}
	var p config.Preview
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, nil, fmt.Errorf("%s: not a reload answer: %w", u, err)
	}
	return &p, raw, nil
}

// printPreview writes a reload answer, a line per change.
func printPreview(w io.Writer, p *config.Preview) {
	verdict := "reload applied"
	switch {
	case p.DryRun && p.OK():
		verdict = "a reload would be accepted"
	case p.DryRun:
		verdict = "a reload would be refused"
	case !p.OK():
		verdict = "reload refused; the running config stays"
	case len(p.Errors) > 0:
		verdict = "reload applied with errors"
	}
	fmt.Fprintf(w, "%s: %s\n", p.File, verdict)
	line := func(what, s string) { fmt.Fprintf(w, "  %-9s %s\n", what, s) }
	for _, r := range p.Refused {
		line("refused", r.Message)
	}
	for _, a := range p.Added {
		line("add", a)
	}
	for _, r := range p.Removed {
		line("remove", r)
	}
	for _, c := range p.Changed {
		what, how := "change", "session reset"
		switch {
		case c.Rekey && !c.Reset:
			what, how = "re-key", "in place, no session reset"
		case !c.Reset:
			how = "in place, no session reset"
		}
		line(what, fmt.Sprintf("%s: %s (%s)", c.Peer, strings.Join(c.Fields, ", "), how))
	}
	for _, o := range p.Other {
		line("other", o)
	}
	for _, m := range p.Warnings {
		line("warning", m)
	}
	for _, e := range p.Errors {
		line("error", e)
	}
	if p.OK() && len(p.Added)+len(p.Removed)+len(p.Changed)+len(p.Other) == 0 {
		line("", "no change")
	}
}
