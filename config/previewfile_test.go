package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckPreviewable: a file beside the daemon's config file may be
// previewed, by an absolute or a relative name; any other is refused,
// naming the directory allowed.
func TestCheckPreviewable(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "authbgpd.toml")
	for _, ok := range []string{filepath.Join(dir, "next.toml"), filepath.Join(dir, "sub", "..", "next.toml"), cfg} {
		if err := CheckPreviewable(cfg, ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"/etc/shadow", filepath.Join(dir, "sub", "next.toml"), filepath.Join(filepath.Dir(dir), "next.toml")} {
		err := CheckPreviewable(cfg, bad)
		if err == nil || !strings.Contains(err.Error(), "refused: the daemon previews only files in the directory of its config file ("+dir+")") {
			t.Errorf("%s: %v, want a refusal", bad, err)
		}
	}
}
