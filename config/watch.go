package config

import (
	"path/filepath"
	"slices"
)

// DefaultWatch is [config] watch when absent: the daemon follows its files.
const DefaultWatch = true

// ConfigTable is the [config] table: how the daemon treats its own files.
type ConfigTable struct {
	// Watch: a change to the config file or to any *-file secret it names
	// (password-file, secret-file; symlinks followed, as the kubelet's
	// Secret volumes swap them) reloads the config as SIGHUP does.
	Watch bool
	Line  int
	m     meta
}

// LineOf returns the line of key in [config], or the table's line.
func (c *ConfigTable) LineOf(key string) int { return c.m.lineOf(key, c.Line) }

// configTable decodes [config].
func (d *decoder) configTable(rt *table, c *ConfigTable) {
	t, _ := rt.subTable("config", "[config]", &c.m)
	c.Line = t.line
	c.Watch = DefaultWatch
	if b, ok := t.boolean("watch"); ok {
		c.Watch = b
	}
	t.finish()
}

// Files lists the files the configuration was read from: the config file
// itself, then every secret file it names (password-file, secret-file), as
// resolved (relative names joined to Dir), each once, in a stable order.
// Symlinks are not resolved: a watcher follows them itself.
func (c *Config) Files() []string {
	var out []string
	add := func(f string) {
		if f == "" {
			return
		}
		if a, err := filepath.Abs(f); err == nil {
			f = a
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	add(c.File)
	for _, p := range c.Peers {
		if p.PasswordSource == SourcePasswordFile {
			add(p.PasswordRef)
		}
	}
	for _, kc := range c.Keychains {
		for _, k := range kc.Keys {
			if k.SecretSource == SourceSecretFile {
				add(k.SecretRef)
			}
		}
	}
	for _, h := range c.SRv6.HMACKeys {
		if h.SecretSource == SourceSecretFile {
			add(h.SecretRef)
		}
	}
	return out
}
