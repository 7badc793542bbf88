package filewatch

import (
	"slices"
	"sync"
)

// Follower reloads a program's config when its files really changed. It
// keeps the files of the running config and their states before the last
// reload, applied or refused, read: a change that reload did not see still
// differs, and one a reload already took in (a signal, an API call), or a
// file the last reload refused and unchanged since, is not done again.
//
// lock is the program's one-reload-at-a-time lock: Before, Settle, Refused,
// Watch and Files are called with it held (by the reload), the follower's
// goroutine takes it around each reload it starts, and Close takes it.
type Follower struct {
	lock  sync.Locker
	files []string
	last  Snapshot
	w     *Watcher      // nil when not watching
	stop  chan struct{} // closes the goroutine of w
}

// NewFollower returns a Follower of no files, not watching.
func NewFollower(lock sync.Locker) *Follower { return &Follower{lock: lock} }

// Files are the files of the running config, as the last Settle gave them.
func (f *Follower) Files() []string { return slices.Clone(f.files) }

// Before is the snapshot a reload takes before it reads anything: the
// running config's files and file, the one it is about to read.
func (f *Follower) Before(file string) Snapshot {
	return Stat(append(slices.Clone(f.files), file))
}

// Settle records an applied reload (or the first load) whose config now
// runs with files; before is its Before. Files before did not hold are
// stat'ed now.
func (f *Follower) Settle(before Snapshot, files []string) {
	f.files = clean(files)
	snap := Snapshot{}
	var fresh []string
	for _, file := range f.files {
		if st, ok := before[file]; ok {
			snap[file] = st
		} else {
			fresh = append(fresh, file)
		}
	}
	f.last = snap.Merge(Stat(fresh))
}

// Refused records a refused reload (before is its Before): the running
// config's files stay, and the change is not retried until a file changes
// again.
func (f *Follower) Refused(before Snapshot) { f.last = before }

// Changed lists the files whose state differs from the last reload's view.
func (f *Follower) Changed() []string { return Stat(f.files).Changed(f.last) }

// Watching reports whether the files are watched.
func (f *Follower) Watching() bool { return f.w != nil }

// Watch turns watching on or off. On, the watcher (started with o if it is
// not yet) follows the running config's files, and after each notification
// whose files changed since the last reload, reload is called, with the
// lock held, naming them. It reports whether it started or stopped a
// watcher; an error is New's (nothing is watched then).
func (f *Follower) Watch(on bool, o Options, reload func(changed []string)) (started, stopped bool, err error) {
	switch {
	case on && f.w == nil:
		w, err := New(f.files, o)
		if err != nil {
			return false, false, err
		}
		f.w, f.stop = w, make(chan struct{})
		go f.follow(w, f.stop, reload)
		return true, false, nil
	case on:
		f.w.Set(f.files)
	case f.w != nil:
		f.close()
		return false, true, nil
	}
	return false, false, nil
}

// Close stops watching (at shutdown). It takes the lock.
func (f *Follower) Close() {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.w != nil {
		f.close()
	}
}

func (f *Follower) close() {
	close(f.stop)
	_ = f.w.Close()
	f.w, f.stop = nil, nil
}

// follow calls reload after each notification of w whose files changed
// since the last reload, until stop closes.
func (f *Follower) follow(w *Watcher, stop chan struct{}, reload func([]string)) {
	for {
		select {
		case <-stop:
			return
		case <-w.C():
		}
		f.lock.Lock()
		select {
		case <-stop: // turned off meanwhile
			f.lock.Unlock()
			return
		default:
		}
		if changed := f.Changed(); len(changed) > 0 {
			reload(changed)
		}
		f.lock.Unlock()
	}
}
