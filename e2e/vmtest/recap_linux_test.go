package vmtest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// recap keeps the error messages of a long test's checks and says them
// again when the test ends failed, after the daemons' logs its cleanups
// print: CI shows the end of a failed test's output, and the logs (12 kB
// each) would otherwise push the reason out of it.
type recap struct {
	mu   sync.Mutex
	msgs []string
}

// newRecap registers the repeat on t. Call it first, so that its cleanup
// runs after every other (cleanups run last-registered first).
func newRecap(t *testing.T) *recap {
	r := &recap{}
	t.Cleanup(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if t.Failed() && len(r.msgs) > 0 {
			t.Logf("---- %s failed on (repeated after the logs) ----\n%s", t.Name(), strings.Join(r.msgs, "\n"))
		}
	})
	return r
}

// on is t with its Errorf and Fatalf kept by r.
func (r *recap) on(t *testing.T) recapT { return recapT{T: t, r: r} }

func (r *recap) add(name, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, name+": "+msg)
}

// recapT is a *testing.T whose Errorf and Fatalf messages its recap keeps.
type recapT struct {
	*testing.T
	r *recap
}

func (t recapT) Errorf(format string, args ...any) {
	t.T.Helper()
	t.r.add(t.T.Name(), fmt.Sprintf(format, args...))
	t.T.Errorf(format, args...)
}

func (t recapT) Fatalf(format string, args ...any) {
	t.T.Helper()
	t.r.add(t.T.Name(), fmt.Sprintf(format, args...))
	t.T.Fatalf(format, args...)
}
