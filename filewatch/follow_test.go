package filewatch

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestFollowerBookkeeping: a reload settles the states it saw before
// reading; a change after that (or one it did not see) differs, a refused
// reload is not retried until a file changes again.
func TestFollowerBookkeeping(t *testing.T) {
	dir := t.TempDir()
	cfg, sec := filepath.Join(dir, "c.toml"), filepath.Join(dir, "s.key")
	write(t, cfg, "a")
	write(t, sec, "one")
	f := NewFollower(&sync.Mutex{})
	before := f.Before(cfg)
	f.Settle(before, []string{cfg, sec}) // sec was not in before: stat'ed now
	if got := f.Changed(); len(got) != 0 {
		t.Fatalf("after Settle: changed %q", got)
	}
	if got := f.Files(); !slices.Equal(got, []string{cfg, sec}) {
		t.Fatalf("Files = %q", got)
	}
	before = f.Before(cfg)
	write(t, sec, "two!") // changed while the reload read
	f.Settle(before, []string{cfg, sec})
	if got := f.Changed(); !slices.Equal(got, []string{sec}) {
		t.Fatalf("a change the reload did not see: changed %q, want %q", got, sec)
	}
	before = f.Before(cfg)
	f.Refused(before)
	if got := f.Changed(); len(got) != 0 {
		t.Fatalf("after a refused reload: changed %q (it would be retried)", got)
	}
	write(t, cfg, "bb")
	if got := f.Changed(); !slices.Equal(got, []string{cfg}) {
		t.Fatalf("changed %q, want %q", got, cfg)
	}
}

// TestFollowerWatch: on, a notification whose files changed reloads with
// the lock held, one whose files did not does nothing; off stops it.
func TestFollowerWatch(t *testing.T) {
	dir := t.TempDir()
	cfg, sec := filepath.Join(dir, "c.toml"), filepath.Join(dir, "s.key")
	write(t, cfg, "a")
	write(t, sec, "one")
	var mu sync.Mutex
	f := NewFollower(&mu)
	f.Settle(f.Before(cfg), []string{cfg, sec})
	reloads := make(chan []string, 10)
	reload := func(changed []string) {
		if mu.TryLock() {
			mu.Unlock()
			t.Error("reload called without the lock")
		}
		f.Settle(f.Before(cfg), f.Files())
		reloads <- changed
	}
	fb := newFake()
	mu.Lock()
	started, _, err := f.Watch(true, Options{Backend: fb, Debounce: time.Millisecond}, reload)
	mu.Unlock()
	if err != nil || !started || !f.Watching() {
		t.Fatalf("Watch(true) = %v, %v", started, err)
	}
	fb.send(t, dir) // nothing changed: no reload
	write(t, sec, "two!")
	fb.send(t, sec)
	select {
	case got := <-reloads:
		if !slices.Equal(got, []string{sec}) {
			t.Fatalf("reload of %q, want %q", got, sec)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no reload after a change")
	}
	select {
	case got := <-reloads:
		t.Fatalf("a second reload of %q", got)
	case <-time.After(50 * time.Millisecond):
	}
	mu.Lock()
	if s, _, _ := f.Watch(true, Options{Backend: fb}, reload); s {
		t.Error("Watch(true) while watching started another watcher")
	}
	_, stopped, _ := f.Watch(false, Options{}, reload)
	mu.Unlock()
	if !stopped || f.Watching() {
		t.Fatalf("Watch(false): stopped %v, watching %v", stopped, f.Watching())
	}
	f.Close() // not watching: nothing to do
}

func write(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
