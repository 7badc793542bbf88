package metrics

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// gobgpModule is the module whose version authbgpd_build_info{gobgp} shows.
const gobgpModule = "github.com/osrg/gobgp/v3"

// splitBanner returns the version, gobgp and go labels of
// authbgpd_build_info from version: the banner "authbgpd V (gobgp G, GO)"
// is split; anything else is the version label as is, with GoBGP's version
// and Go's read from the binary.
func splitBanner(version string) (v, gobgp, goVersion string) {
	v, gobgp, goVersion = version, linkedGoBGP(), runtime.Version()
	rest, ok := strings.CutPrefix(version, "authbgpd ")
	if !ok {
		return v, gobgp, goVersion
	}
	ver, paren, ok := strings.Cut(rest, " (gobgp ")
	if !ok {
		return v, gobgp, goVersion
	}
	g, gov, ok := strings.Cut(strings.TrimSuffix(paren, ")"), ", ")
	if !ok {
		return v, gobgp, goVersion
	}
	return ver, g, gov
}

// linkedGoBGP is the version of GoBGP linked into this binary ("unknown"
// when the build info does not say).
func linkedGoBGP() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == gobgpModule {
				return d.Version
			}
		}
	}
	return "unknown"
}
