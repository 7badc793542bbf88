package config

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Load reads the configuration file at path, decodes it strictly (unknown
// keys and wrong types are errors), resolves secrets (relative secret files
// are read from the file's directory) and validates it. Every problem is
// returned at once as errors.Join of *Error, each formatted "FILE:LINE:
// message" with FILE being path as given.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read config: %v", errNoContents(err))}
	}
	return Parse(path, data)
}

// Parse is Load from bytes. name prefixes messages, and relative secret
// files are read from filepath.Dir(name).
func Parse(name string, data []byte) (*Config, error) {
	return parse(name, data, os.LookupEnv, time.Now())
}

func parse(name string, data []byte, env func(string) (string, bool), now time.Time) (*Config, error) {
	p := &problems{file: name}
	root, pos, terr := decodeTOML(name, data)
	if terr != nil {
		return nil, terr
	}
	c := &Config{File: name, Dir: filepath.Dir(name)}
	d := &decoder{problems: p, pos: pos, dir: c.Dir, env: env}
	d.decode(root, c)
	c.validate(p)
	if err := p.err(); err != nil {
		return nil, err
	}
	c.lint(p, now)
	c.Warnings = p.sortedWarnings()
	return c, nil
}
