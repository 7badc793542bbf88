package srv6

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/srv6policy"
)

// srhWith is an encap SRH from src, HMAC'd with key 42 and secret.
func srhWith(t *testing.T, src netip.Addr, secret string) []byte {
	t.Helper()
	key, err := srv6policy.NewKey(42, srv6policy.SHA256, []byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	srh, _ := srv6policy.EncapSRH([]netip.Addr{netip.MustParseAddr("fc00::1")}, 42)
	pc, err := key.Precompute(src, srh)
	if err != nil {
		t.Fatal(err)
	}
	return pc.SRH()
}

// TestRefusedKeyChangeVerifier: a refused change of a key in use leaves
// the SRH verifier on the secret the kernel still has (our own headend's
// packets stay valid), not on the new config's.
func TestRefusedKeyChangeVerifier(t *testing.T) {
	ctx := context.Background()
	f := newSRv6Fixture(t, mustConfig(t, srv6Global+srv6Key(42, "secret-42")+polA))
	if err := f.s.start(ctx, f.host); err != nil {
		t.Fatal(err)
	}
	defer f.s.Stop(ctx)
	v := f.s.Verifier()
	if !v.Enabled() {
		t.Fatal("verifier not enabled with a key")
	}
	src := netip.MustParseAddr("2001:db8::1")
	v.Check(src, srhWith(t, src, "secret-42"), false)
	if got := srhCount(t, f.m, "42", "valid"); got != 1 {
		t.Fatalf("before: valid{42} = %v", got)
	}
	err := f.s.Reload(ctx, mustConfig(t, srv6Global+srv6Key(42, "CHANGED-42")+polA))
	if err == nil || !strings.Contains(err.Error(), "rotate to a NEW key ID") {
		t.Fatalf("reload: %v", err)
	}
	if f.keys.keys[42] != "sha256/secret-42" {
		t.Fatalf("key 42 in the kernel: %q", f.keys.keys[42])
	}
	if logs := f.logs.String(); !strings.Contains(logs, "srv6: reload") || !strings.Contains(logs, `keys_changed="[42]"`) || strings.Contains(logs, "CHANGED") {
		t.Errorf("the reload's changes are not logged by key ID:\n%s", logs)
	}
	v.Check(src, srhWith(t, src, "secret-42"), false)
	if valid, invalid := srhCount(t, f.m, "42", "valid"), srhCount(t, f.m, "42", "invalid"); valid != 2 || invalid != 0 {
		t.Fatalf("after the refused change: valid{42} = %v, invalid{42} = %v; want 2 and 0 (the kernel's secret verifies)", valid, invalid)
	}
}

// TestFailedKeyChangeNotOrphaned: when the kernel refuses a changed key
// (not in use), the old key it still holds is still ours: Stop removes it,
// and the SRH verifier keeps verifying with it.
func TestFailedKeyChangeNotOrphaned(t *testing.T) {
	ctx := context.Background()
	f := newSRv6Fixture(t, mustConfig(t, srv6Global+srv6Key(42, "secret-42")))
	if err := f.s.start(ctx, f.host); err != nil {
		t.Fatal(err)
	}
	f.o.take()
	boom := errors.New("set HMAC key 42: no buffer space")
	f.keys.setErr = boom
	if err := f.s.Reload(ctx, mustConfig(t, srv6Global+srv6Key(42, "CHANGED-42"))); !errors.Is(err, boom) {
		t.Fatalf("reload: %v", err)
	}
	if k := f.s.Status().HMACKeys[0]; k.Installed || !strings.Contains(k.Error, "no buffer space") {
		t.Fatalf("status key 42: %+v", k)
	}
	src := netip.MustParseAddr("2001:db8::1")
	f.s.Verifier().Check(src, srhWith(t, src, "secret-42"), false)
	if got := srhCount(t, f.m, "42", "valid"); got != 1 {
		t.Errorf("valid{42} = %v: the verifier does not use the key the kernel holds", got)
	}
	f.keys.setErr = nil
	if err := f.s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if l := f.o.take(); index(l, "key del 42") < 0 || len(f.keys.keys) != 0 {
		t.Fatalf("Stop left key 42 in the kernel: ops %q, keys %v", l, f.keys.keys)
	}
}

// TestKeyCopiesWiped: the key table's copy of a secret (what the kernel
// holds) is wiped when the secret changes, when the key is removed from the
// configuration and at Stop, not left for the garbage collector.
func TestKeyCopiesWiped(t *testing.T) {
	ctx := context.Background()
	f := newSRv6Fixture(t, mustConfig(t, srv6Global+srv6Key(42, "secret-42")+srv6Key(43, "secret-43")))
	if err := f.s.start(ctx, f.host); err != nil {
		t.Fatal(err)
	}
	copyOf := func(id uint32) []byte {
		f.s.mu.Lock()
		defer f.s.mu.Unlock()
		k := f.s.keys.keys[id]
		if k == nil || !k.installed || len(k.secret) == 0 {
			t.Fatalf("key %d is not installed with a secret", id)
		}
		return k.secret
	}
	wiped := func(what string, b []byte) {
		t.Helper()
		for _, c := range b {
			if c != 0 {
				t.Errorf("%s: the old copy of the secret is not wiped", what)
				return
			}
		}
	}
	old42 := copyOf(42)
	if err := f.s.Reload(ctx, mustConfig(t, srv6Global+srv6Key(42, "CHANGED-42")+srv6Key(43, "secret-43"))); err != nil {
		t.Fatalf("reload: %v", err)
	}
	wiped("changed secret", old42)
	if got := copyOf(42); string(got) != "CHANGED-42" {
		t.Fatalf("key 42 holds %d bytes, not the changed secret", len(got))
	}
	old42, old43 := copyOf(42), copyOf(43)
	if err := f.s.Reload(ctx, mustConfig(t, srv6Global+srv6Key(43, "secret-43"))); err != nil {
		t.Fatalf("reload: %v", err)
	}
	wiped("removed key", old42)
	if err := f.s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	wiped("Stop", old43)
}
