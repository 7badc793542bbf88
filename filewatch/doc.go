// Package filewatch tells when any of a set of files' contents may have
// changed: the daemon's config file and its secret files, so that a changed
// secret is reloaded without a signal.
//
// It watches the parent directory of every file and of every symlink on the
// way to it, not the file itself: an editor that renames a new file over
// the old one, and the kubelet's atomic Secret update (a new timestamped
// directory, then a temporary symlink renamed onto "..data"), both replace
// the file instead of writing it, and only the directory sees that. After
// each event on the way to a file the chain is resolved again, so the new
// target directory is watched from then on.
//
// Events are debounced (one second by default): a burst of events gives one
// notification, after the burst. A notification means "may have changed";
// Stat and Snapshot.Equal tell whether it did. The package imports nothing of
// authbgpd's; fsnotify is its backend (inotify on Linux, kqueue on the BSDs
// and macOS), and tests inject their own.
package filewatch
