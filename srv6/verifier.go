package srv6

import (
	"net/netip"
	"sync/atomic"

	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/srv6policy"
)

// SRHVerifier verifies the SRH HMACs the shadow checker captures and counts
// them in authbgpd_srh_hmac_total (it is a shadow.SRHChecker). Its keys are
// the ones the kernel holds, set by the Manager. Check runs on the capture
// goroutine only; the keys may change concurrently.
type SRHVerifier struct {
	m       *metrics.Metrics
	enabled atomic.Bool
	keys    atomic.Pointer[map[uint32]*srv6policy.Key]
	// The capture goroutine's own: counters by key ID (0: no HMAC), taken
	// afresh whenever the keys change (a removed key's series are gone).
	ctr    map[uint32]*metrics.HMACCounters
	ctrFor *map[uint32]*srv6policy.Key
}

func newSRHVerifier(m *metrics.Metrics) *SRHVerifier {
	v := &SRHVerifier{m: m, ctr: map[uint32]*metrics.HMACCounters{}}
	v.setKeys(map[uint32]*srv6policy.Key{}, false)
	return v
}

// setKeys replaces the keys; enabled says whether SRHs are to be verified
// at all (keys are configured).
func (v *SRHVerifier) setKeys(keys map[uint32]*srv6policy.Key, enabled bool) {
	v.keys.Store(&keys)
	v.enabled.Store(enabled)
}

// Enabled reports whether any key is configured.
func (v *SRHVerifier) Enabled() bool { return v.enabled.Load() }

// Check verifies one captured SRH sent from outer source src. Frames going
// out are checked only when freshly encapsulated (Segments Left = Last
// Entry: our own headend's packets, Binding SID packets included), so that
// a packet an SRv6 endpoint of this router forwards is counted once, on
// the way in. (One that a plain IPv6 router forwards untouched, its first
// segment not yet reached, is seen, and counted, both ways.)
func (v *SRHVerifier) Check(src netip.Addr, srh []byte, outgoing bool) {
	if outgoing && (len(srh) < 5 || srh[3] != srh[4]) {
		return
	}
	keys := v.keys.Load()
	if keys != v.ctrFor {
		clear(v.ctr)
		v.ctrFor = keys
	}
	verdict, id := srv6policy.VerifySRH(*keys, src, srh)
	c := v.ctr[id]
	if c == nil {
		if len(v.ctr) >= metrics.MaxSRHKeyIDs {
			clear(v.ctr) // IDs off the wire: bounded (metrics folds them into "other")
		}
		c = v.m.SRHCounters(id)
		v.ctr[id] = c
	}
	switch verdict {
	case srv6policy.VerdictValid:
		c.Valid.Inc()
	case srv6policy.VerdictInvalid:
		c.Invalid.Inc()
	case srv6policy.VerdictNoHMAC:
		c.NoHMAC.Inc()
	case srv6policy.VerdictUnknownKey:
		c.UnknownKey.Inc()
	}
}
