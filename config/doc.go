// Package config is authbgpd's configuration: the TOML schema (kebab-case
// keys, unknown keys are errors), strict decoding with a line number for
// every problem, validation that reports every error at once, secret
// sources (inline, files, environment variables) and the difference between
// two configurations for reloads.
//
// Errors are *Error values ("FILE:LINE: message") joined with errors.Join;
// warnings are kept in Config.Warnings. Neither ever contains a secret:
// resolved secrets are held in Secret (keys.Secret), which redacts
// itself in every format. The package logs nothing.
package config
