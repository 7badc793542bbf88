package config

import (
	"fmt"
	"path/filepath"
)

// CheckPreviewable says whether a daemon whose config file is configFile
// may preview file (POST /-/reload with dry_run and a file, `check
// --diff`): only a file in the directory of its config file, so the API
// cannot make the daemon read (and quote in errors) any file on the host.
func CheckPreviewable(configFile, file string) error {
	dir, err := filepath.Abs(filepath.Dir(configFile))
	if err != nil {
		return fmt.Errorf("preview of %s: %w", file, err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return fmt.Errorf("preview of %s: %w", file, err)
	}
	if filepath.Dir(abs) != dir {
		return fmt.Errorf("preview of %s: refused: the daemon previews only files in the directory of its config file (%s)", file, dir)
	}
	return nil
}
