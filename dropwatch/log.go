package dropwatch

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/kdrops"
)

// logState is one address's log rate limit.
type logState struct {
	last time.Time // the last line; zero: none yet
	held counts    // drops not logged yet
}

// hold counts n drops of r from addr for the next log line.
func (w *Watcher) hold(addr netip.Addr, r kdrops.Reason, n uint64) {
	ls := w.logs[addr]
	if ls == nil {
		ls = &logState{}
		w.logs[addr] = ls
	}
	ls.held[r] += n
}

// logLine is one line to log.
type logLine struct {
	peer string
	addr netip.Addr
	n    counts
}

// flushLogs returns a line for every address holding drops whose last
// line is at least LogEvery old (or that has none), in address order, and
// forgets the addresses that have been quiet for LogEvery.
func (w *Watcher) flushLogs(now time.Time) []logLine {
	var out []logLine
	for addr, ls := range w.logs {
		due := ls.last.IsZero() || now.Sub(ls.last) >= w.o.LogEvery
		switch {
		case ls.held.total() == 0:
			if due {
				delete(w.logs, addr)
			}
		case due:
			id, _ := attribute(w.index, addr)
			if w.peers[id] == nil {
				id = ""
			}
			out = append(out, logLine{peer: id, addr: addr, n: ls.held})
			ls.held, ls.last = counts{}, now
		}
	}
	slices.SortFunc(out, func(a, b logLine) int { return a.addr.Compare(b.addr) })
	return out
}

// message is the line's text and its reason field: "kernel dropped 4
// segments from 192.0.2.6: bad TCP-MD5 digest"; with several reasons,
// most first: "...: 4 bad TCP-MD5 digest, 1 bad TCP option".
func (l logLine) message() (msg, reasons string) {
	var rs []kdrops.Reason
	for _, r := range kdrops.Reasons() {
		if l.n[r] != 0 {
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b kdrops.Reason) int {
		switch {
		case l.n[a] > l.n[b]:
			return -1
		case l.n[a] < l.n[b]:
			return 1
		}
		return 0
	})
	total := l.n.total()
	what := make([]string, len(rs))
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.String()
		if len(rs) == 1 {
			what[i] = Text(r)
		} else {
			what[i] = fmt.Sprintf("%d %s", l.n[r], Text(r))
		}
	}
	unit := "segments"
	if total == 1 {
		unit = "segment"
	}
	from := l.addr.String()
	if !l.addr.IsValid() {
		from = "addresses the kernel-side table could not record"
	}
	return fmt.Sprintf("kernel dropped %d %s from %s: %s", total, unit, from, strings.Join(what, ", ")), strings.Join(names, ",")
}

func (l logLine) emit(log *logrus.Entry) {
	msg, reasons := l.message()
	addr := ""
	if l.addr.IsValid() {
		addr = l.addr.String()
	}
	log.WithFields(logrus.Fields{"peer": l.peer, "address": addr, "reason": reasons, "count": l.n.total()}).Warn(msg)
}
