package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics, that a config it accepts
// validates again, and that every error names a line of the file.
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.toml")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(""))
	f.Add([]byte(G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword = \"x\"\n"))
	f.Add([]byte(G + "[[peers]]\ninterface = \"swp1\"\nvrf = \"blue\"\nasn = 2\nlocal-address = \"fe80::1\"\n"))
	f.Add([]byte(G + "[[peers]]\nprefix = \"10.0.0.0/8\"\nvrf = \"blue\"\nasn = 2\n[[peers]]\naddress = \"10.0.0.1\"\nvrf = \"red\"\nasn = 3\n"))
	f.Add([]byte(G + "[shadow]\nmode = \"on-demand\"\non-demand-window = \"20s\"\non-demand-segments = 1000\n"))
	f.Add([]byte(G + "[shadow]\nenabled = true\nmode = \"on-demand\"\non-demand-window = \"1h\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Secret files resolve under testdata (the seeds name testdata/secrets/*).
		const name = "testdata/fuzz.toml"
		c, err := parse(name, data, testEnv, testNow)
		if err == nil {
			if c == nil {
				t.Fatal("nil config without error")
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("accepted config does not validate again: %v", err)
			}
			assertNoChanges(t, "Diff(c, c)", c, Diff(c, c))
			// The same text parsed again is a different value with equal
			// contents (what a reload of an untouched file compares).
			c2, err := parse(name, data, testEnv, testNow)
			if err != nil {
				t.Fatalf("the same config parsed twice: second parse failed: %v", err)
			}
			assertNoChanges(t, "Diff(c, parse again)", c2, Diff(c, c2))
			return
		}
		if c != nil {
			t.Fatal("config returned with an error")
		}
		n := lineCount(data)
		errs := Errors(err)
		if len(errs) == 0 {
			t.Fatalf("error without *Error: %v", err)
		}
		for _, e := range errs {
			if e.File != name || e.Line < 1 || e.Line > n {
				t.Fatalf("error %q: file %q line %d, file has %d lines", e, e.File, e.Line, n)
			}
		}
	})
}

// assertNoChanges checks that ch, the Diff of a configuration with itself
// (new is the second argument given to Diff), reports nothing: no global,
// keychain or SRv6 change, no peer added, removed or changed, and every
// peer of new, in order, Unchanged.
func assertNoChanges(t *testing.T, what string, new *Config, ch Changes) {
	t.Helper()
	if len(ch.Added) != 0 || len(ch.Removed) != 0 || len(ch.Changed) != 0 {
		for _, pc := range ch.Changed {
			t.Logf("%s: peer %s changed: %v (key changed %t)", what, pc.ID, pc.Fields, pc.KeyChanged)
		}
		t.Fatalf("%s: %d peers added, %d removed, %d changed; want none", what, len(ch.Added), len(ch.Removed), len(ch.Changed))
	}
	if len(ch.Unchanged) != len(new.Peers) {
		t.Fatalf("%s: %d peers unchanged, want all %d", what, len(ch.Unchanged), len(new.Peers))
	}
	for i, p := range ch.Unchanged {
		if p != &new.Peers[i] {
			t.Fatalf("%s: Unchanged[%d] is peer %s, want peer %d of the new config (%s)", what, i, p.ID(), i, new.Peers[i].ID())
		}
	}
	if !ch.Empty() {
		t.Fatalf("%s: Changes not empty: %+v", what, ch)
	}
	// Empty covers these; named here so that a field Empty forgets is
	// still caught.
	for name, changed := range map[string]bool{
		"asn": ch.ASN, "router-id": ch.RouterID, "listen-port": ch.ListenPort, "listen-addresses": ch.ListenAddresses,
		"api": ch.API, "log": ch.Log, "shadow": ch.Shadow, "srv6.headend": ch.Headend,
		"keychains":      len(ch.KeychainsAdded)+len(ch.KeychainsRemoved)+len(ch.KeychainsChanged) > 0,
		"srv6.hmac-keys": len(ch.HMACKeysAdded)+len(ch.HMACKeysRemoved)+len(ch.HMACKeysChanged) > 0,
		"srv6.policies":  len(ch.PoliciesAdded)+len(ch.PoliciesRemoved)+len(ch.PoliciesChanged) > 0,
	} {
		if changed {
			t.Fatalf("%s: %s reported changed", what, name)
		}
	}
}
