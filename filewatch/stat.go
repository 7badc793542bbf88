package filewatch

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// State is what a file looks like from outside: enough to tell that its
// contents may have changed without reading them.
type State struct {
	// Resolved is the path after every symlink (the kubelet's swap of
	// "..data" changes it).
	Resolved string
	Inode    uint64 // 0 where the system has none
	Size     int64
	ModTime  time.Time
	// Err is why the file could not be looked at ("" when it could): a
	// missing or unreadable file is a state too.
	Err string
}

// Snapshot is the State of each file, by the path it was asked under.
type Snapshot map[string]State

// Stat takes a snapshot of files. It reads no contents.
func Stat(files []string) Snapshot {
	s := Snapshot{}
	for _, f := range clean(files) {
		s[f] = stat(f)
	}
	return s
}

func stat(f string) State {
	var st State
	r, err := filepath.EvalSymlinks(f)
	if err != nil {
		st.Err = errText(err)
		return st
	}
	st.Resolved = r
	fi, err := os.Stat(r)
	if err != nil {
		st.Err = errText(err)
		return st
	}
	st.Inode, st.Size, st.ModTime = inode(fi), fi.Size(), fi.ModTime()
	// Readability is part of the state: a chmod 000 makes the next reload
	// refuse the file, and a chmod back must reload it again.
	if fh, err := os.Open(r); err != nil {
		st.Err = errText(err)
	} else {
		fh.Close()
	}
	return st
}

// errText keeps the operation and reason of an error (no contents; the path
// is the key of the snapshot already).
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// Equal reports whether two snapshots show the same files in the same
// states.
func (s Snapshot) Equal(o Snapshot) bool {
	return len(s) == len(o) && len(s.Changed(o)) == 0
}

// Changed lists the files whose state differs between s and o, or that only
// one of them has, sorted: for a log line that says which file moved.
func (s Snapshot) Changed(o Snapshot) []string {
	var out []string
	for f, a := range s {
		if b, ok := o[f]; !ok || !a.same(b) {
			out = append(out, f)
		}
	}
	for f := range o {
		if _, ok := s[f]; !ok {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

func (a State) same(b State) bool {
	return a.Resolved == b.Resolved && a.Inode == b.Inode && a.Size == b.Size && a.ModTime.Equal(b.ModTime) && a.Err == b.Err
}

// Merge returns s with the files of o that s lacks.
func (s Snapshot) Merge(o Snapshot) Snapshot {
	out := Snapshot{}
	for f, st := range o {
		out[f] = st
	}
	for f, st := range s {
		out[f] = st
	}
	return out
}
