package filewatch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// fakeBackend is a Backend whose events the test sends.
type fakeBackend struct {
	events chan string
	errs   chan error
	adds   chan string
}

func newFake() *fakeBackend {
	return &fakeBackend{events: make(chan string), errs: make(chan error), adds: make(chan string, 100)}
}

func (f *fakeBackend) Add(dir string) error  { f.adds <- dir; return nil }
func (f *fakeBackend) Remove(string) error   { return nil }
func (f *fakeBackend) Events() <-chan string { return f.events }
func (f *fakeBackend) Errors() <-chan error  { return f.errs }
func (f *fakeBackend) Close() error          { return nil }
func (f *fakeBackend) send(t *testing.T, p string) {
	t.Helper()
	select {
	case f.events <- p:
	case <-time.After(5 * time.Second):
		t.Fatalf("the watcher took no event %s", p)
	}
}

// fakeClock hands out one channel per timer asked for, and the durations.
type fakeClock struct{ timers chan timer }

type timer struct {
	d time.Duration
	c chan time.Time
}

func (c *fakeClock) after(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.timers <- timer{d, ch}
	return ch
}

func (c *fakeClock) next(t *testing.T) timer {
	t.Helper()
	select {
	case tm := <-c.timers:
		return tm
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher started no debounce timer")
		return timer{}
	}
}

func (c *fakeClock) none(t *testing.T) {
	t.Helper()
	select {
	case tm := <-c.timers:
		t.Fatalf("the watcher started a timer (%v) for an event that does not concern it", tm.d)
	case <-time.After(50 * time.Millisecond):
	}
}

func notified(w *Watcher, d time.Duration) bool {
	select {
	case <-w.C():
		return true
	case <-time.After(d):
		return false
	}
}

// TestDebounce: events on a watched file start the (1 s) debounce timer
// again; only the last timer notifies, once; events elsewhere in the
// directory start nothing.
func TestDebounce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	fb, clock := newFake(), &fakeClock{timers: make(chan timer, 10)}
	w, err := New([]string{file}, Options{Backend: fb, After: clock.after})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if d := <-fb.adds; d != dir {
		t.Fatalf("watching %s, want the file's directory %s", d, dir)
	}

	fb.send(t, filepath.Join(dir, "other"))
	clock.none(t)

	fb.send(t, file)
	first := clock.next(t)
	if first.d != DefaultDebounce || DefaultDebounce != time.Second {
		t.Fatalf("debounce %v, want 1s", first.d)
	}
	fb.send(t, file)
	second := clock.next(t)
	first.c <- time.Now() // superseded: no notification
	if notified(w, 50*time.Millisecond) {
		t.Fatal("notified by a superseded timer")
	}
	second.c <- time.Now()
	if !notified(w, 5*time.Second) {
		t.Fatal("no notification after the debounce")
	}
	if notified(w, 50*time.Millisecond) {
		t.Fatal("two notifications for one burst")
	}

	// The directory itself going away concerns the file too.
	fb.send(t, dir)
	clock.next(t).c <- time.Now()
	if !notified(w, 5*time.Second) {
		t.Fatal("no notification after the directory changed")
	}
}

