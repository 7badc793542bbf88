// Package layout holds the tests that keep the repository's package layout
// (docs/ARCHITECTURE.md): codecs must not depend on the daemon's runtime.
package layout
