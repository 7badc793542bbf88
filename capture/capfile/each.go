package capfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Each calls fn for every packet of the capture read from r, in order;
// pkt.Data is valid only during fn. It returns nil at a clean end of the
// capture, the first error fn returns, or the reader's error (a file that
// is not a capture, torn or malformed: it names the record and offset).
func Each(r io.Reader, fn func(Packet) error) error {
	cr, err := NewReader(r)
	if err != nil {
		return err
	}
	for {
		p, err := cr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}

// EachFile is Each on the named file; errors name the file.
func EachFile(name string, fn func(Packet) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := Each(f, fn); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
