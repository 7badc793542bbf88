// Package testlog has the one log sink tests share: a buffer a logger may
// write from its own goroutines while the test reads it.
package testlog

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer safe for concurrent writes and reads.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
