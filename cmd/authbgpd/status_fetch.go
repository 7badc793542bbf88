package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// statusTimeout bounds the whole GET /status exchange.
const statusTimeout = 10 * time.Second

// healthTimeout bounds the whole GET /healthz exchange of --health (a
// container HEALTHCHECK must answer well within its own timeout).
const healthTimeout = 2 * time.Second

// statusURL turns ADDR (host:port, :port, or an http:// URL) into the URL of
// /status. A wildcard listen address is reached on loopback.
func statusURL(addr string) (string, error) {
	if strings.HasPrefix(addr, "http://") || strings.HasPrefix(addr, "https://") {
		return strings.TrimSuffix(strings.TrimSuffix(addr, "/"), "/status") + "/status", nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("bad port %q", port)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/status", nil
}

// checkHealth GETs u (the /healthz URL) within healthTimeout: 0 on 200,
// 1 with the reason (the daemon's 503 text, or why it cannot be reached) on
// stderr.
func checkHealth(u string, stderr io.Writer) int {
	if _, err := fetch(u, healthTimeout); err != nil {
		fmt.Fprintf(stderr, "authbgpd status: unhealthy: %v\n", err)
		return 1
	}
	return 0
}

// fetchStatus GETs url and returns the body of a 200 answer.
func fetchStatus(u string) ([]byte, error) { return fetch(u, statusTimeout) }

// fetch GETs u within timeout and returns the body of a 200 answer.
func fetch(u string, timeout time.Duration) ([]byte, error) {
	client := &http.Client{Timeout: timeout}
	resp, err := client.Get(u)
	if err != nil {
		hint := "is the daemon running, with [api] http set to this address?"
		if errors.Is(err, syscall.ECONNREFUSED) {
			hint = "nothing listens there: is the daemon running, with [api] http set to this address?"
		}
		// Unwrap *url.Error: its text repeats the method and URL.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("cannot reach %s: %v (%s)", u, err, hint)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return nil, fmt.Errorf("%s: %s: %s", u, resp.Status, msg)
	}
	return body, nil
}
