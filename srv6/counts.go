package srv6

import "github.com/authbgp/authbgpd/srv6policy"

// SRHCounts are the verdicts of SRH HMACs checked offline (verify-pcap's
// "srh" report).
type SRHCounts struct {
	Valid   uint64 `json:"valid"`
	Invalid uint64 `json:"invalid"`
	// NoHMAC: the SRH carries no HMAC TLV the kernel would look at.
	NoHMAC uint64 `json:"no_hmac"`
	// UnknownKey: the HMAC TLV names a key ID we do not have.
	UnknownKey uint64 `json:"unknown_key"`
}

// Add counts one verdict of srv6policy.VerifySRH (whose key ID it ignores).
func (c *SRHCounts) Add(v srv6policy.Verdict, _ uint32) {
	switch v {
	case srv6policy.VerdictValid:
		c.Valid++
	case srv6policy.VerdictInvalid:
		c.Invalid++
	case srv6policy.VerdictNoHMAC:
		c.NoHMAC++
	case srv6policy.VerdictUnknownKey:
		c.UnknownKey++
	}
}

// Total is the number of SRHs counted.
func (c SRHCounts) Total() uint64 { return c.Valid + c.Invalid + c.NoHMAC + c.UnknownKey }