// TestDebounceReal: with a real clock and a short debounce, a burst of
// events gives one notification.
func TestDebounceReal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	fb := newFake()
	w, err := New([]string{file}, Options{Backend: fb, Debounce: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for range 5 {
		fb.send(t, file)
	}
	if !notified(w, 5*time.Second) {
		t.Fatal("no notification")
	}
	if notified(w, 300*time.Millisecond) {
		t.Fatal("two notifications for one burst")
	}
}

// TestErrorsReported: backend errors reach OnError, wrapped.
func TestErrorsReported(t *testing.T) {
	fb := newFake()
	got := make(chan error, 1)
	w, err := New(nil, Options{Backend: fb, OnError: func(err error) { got <- err }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	overflow := errors.New("queue overflow")
	fb.errs <- overflow
	select {
	case err := <-got:
		if !errors.Is(err, overflow) || err.Error() != "filewatch: queue overflow" {
			t.Fatalf("OnError got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OnError not called")
	}
}

// k8sSecret lays out dir the way the kubelet mounts a Secret volume:
// dir/..2026_a/pw, dir/..data -> ..2026_a, dir/pw -> ..data/pw.
func k8sSecret(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.Mkdir(filepath.Join(dir, "..2026_a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "..2026_a", "pw"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..2026_a", filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..data/pw", filepath.Join(dir, "pw")); err != nil {
		t.Fatal(err)
	}
}

// swap does the kubelet's atomic update: a new timestamped directory, a
// temporary symlink to it renamed onto ..data, the old directory removed.
func swap(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, "pw"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(name, tmp); err != nil {
		t.Fatal(err)
	}
	old, err := os.Readlink(filepath.Join(dir, "..data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, old)); err != nil {
		t.Fatal(err)
	}
}

func TestChain(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	k8sSecret(t, dir, "one")
	got := Chain(filepath.Join(dir, "pw"))
	want := []string{
		filepath.Join(dir, "pw"),
		filepath.Join(dir, "..data", "pw"),
		filepath.Join(dir, "..data"),
		filepath.Join(dir, "..2026_a", "pw"),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Chain:\n got %q\nwant %q", got, want)
	}
	missing := filepath.Join(dir, "nodir", "pw")
	if got := Chain(missing); !slices.Equal(got, []string{missing}) {
		t.Fatalf("Chain of a missing file: %q", got)
	}
}

// TestSymlinkSwap: the kubelet's atomic swap of ..data, seen through the
// real backend (inotify on Linux), notifies; the snapshot differs; writes
// into the new target directory are then seen too; an unrelated file in the
// directory notifies nothing.
func TestSymlinkSwap(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	k8sSecret(t, dir, "one")
	file := filepath.Join(dir, "pw")
	errs := make(chan error, 10)
	w, err := New([]string{file}, Options{Debounce: 50 * time.Millisecond, OnError: func(err error) { errs <- err }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	before := Stat([]string{file})
	if s := before[file]; s.Err != "" || s.Resolved != filepath.Join(dir, "..2026_a", "pw") || s.Size != 3 {
		t.Fatalf("state before the swap: %+v", s)
	}

	if err := os.WriteFile(filepath.Join(dir, "unrelated"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if notified(w, 300*time.Millisecond) {
		t.Fatal("notified for a file that is not watched")
	}

	swap(t, dir, "..2026_b", "two")
	if !notified(w, 5*time.Second) {
		t.Fatal("no notification after the ..data swap")
	}
	after := Stat([]string{file})
	if after.Equal(before) || after[file].Resolved != filepath.Join(dir, "..2026_b", "pw") {
		t.Fatalf("snapshot after the swap: %+v (before %+v)", after[file], before[file])
	}
	if ch := after.Changed(before); !slices.Equal(ch, []string{file}) {
		t.Fatalf("Changed: %q", ch)
	}

	// The new target directory is watched: an in-place write there counts.
	if err := os.WriteFile(filepath.Join(dir, "..2026_b", "pw"), []byte("three"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !notified(w, 5*time.Second) {
		t.Fatal("no notification after a write in the new target directory")
	}
	if s := Stat([]string{file}); s.Equal(after) {
		t.Fatal("the snapshot did not change with the file's size")
	}
	select {
	case err := <-errs:
		t.Fatalf("OnError: %v", err)
	default:
	}
}

// TestSetAndMissing: a file whose directory does not exist yet is watched
// from its nearest existing directory and seen when it appears; Set adds
// files.
func TestSetAndMissing(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	w, err := New(nil, Options{Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	file := filepath.Join(dir, "later", "pw")
	w.Set([]string{file})
	if s := Stat([]string{file})[file]; s.Err == "" {
		t.Fatalf("state of a missing file: %+v", s)
	}
	if err := os.Mkdir(filepath.Join(dir, "later"), 0o700); err != nil {
		t.Fatal(err)
	}
	if !notified(w, 5*time.Second) {
		t.Fatal("no notification when the file's directory appeared")
	}
	if err := os.WriteFile(file, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !notified(w, 5*time.Second) {
		t.Fatal("no notification when the file appeared")
	}
}

// TestSnapshot: the same file untouched is Equal; a rewrite with another
// size, a replacement (new inode) and a chmod 000 are not.
func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "pw")
	write := func(s string) {
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	a := Stat([]string{f})
	if !a.Equal(Stat([]string{f})) {
		t.Fatal("two snapshots of an untouched file differ")
	}
	write("three")
	b := Stat([]string{f})
	if a.Equal(b) {
		t.Fatal("a rewrite with another size is not a change")
	}
	tmp := filepath.Join(dir, "pw.new")
	if err := os.WriteFile(tmp, []byte("thre3"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, b[f].ModTime, b[f].ModTime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, f); err != nil {
		t.Fatal(err)
	}
	c := Stat([]string{f})
	if inode(mustStat(t, f)) != 0 && b.Equal(c) {
		t.Fatal("a file renamed over (same size and mtime, new inode) is not a change")
	}
	if os.Geteuid() != 0 { // root reads anything
		if err := os.Chmod(f, 0); err != nil {
			t.Fatal(err)
		}
		if d := Stat([]string{f}); d.Equal(c) || d[f].Err == "" {
			t.Fatalf("an unreadable file is not a change: %+v", d[f])
		}
	}
	if m := a.Merge(Snapshot{"x": {}}); len(m) != 2 || !m[f].same(a[f]) {
		t.Fatalf("Merge: %+v", m)
	}
}

func mustStat(t *testing.T, f string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
