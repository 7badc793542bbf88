package config

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// maxSecretFile bounds how much of a secret file is read: far more than any
// valid secret, so that a too-long secret is still reported as such.
const maxSecretFile = 64 << 10

// secret resolves the secret of table t whose keys are base, base-file and
// base-env ("password" or "secret"). sources, when non-nil, is the one
// source key to use (the caller already checked exclusivity); otherwise the
// keys are looked up here and all but the first (by line) are reported.
//
// It returns the secret, the source key and the reference (resolved path or
// variable name). On failure the secret is nil, the source key is still
// returned and marked bad in t, so that Validate does not report it again.
// No message ever contains secret material.
func (d *decoder) secret(t *table, base string, sources []string) (Secret, string, string) {
	if sources == nil {
		sources = d.exclusive(t, base, base+"-file", base+"-env")
	}
	if len(sources) == 0 {
		return nil, "", ""
	}
	key := sources[0]
	line := t.lineOf(key)
	v, _ := t.get(key)
	s, ok := v.(string)
	if !ok {
		// Never print the value: it may be a secret of the wrong type.
		t.typeErr(key, "string", v)
		return nil, key, ""
	}
	switch key {
	case base:
		d.warnf(line, "%s: inline secrets are discouraged; use %s-file or %s-env", key, base, base)
		return Secret(s), key, ""
	case base + "-file":
		if s == "" {
			t.invalid(key, "empty file name")
			return nil, key, ""
		}
		path := s
		if !filepath.IsAbs(path) {
			path = filepath.Join(d.dir, path)
		}
		sec, warn, err := readSecretFile(path)
		if err != nil {
			t.invalid(key, "%v", err)
			return nil, key, path
		}
		if warn != "" {
			d.warnf(line, "%s: %s", key, warn)
		}
		return sec, key, path
	default: // base-env
		val, name, ok := d.fromEnv(t, key)
		if !ok {
			return nil, key, name
		}
		return trimNewline([]byte(val)), key, name
	}
}

// readSecretFile reads a secret file: a regular file (symlinks followed),
// with exactly one trailing newline removed. warn is set when the file is
// readable by group or others. Errors name the path, never the contents.
func readSecretFile(path string) (sec Secret, warn string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read secret file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("secret file %s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read secret file: %w", err)
	}
	defer f.Close()
	// One buffer of the file's size (and a byte to see it end), so that
	// no grown-out copy of the secret is left behind unwiped; the secret
	// kept is an exact copy (a thousand peers' files hold no spare 512 B).
	buf := make([]byte, min(fi.Size()+1, maxSecretFile))
	defer clear(buf)
	data := buf[:0]
	r := io.LimitReader(f, maxSecretFile)
	for {
		if len(data) == cap(data) {
			if len(data) >= maxSecretFile {
				break
			}
			grown := make([]byte, len(data), min(2*cap(data)+512, maxSecretFile))
			copy(grown, data)
			clear(data)
			data = grown
			defer clear(grown)
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("cannot read secret file %s: %v", path, errNoContents(err))
		}
	}
	if perm := fi.Mode().Perm(); perm&0o044 != 0 {
		warn = fmt.Sprintf("secret file %s is readable by group or others (mode %04o); chmod 600 it", path, perm)
	}
	return slices.Clone(trimNewline(data)), warn, nil
}

// errNoContents keeps only the operation and path of an I/O error.
func errNoContents(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s: %v", pe.Op, pe.Err)
	}
	return err
}

// trimNewline removes exactly one trailing "\n" or "\r\n".
func trimNewline(b []byte) Secret {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		b = b[:len(b)-2]
	case bytes.HasSuffix(b, []byte("\n")):
		b = b[:len(b)-1]
	}
	return Secret(b)
}
