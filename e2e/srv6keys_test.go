//go:build linux

package e2e

import (
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/srv6policy"
	"github.com/authbgp/authbgpd/status"
)

// requireSRv6HMACKernel skips t, naming the missing feature (allowed under
// E2E_REQUIRED=1), when the running kernel has no IPv6 segment routing or
// no SRv6 HMAC key table (generic netlink family SEG6). ns is a namespace
// to probe from ("" for the test's own).
func requireSRv6HMACKernel(t testing.TB, ns string) {
	t.Helper()
	testenv.RequireSRv6HMAC(t) // segment routing, seg6 routes and HMAC; the SEG6 family answers without HMAC too (ENOTSUPP)
	probe := func() error {
		kk, err := srv6policy.OpenKernelKeys()
		if err != nil {
			return err
		}
		return kk.Close()
	}
	var err error
	if ns == "" {
		err = probe()
	} else {
		err = netns.Do(ns, probe)
	}
	if errors.Is(err, srv6policy.ErrNoKernelSupport) {
		testenv.SkipKernelLacks(t, "SRv6 HMAC (genetlink SEG6)", err.Error())
	}
	if err != nil {
		t.Fatalf("probing the kernel's SRv6 HMAC key table: %v", err)
	}
}

// waitHMACKeyIDs polls a's /status until srv6.hmac_keys lists exactly the
// key IDs want, for up to d (a /status taken while the SRv6 pass holds its
// lock, before its first snapshot, lists no keys). It returns the last list.
func waitHMACKeyIDs(a *Authbgpd, want []uint32, d time.Duration) []status.HMACKey {
	var keys []status.HMACKey
	_ = poll(d, func() error {
		keys = a.Status().SRv6.HMACKeys
		return holds(sameIDs(keys, want))
	})
	return keys
}

func sameIDs(keys []status.HMACKey, want []uint32) bool {
	if len(keys) != len(want) {
		return false
	}
	got := make([]uint32, len(keys))
	for i, k := range keys {
		got[i] = k.ID
	}
	w := append([]uint32(nil), want...)
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
	for i := range got {
		if got[i] != w[i] {
			return false
		}
	}
	return true
}

// requireSRv6Keys decides whether the SRv6 checks of a test can run from
// what /status lists (keys) and what the daemon's configuration holds
// (configured key IDs). They must run when the configuration has keys: an
// empty /status then is a failure, never a silent pass. With no configured
// keys they cannot run: a failure under E2E_REQUIRED=1, else a logged
// no-op (false).
func requireSRv6Keys(t testing.TB, where string, keys []status.HMACKey, configured []uint32) bool {
	t.Helper()
	switch {
	case len(configured) > 0 && !sameIDs(keys, configured):
		t.Fatalf("%s: the configuration has SRv6 HMAC keys %v but /status srv6.hmac_keys is %s: the SRv6 checks must run", where, configured, hmacKeysString(keys))
	case len(configured) == 0 && len(keys) > 0:
		t.Fatalf("%s: /status srv6.hmac_keys is %s but the configuration has none", where, hmacKeysString(keys))
	case len(configured) == 0 && testenv.Required():
		t.Fatalf("E2E_REQUIRED=1 but %s: the configuration has no SRv6 HMAC keys, so the SRv6 checks cannot run", where)
	case len(configured) == 0:
		t.Logf("%s: no SRv6 HMAC keys configured: the SRv6 checks are inactive (E2E_REQUIRED=1 makes this a failure)", where)
		return false
	}
	return true
}

func hmacKeysString(keys []status.HMACKey) string {
	if len(keys) == 0 {
		return "empty"
	}
	return fmt.Sprintf("%+v", keys)
}
