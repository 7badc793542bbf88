package config

import (
	"fmt"
	"os"
	"time"

	"github.com/sirupsen/logrus"
)

// NewLogger builds the daemon's logger (on stderr) from c's [log] and the
// command line's overrides: level and format, when not "", rule what they
// set. Start-up and a reload of [log] build it alike.
func NewLogger(c *Config, level, format string) (*logrus.Logger, error) {
	l := logrus.New()
	l.SetOutput(os.Stderr)
	if level == "" {
		level = c.Log.Level
	}
	if format == "" {
		format = c.Log.Format
	}
	lv, err := logrus.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("log level %q: %w", level, err)
	}
	l.SetLevel(lv)
	switch format {
	case "json":
		l.SetFormatter(&logrus.JSONFormatter{TimestampFormat: time.RFC3339Nano})
	case "text", "":
		l.SetFormatter(&logrus.TextFormatter{FullTimestamp: true, TimestampFormat: time.RFC3339Nano, DisableColors: true})
	default:
		return nil, fmt.Errorf("log format %q: want text or json", format)
	}
	return l, nil
}

// LogWarnings logs c's warnings (at start-up and at each reload), one line
// each: "FILE:LINE: message".
func (c *Config) LogWarnings(l logrus.FieldLogger) {
	for _, w := range c.Warnings {
		l.Warn(w.String())
	}
}
