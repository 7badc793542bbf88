package filewatch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a watcher waits after the last event before it
// notifies.
const DefaultDebounce = time.Second

// maxLinks bounds a symlink chain, as the kernel does (ELOOP after 40).
const maxLinks = 40

// Backend is what a Watcher watches directories through: fsnotify in
// production, a fake in tests.
type Backend interface {
	// Add and Remove start and stop watching a directory.
	Add(dir string) error
	Remove(dir string) error
	// Events gives the path of each thing that changed in a watched
	// directory (the directory joined with the name).
	Events() <-chan string
	// Errors gives the backend's errors (a queue overflow, ...).
	Errors() <-chan error
	Close() error
}

// Options tune a Watcher. The zero value is the production setting.
type Options struct {
	// Debounce is the quiet time after the last event before the
	// notification (DefaultDebounce when 0).
	Debounce time.Duration
	// After makes the debounce timer (time.After when nil); tests pass a
	// clock of their own.
	After func(time.Duration) <-chan time.Time
	// Backend is the event source (fsnotify when nil).
	Backend Backend
	// OnError is told about errors the watcher can only report: a
	// directory that cannot be watched, a backend error. They name paths,
	// never contents. Nil: dropped.
	OnError func(error)
}

// Watcher watches a set of files. C receives a value when any of them may
// have changed; sends never block (one pending notification at most).
type Watcher struct {
	opts    Options
	backend Backend
	c       chan struct{}
	set     chan setReq
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once

	// Owned by the loop goroutine.
	files    []string
	watched  map[string]bool // directories added to the backend
	relevant map[string]bool // paths an event may name: files, links, targets
	above    map[string]bool // the directories above them
}

// New starts a watcher of files (absolute or relative to the working
// directory; more can be set later with Set).
func New(files []string, o Options) (*Watcher, error) {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.OnError == nil {
		o.OnError = func(error) {}
	}
	b := o.Backend
	if b == nil {
		fb, err := newFSNotify()
		if err != nil {
			return nil, fmt.Errorf("filewatch: %w", err)
		}
		b = fb
	}
	w := &Watcher{
		opts: o, backend: b,
		c: make(chan struct{}, 1), set: make(chan setReq), done: make(chan struct{}), stopped: make(chan struct{}),
		watched: map[string]bool{}, relevant: map[string]bool{}, above: map[string]bool{},
	}
	w.files = clean(files)
	w.resolve()
	go w.loop()
	return w, nil
}

// C receives a value after events that may have changed a watched file,
// once they have been quiet for the debounce time.
func (w *Watcher) C() <-chan struct{} { return w.c }

// setReq is a Set: the files, and a channel closed once they are watched.
type setReq struct {
	files   []string
	watched chan struct{}
}

// Set replaces the set of watched files. It returns once the new files'
// directories are watched: a change made after Set returns is seen.
func (w *Watcher) Set(files []string) {
	r := setReq{files: clean(files), watched: make(chan struct{})}
	select {
	case w.set <- r:
	case <-w.done:
		return
	}
	select {
	case <-r.watched:
	case <-w.done:
	}
}

// Close stops the watcher and its backend.
func (w *Watcher) Close() error {
	var err error
	w.once.Do(func() {
		close(w.done)
		<-w.stopped
		err = w.backend.Close()
	})
	return err
}

func (w *Watcher) loop() {
	defer close(w.stopped)
	var fire <-chan time.Time
	errs := w.backend.Errors()
	for {
		select {
		case <-w.done:
			return
		case r := <-w.set:
			w.files = r.files
			w.resolve()
			close(r.watched)
		case p, ok := <-w.backend.Events():
			if !ok {
				return
			}
			if !w.isRelevant(p) {
				continue
			}
			// The chains are walked again when the debounce fires, not
			// per event: a link that points elsewhere now is watched
			// from then on, and the reload that follows reads whatever
			// was written meanwhile. (Per event, 100 key files written
			// at once walked 500 chains 100 times: a second of CPU.)
			fire = w.opts.After(w.opts.Debounce)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if err != nil {
				w.opts.OnError(fmt.Errorf("filewatch: %w", err))
			}
		case <-fire:
			fire = nil
			w.resolve()
			select {
			case w.c <- struct{}{}:
			default:
			}
		}
	}
}

