package config

import (
	"testing"

	"github.com/sirupsen/logrus"
)

// TestNewLogger: [log] sets the level and format; the command line's
// values rule what they set; a bad one is an error naming it.
func TestNewLogger(t *testing.T) {
	c := mustParse(t, G+"[log]\nlevel = \"warn\"\nformat = \"json\"\n")
	l, err := NewLogger(c, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Formatter.(*logrus.JSONFormatter); !ok || l.GetLevel() != logrus.WarnLevel {
		t.Fatalf("[log]: level %v, formatter %T", l.GetLevel(), l.Formatter)
	}
	l, err = NewLogger(c, "debug", "text")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Formatter.(*logrus.TextFormatter); !ok || l.GetLevel() != logrus.DebugLevel {
		t.Fatalf("overrides: level %v, formatter %T", l.GetLevel(), l.Formatter)
	}
	if _, err := NewLogger(c, "loud", ""); err == nil || err.Error() != `log level "loud": not a valid logrus Level: "loud"` {
		t.Fatalf("bad level: %v", err)
	}
	if _, err := NewLogger(c, "", "xml"); err == nil || err.Error() != `log format "xml": want text or json` {
		t.Fatalf("bad format: %v", err)
	}
}
