package config

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDesignExample parses the configuration example of docs/CONTRACTS.md,
// copied to testdata/design.toml (its secret files are in testdata): the
// copy must stay exact.
func TestDesignExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/CONTRACTS.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	start := strings.Index(s, "## Configuration")
	i := strings.Index(s[max(start, 0):], "```toml\n")
	if start < 0 || i < 0 {
		t.Fatal("docs/CONTRACTS.md has no ## Configuration section with a toml block")
	}
	s = s[start+i+len("```toml\n"):]
	s = s[:strings.Index(s, "```")]
	got, err := os.ReadFile("testdata/design.toml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != s {
		t.Errorf("testdata/design.toml differs from the example in docs/CONTRACTS.md")
	}

	c, err := Load("testdata/design.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("re-validate: %v", err)
	}
	if n := c.Networks; len(n) != 1 || n[0].ID() != "198.51.100.0/24" || len(n[0].Communities) != 1 || n[0].Communities[0].String() != "65001:100" {
		t.Errorf("networks: %+v", n)
	}
	g := c.Global
	if g.ASN != 65001 || g.RouterID != netip.MustParseAddr("192.0.2.1") || g.ListenPort != 179 ||
		!slices.Equal(g.ListenAddresses, DefaultListenAddresses()) {
		t.Errorf("global: %+v", g)
	}
	if c.API.GRPC != "127.0.0.1:50051" || c.API.HTTP != "127.0.0.1:9179" || c.Log.Level != "info" || c.Log.Format != "text" {
		t.Errorf("api/log: %+v %+v", c.API, c.Log)
	}
	kc := c.Keychain("core")
	if kc == nil || len(kc.Keys) != 1 {
		t.Fatalf("keychains: %+v", c.Keychains)
	}
	k := kc.Keys[0]
	if k.ID != 1 || string(k.Secret) != "core-key-one" || k.SecretSource != SourceSecretFile ||
		!k.SendFrom.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) || k.Line != 17 {
		t.Errorf("key: %+v", k)
	}
	if len(c.Peers) != 1 {
		t.Fatalf("peers: %+v", c.Peers)
	}
	p := c.Peers[0]
	if p.ID() != "192.0.2.2" || p.ASN != 65002 || string(p.Password) != "s3cret" || p.Auth() != (Auth{Mode: AuthMD5, Source: SourcePassword}) ||
		p.LocalAddress != netip.MustParseAddr("192.0.2.1") || p.Passive || p.MultihopTTL != 0 ||
		!slices.Equal(p.Families, []Family{IPv4Unicast}) || p.MaxPrefixes != 1000 || p.MaxPrefixesWarning != 90 || p.Line != 22 || p.LineOf("password") != 26 {
		t.Errorf("peer: %+v", p)
	}
	if !slices.Equal(p.ImportPolicyList, []string{"drop-bogons"}) || c.Policies.Policy("drop-bogons") == nil ||
		c.EffectivePolicy(&p).DefaultExport != AcceptRoute {
		t.Errorf("peer policies: %+v, %+v", p, c.Policies)
	}
	if s := c.Shadow; !s.Enabled || s.EffectiveMode() != ShadowAlways || len(s.Interfaces) != 0 || s.FollowPeerRollover {
		t.Errorf("shadow: %+v", s)
	}
	if len(c.SRv6.HMACKeys) != 1 {
		t.Fatalf("hmac keys: %+v", c.SRv6.HMACKeys)
	}
	h := c.SRv6.HMACKeys[0]
	if h.ID != 42 || h.Algorithm != "sha256" || string(h.Secret) != "srv6-hmac-secret-42" {
		t.Errorf("hmac key: %+v", h)
	}
	if len(c.SRv6.Policies) != 1 {
		t.Fatalf("policies: %+v", c.SRv6.Policies)
	}
	pol := c.SRv6.Policies[0]
	if pol.Name != "gold-to-pe3" || pol.Color != 100 || pol.Endpoint != netip.MustParseAddr("2001:db8::3") ||
		pol.Distinguisher != 1 || pol.Preference != 100 || pol.BindingSID != netip.MustParseAddr("fc00:0:1:b6::100") ||
		!slices.Equal(pol.Segments, []netip.Addr{netip.MustParseAddr("fc00:0:2::1"), netip.MustParseAddr("fc00:0:3::1")}) ||
		pol.HMACKeyID != 42 || !slices.Equal(pol.Headends, []netip.Addr{netip.MustParseAddr("192.0.2.3")}) {
		t.Errorf("policy: %+v", pol)
	}
	if he := c.SRv6.Headend; he.Enabled || he.Source != netip.MustParseAddr("2001:db8:1::1") || !he.SteerEndpoint {
		t.Errorf("headend: %+v", he)
	}
	// Warnings: the inline password, the unused keychain, and (depending on
	// how the checkout set permissions) readable secret files.
	var warns []string
	for _, w := range c.Warnings {
		if !strings.Contains(w.Msg, "readable by group or others") {
			warns = append(warns, w.String())
		}
	}
	want := []string{
		`testdata/design.toml:16: keychain "core" is not used by any peer`,
		`testdata/design.toml:26: password: inline secrets are discouraged; use password-file or password-env`,
	}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings:\n  %s", strings.Join(warns, "\n  "))
	}
}

// TestTestdata parses every testdata file: bad*.toml must fail with every
// error on a line of the file, the others must load.
func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.toml")
	if len(files) < 4 {
		t.Fatalf("testdata: %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parse(f, data, testEnv, testNow)
		if strings.HasPrefix(filepath.Base(f), "bad") {
			errs := Errors(err)
			if len(errs) < 15 {
				t.Errorf("%s: %d errors:\n%v", f, len(errs), err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: re-validate: %v", f, err)
		}
	}
}