// isRelevant reports whether an event on p may change a watched file: p is
// a file, a link or a target on the way to one, or a directory above one.
func (w *Watcher) isRelevant(p string) bool {
	p = filepath.Clean(p)
	return w.relevant[p] || w.above[p]
}

// resolve walks every file's symlink chain again and makes the backend
// watch exactly the directories the chains need.
func (w *Watcher) resolve() {
	relevant, above := map[string]bool{}, map[string]bool{}
	dirs := map[string]bool{}
	for _, f := range w.files {
		for _, p := range Chain(f) {
			relevant[p] = true
			dirs[existingDir(filepath.Dir(p))] = true
			for d := filepath.Dir(p); !above[d]; d = filepath.Dir(d) {
				above[d] = true
			}
		}
	}
	w.relevant, w.above = relevant, above
	for d := range dirs {
		if !w.watched[d] {
			if err := w.backend.Add(d); err != nil {
				w.opts.OnError(fmt.Errorf("filewatch: watching %s: %w", d, err))
				continue
			}
			w.watched[d] = true
		}
	}
	for d := range w.watched {
		if !dirs[d] {
			// The directory may be gone already (the kubelet removes
			// the old timestamped directory): nothing to report.
			_ = w.backend.Remove(d)
			delete(w.watched, d)
		}
	}
}

// existingDir is d, or its nearest existing ancestor: a file whose
// directory does not exist yet is seen when the directory appears.
func existingDir(d string) string {
	for {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return d
		}
		d = up
	}
}

// Chain returns the paths on the way from file to what it resolves to:
// file itself, every symlink met (a link anywhere in the path, such as
// "..data" in "dir/..data/key"), each as an absolute path with its own
// parent's links resolved, and last the resolved file. It stops at the
// first path that does not exist (which is then last).
func Chain(file string) []string {
	p, err := filepath.Abs(file)
	if err != nil {
		return []string{filepath.Clean(file)}
	}
	out := []string{p}
	for range maxLinks {
		link, rest, ok := firstLink(p)
		if !ok {
			break
		}
		target, err := os.Readlink(link)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(link), target)
		}
		if !slices.Contains(out, link) {
			out = append(out, link)
		}
		p = filepath.Join(target, rest)
		out = append(out, p)
	}
	return compact(out)
}

// firstLink finds the first component of the absolute path p that is a
// symlink: its path and the rest of p after it.
func firstLink(p string) (link, rest string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(p, string(filepath.Separator)), string(filepath.Separator))
	cur := string(filepath.Separator)
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return "", "", false
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return cur, filepath.Join(parts[i+1:]...), true
		}
	}
	return "", "", false
}

func compact(ps []string) []string {
	var out []string
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func clean(files []string) []string {
	var out []string
	for _, f := range files {
		if f == "" {
			continue
		}
		if a, err := filepath.Abs(f); err == nil {
			f = a
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// fsnotifyBackend is Backend on fsnotify.
type fsnotifyBackend struct {
	w      *fsnotify.Watcher
	events chan string
	done   chan struct{}
}

func newFSNotify() (*fsnotifyBackend, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("starting the file watcher: %w", err)
	}
	b := &fsnotifyBackend{w: fw, events: make(chan string, 64), done: make(chan struct{})}
	go func() {
		defer close(b.events)
		for {
			select {
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				// Chmod events too: a file made unreadable is worth
				// a look (the reload then refuses it, with the reason).
				select {
				case b.events <- ev.Name:
				case <-b.done:
					return
				}
			case <-b.done:
				return
			}
		}
	}()
	return b, nil
}

func (b *fsnotifyBackend) Add(dir string) error    { return b.w.Add(dir) }
func (b *fsnotifyBackend) Remove(dir string) error { return b.w.Remove(dir) }
func (b *fsnotifyBackend) Events() <-chan string   { return b.events }
func (b *fsnotifyBackend) Errors() <-chan error    { return b.w.Errors }
func (b *fsnotifyBackend) Close() error {
	close(b.done)
	if err := b.w.Close(); err != nil {
		return fmt.Errorf("closing the file watcher: %w", err)
	}
	return nil
}
