package dropwatch

import "github.com/authbgp/authbgpd/kdrops"

// The diagnoses of status.KernelDrops.Diagnosis: the kernel's verdict
// named like the shadow checker's (status.Shadow.Diagnosis).
const (
	DiagBadDigest  = "bad-digest"  // kdrops.BadDigest
	DiagMissing    = "missing"     // kdrops.Missing, kdrops.AORequired
	DiagUnexpected = "unexpected"  // kdrops.Unexpected
	DiagBadOption  = "bad-option"  // kdrops.BadOption
	DiagBadMAC     = "bad-mac"     // kdrops.AOBad
	DiagUnknownKey = "unknown-key" // kdrops.AOKeyNotFound
)

// Diagnosis returns the diagnosis that r gives ("" for no reason).
func Diagnosis(r kdrops.Reason) string {
	switch r {
	case kdrops.BadDigest:
		return DiagBadDigest
	case kdrops.Missing, kdrops.AORequired:
		return DiagMissing
	case kdrops.Unexpected:
		return DiagUnexpected
	case kdrops.BadOption:
		return DiagBadOption
	case kdrops.AOBad:
		return DiagBadMAC
	case kdrops.AOKeyNotFound:
		return DiagUnknownKey
	}
	return ""
}

// Text returns the words the log uses for r: "bad TCP-MD5 digest", ...
func Text(r kdrops.Reason) string {
	switch r {
	case kdrops.BadDigest:
		return "bad TCP-MD5 digest"
	case kdrops.Missing:
		return "no TCP-MD5 signature"
	case kdrops.Unexpected:
		return "unexpected TCP-MD5 signature"
	case kdrops.BadOption:
		return "bad TCP option"
	case kdrops.AOBad:
		return "bad TCP-AO MAC"
	case kdrops.AOKeyNotFound:
		return "unknown TCP-AO key"
	case kdrops.AORequired:
		return "no TCP-AO signature"
	}
	return r.String()
}

// counts are drop counts indexed by kdrops.Reason (index 0 unused).
type counts [8]uint64

func (c *counts) total() uint64 {
	var n uint64
	for _, v := range c {
		n += v
	}
	return n
}

// valid reports whether r is a reason counts can hold.
func valid(r kdrops.Reason) bool { return r.Valid() && int(r) < len(counts{}) }

// aoMoved reports whether c has a TCP-AO-only reason.
func (c *counts) aoMoved() bool {
	return c[kdrops.AOBad] != 0 || c[kdrops.AOKeyNotFound] != 0 || c[kdrops.AORequired] != 0
}
