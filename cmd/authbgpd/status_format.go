package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// statusNow is the clock "5m ago" is counted from (tests fix it).
var statusNow = time.Now

// ago is how long before statusNow the RFC 3339 time at was: "5m12s ago";
// "at" itself when it does not parse.
func ago(at string) string {
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return "at " + orDash(at)
	}
	d := int64(statusNow().Sub(t).Seconds())
	if d < 0 {
		return "in " + humanDuration(-d)
	}
	return humanDuration(d) + " ago"
}

// table lays out one tabwriter table and writes it without trailing blanks.
func table(w io.Writer, rows func(io.Writer)) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	rows(tw)
	tw.Flush()
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
}

// humanDuration writes seconds with the two largest units: 42s, 5m12s,
// 3h7m, 3d4h.
func humanDuration(s int64) string {
	const (
		minute = 60
		hour   = 60 * minute
		day    = 24 * hour
	)
	switch {
	case s < minute:
		return fmt.Sprintf("%ds", s)
	case s < hour:
		return fmt.Sprintf("%dm%ds", s/minute, s%minute)
	case s < day:
		return fmt.Sprintf("%dh%dm", s/hour, s%hour/minute)
	}
	return fmt.Sprintf("%dd%dh", s/day, s%day/hour)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps a free-text cell on its row: tabs and newlines would break
// the table.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
