// Package layout holds the tests that keep the repository's package layout
// (docs/ARCHITECTURE.md): codecs must not depend on the daemon's runtime,
// leaves import nothing of ours, and what ARCHITECTURE.md says each
// package imports is what it imports.
package layout
