package config

import (
	"errors"
	"fmt"
	"sort"
)

// Error is one problem in a configuration file, at a line. Load, Parse and
// Validate return every problem at once, joined with errors.Join; use
// Errors (or errors.As on each joined error) to list them.
type Error struct {
	File string
	Line int // 1-based; 0 when unknown (a Config built in code)
	Msg  string
}

// Error formats the problem as "FILE:LINE: message".
func (e *Error) Error() string { return position(e.File, e.Line) + e.Msg }

// Warning is something legal but discouraged in a configuration file.
// Warnings never contain secrets.
type Warning struct {
	File string
	Line int
	Msg  string
}

// String formats the warning as "FILE:LINE: message".
func (w Warning) String() string { return position(w.File, w.Line) + w.Msg }

func position(file string, line int) string {
	switch {
	case file == "" && line <= 0:
		return ""
	case line <= 0:
		return file + ": "
	default:
		return fmt.Sprintf("%s:%d: ", file, line)
	}
}

// Errors returns the *Error values inside err (as returned by Load, Parse
// or Validate), in order. Errors of other types are wrapped into an *Error
// without a position.
func Errors(err error) []*Error {
	if err == nil {
		return nil
	}
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if e, ok := err.(*Error); ok {
			out = append(out, e)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var e *Error
		if errors.As(err, &e) {
			out = append(out, e)
			return
		}
		out = append(out, &Error{Msg: err.Error()})
	}
	walk(err)
	return out
}

// problems collects errors and warnings for one file.
type problems struct {
	file  string
	errs  []*Error
	warns []Warning
}

func (p *problems) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *problems) warnf(line int, format string, args ...any) {
	p.warns = append(p.warns, Warning{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// err joins the collected errors, sorted by line (stable), or returns nil.
func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Line < p.errs[j].Line })
	errs := make([]error, len(p.errs))
	for i, e := range p.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

func (p *problems) sortedWarnings() []Warning {
	sort.SliceStable(p.warns, func(i, j int) bool { return p.warns[i].Line < p.warns[j].Line })
	return p.warns
}
