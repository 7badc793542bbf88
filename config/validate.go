package config

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/authbgp/authbgpd/srv6policy"
	"github.com/authbgp/authbgpd/tcpao"
)

// Validate checks c and returns every problem at once (errors.Join of
// *Error), or nil. Load and Parse already call it; use it for a Config built
// or changed in code. Lines come from the file c was parsed from; for
// fields set in code they are 0.
func (c *Config) Validate() error {
	p := &problems{file: c.File}
	c.validate(p)
	return p.err()
}

var (
	logLevels  = []string{"debug", "info", "warn", "error"}
	logFormats = []string{"text", "json"}
	// algorithms are srv6policy's names, exactly (no case folding).
	algorithms = []string{srv6policy.SHA1.String(), srv6policy.SHA256.String()}
)

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func (c *Config) validate(p *problems) {
	c.validateGlobal(p)
	c.validateAPI(p)
	c.validateLog(p)
	c.validateKeychains(p)
	c.validatePeers(p)
	c.validateShadow(p)
	c.validateSRv6(p)
	c.validateNetworks(p) // networks.go
	c.validatePolicies(p) // policy.go
}

// missing reports a required key that is absent (or zero in code).
func missing(p *problems, m *meta, line int, table, key string) {
	if m.isBad(key) {
		return
	}
	if m.has(key) {
		p.errorf(m.lineOf(key, line), "%s: must not be empty", key)
		return
	}
	p.errorf(line, "%s: %s is missing", table, key)
}

func (c *Config) validateGlobal(p *problems) {
	g := &c.Global
	if g.m.broken {
		return
	}
	validateASN(p, &g.m, g.Line, "[global]", g.ASN)
	switch {
	case g.m.isBad("router-id"):
	case !g.RouterID.IsValid():
		missing(p, &g.m, g.Line, "[global]", "router-id")
	case !g.RouterID.Is4():
		p.errorf(g.LineOf("router-id"), "router-id: %s is not an IPv4 address", g.RouterID)
	case g.RouterID.IsUnspecified():
		p.errorf(g.LineOf("router-id"), "router-id: must not be 0.0.0.0")
	}
	if !g.m.isBad("listen-port") && (g.ListenPort < -1 || g.ListenPort == 0 || g.ListenPort > 65535) {
		p.errorf(g.LineOf("listen-port"), "listen-port: %d is out of range (1..65535, or -1 to not listen)", g.ListenPort)
	}
	if !g.m.isBad("listen-addresses") {
		if len(g.ListenAddresses) == 0 && g.ListenPort != -1 {
			p.errorf(g.LineOf("listen-addresses"), "listen-addresses: empty (set listen-port = -1 to not listen)")
		}
		seen := map[netip.Addr]bool{}
		for _, a := range g.ListenAddresses {
			if !a.IsValid() {
				p.errorf(g.LineOf("listen-addresses"), "listen-addresses: invalid address")
				continue
			}
			if seen[a] {
				p.errorf(g.LineOf("listen-addresses"), "listen-addresses: %s is listed twice", a)
			}
			seen[a] = true
		}
	}
}

func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT", s)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: port must be 1..65535", s)
	}
	if strings.ContainsAny(host, " \t/") {
		return fmt.Errorf("%q: bad host", s)
	}
	return nil
}

// isLoopbackHost reports whether HOST:PORT names a loopback host.
func isLoopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

func (c *Config) validateAPI(p *problems) {
	a := &c.API
	if a.m.broken {
		return
	}
	for _, kv := range []struct{ key, val string }{{"grpc", a.GRPC}, {"http", a.HTTP}} {
		if kv.val == "" || a.m.isBad(kv.key) {
			continue
		}
		if kv.key == "grpc" && strings.HasPrefix(kv.val, "unix://") {
			if path := strings.TrimPrefix(kv.val, "unix://"); !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \t,") {
				p.errorf(a.LineOf(kv.key), "grpc: %q: a unix socket needs an absolute path (unix:///run/authbgpd/gobgp.sock)", kv.val)
			}
			continue
		}
		if err := checkHostPort(kv.val); err != nil {
			p.errorf(a.LineOf(kv.key), "%s: %v (\"\" turns it off)", kv.key, err)
			continue
		}
		if kv.key == "grpc" && !a.GRPCAllowRemote && !isLoopbackHost(kv.val) {
			p.errorf(a.LineOf(kv.key), "grpc: %q listens outside loopback; GoBGP's API has no authentication and changes routes: use a loopback address, a unix:// socket, or set grpc-allow-remote = true", kv.val)
		}
	}
	if a.GRPC != "" && a.GRPC == a.HTTP {
		p.errorf(a.LineOf("http"), "http: same address as grpc (%s)", a.GRPC)
	}
}

func (c *Config) validateLog(p *problems) {
	l := &c.Log
	if l.m.broken {
		return
	}
	if !l.m.isBad("level") && !oneOf(l.Level, logLevels) {
		p.errorf(l.LineOf("level"), "level: unknown log level %q (want %s)", l.Level, strings.Join(logLevels, ", "))
	}
	if !l.m.isBad("format") && !oneOf(l.Format, logFormats) {
		p.errorf(l.LineOf("format"), "format: unknown log format %q (want %s)", l.Format, strings.Join(logFormats, ", "))
	}
}

// validateSecret checks a resolved secret's length.
func validateSecret(p *problems, m *meta, line int, table, base, source string, sec Secret, maxLen int) {
	if source == "" {
		p.errorf(line, "%s: no secret: set one of %s, %s-file, %s-env", table, base, base, base)
		return
	}
	if m.isBad(source) {
		return
	}
	if source != base && source != base+"-file" && source != base+"-env" {
		p.errorf(line, "%s: unknown secret source %q", table, source)
		return
	}
	switch {
	case len(sec) == 0:
		p.errorf(m.lineOf(source, line), "%s: secret is empty", source)
	case len(sec) > maxLen:
		p.errorf(m.lineOf(source, line), "%s: secret is %d bytes, longer than %d", source, len(sec), maxLen)
	}
}

// firstOf records that k was first seen at line in seen; when k was seen
// before, it reports format (with args) at line, followed by
// " (also at line N)" naming the first occurrence.
func firstOf[K comparable](p *problems, seen map[K]int, k K, line int, format string, args ...any) {
	if l, dup := seen[k]; dup {
		p.errorf(line, format+" (also at line %d)", append(args, l)...)
		return
	}
	seen[k] = line
}

// validateName checks the name key of one entry of a table of named
// entries and returns the label its errors use: table, or table "name".
func validateName(p *problems, m *meta, line int, table, name, what string, names map[string]int) string {
	switch {
	case m.isBad("name"):
	case name == "":
		missing(p, m, line, table, "name")
	default:
		firstOf(p, names, name, m.lineOf("name", line), "name: duplicate %s %q", what, name)
		return fmt.Sprintf("%s %q", table, name)
	}
	return table
}

// validateASN checks a required AS number.
func validateASN(p *problems, m *meta, line int, table string, asn uint32) {
	if asn != 0 {
		return
	}
	if m.has("asn") && !m.isBad("asn") {
		p.errorf(m.lineOf("asn", line), "asn: 0 is not a valid AS number (1..4294967295)")
		return
	}
	missing(p, m, line, table, "asn")
}

func (c *Config) validateKeychains(p *problems) {
	names := map[string]int{}
	for i := range c.Keychains {
		kc := &c.Keychains[i]
		table := validateName(p, &kc.m, kc.Line, "[[keychains]]", kc.Name, "keychain", names)
		if len(kc.Keys) == 0 && !kc.m.isBad("keys") {
			p.errorf(kc.LineOf("keys"), "%s: has no keys", table)
		}
		switch {
		case kc.m.isBad("type"):
		case kc.Type == KeychainTCPAO:
			validateAOKeys(p, table, kc.Keys)
		case kc.Type == KeychainMD5:
			noAOFields(p, table, kc.Keys)
			if kc.m.has("accept-icmps") {
				p.errorf(kc.LineOf("accept-icmps"), "accept-icmps: only a keychain of type = \"tcp-ao\" has it (%s is md5; TCP-MD5 sessions always act on ICMP errors)", table)
			}
		default:
			p.errorf(kc.LineOf("type"), "type: %q is not a keychain type (md5 or tcp-ao)", kc.Type)
		}
		validateKeys(p, table, kc.Keys, kc.IsTCPAO())
	}
}

// aoFields are the [[keychains.keys]] keys only TCP-AO keys have.
var aoFields = []string{"send-id", "recv-id", "algorithm", "mac-length", "include-tcp-options"}

// noAOFields refuses TCP-AO fields in a TCP-MD5 keychain's keys.
func noAOFields(p *problems, table string, keys []Key) {
	for j := range keys {
		for _, f := range aoFields {
			if keys[j].m.has(f) {
				p.errorf(keys[j].LineOf(f), "%s: only keys of a keychain of type = \"tcp-ao\" have it (%s is md5)", f, table)
			}
		}
	}
}

// validateAOKeys checks the TCP-AO fields of a TCP-AO keychain's keys: a
// known algorithm (hmac-sha-1-96 by default), a mac-length it can have,
// and no two keys sharing a send-id or a recv-id (RFC 5925 §3.1: the
// KeyIDs name the MKT).
func validateAOKeys(p *problems, table string, keys []Key) {
	send, recv := map[uint8]int{}, map[uint8]int{}
	for j := range keys {
		k := &keys[j]
		if !k.m.isBad("algorithm") && !oneOf(k.Algorithm, tcpaoAlgorithms) {
			p.errorf(k.LineOf("algorithm"), "algorithm: %q is not a TCP-AO algorithm (%s)", k.Algorithm, strings.Join(tcpaoAlgorithms, ", "))
		} else if !k.m.isBad("algorithm") && !k.m.isBad("mac-length") {
			validateMACLen(p, k)
		}
		if !k.m.isBad("send-id") && !k.m.isBad("id") {
			firstOf(p, send, k.SendID, k.LineOf("send-id"), "send-id: %d is used by two keys of %s", k.SendID, table)
		}
		if !k.m.isBad("recv-id") && !k.m.isBad("id") {
			firstOf(p, recv, k.RecvID, k.LineOf("recv-id"), "recv-id: %d is used by two keys of %s", k.RecvID, table)
		}
	}
}

// validateMACLen checks a TCP-AO key's mac-length against its (known)
// algorithm: 12 for the -96 names, else 4 up to the digest and at most 16.
func validateMACLen(p *problems, k *Key) {
	n, line := k.MACLen, k.LineOf("mac-length")
	digest := tcpaoDigest(k.Algorithm)
	switch {
	case strings.HasSuffix(k.Algorithm, "-96") && n != DefaultTCPAOMACLen:
		p.errorf(line, "mac-length: %s has a %d-byte MAC (RFC 5926), not %d; for another length use algorithm = %q", k.Algorithm, DefaultTCPAOMACLen, n, strings.TrimSuffix(k.Algorithm, "-96"))
	case n < MinTCPAOMACLen:
		p.errorf(line, "mac-length: %d is below %d bytes", n, MinTCPAOMACLen)
	case n > digest:
		p.errorf(line, "mac-length: %d is longer than the %d-byte digest of %s", n, digest, k.Algorithm)
	case n > MaxTCPAOMACLen:
		p.errorf(line, "mac-length: %d is more than Linux takes (%d: the TCP-AO option must fit a SYN)", n, MaxTCPAOMACLen)
	}
}

// tcpaoDigest is the digest size of a config algorithm name (bytes; 0
// for a name that is none).
func tcpaoDigest(alg string) int {
	a, err := tcpao.ParseAlgorithm(alg)
	if err != nil {
		return 0
	}
	return a.DigestSize()
}

// validateKeys checks the [[keychains.keys]] of the keychain table: ids
// unique, at most one key without send-from, no two keys starting at the
// same time.
func validateKeys(p *problems, table string, keys []Key, tcpao bool) {
	maxLen := MaxMD5SecretLen
	if tcpao {
		maxLen = MaxTCPAOSecretLen
	}
	ids := map[uint8]int{}
	var always *Key
	starts := map[time.Time]*Key{}
	for j := range keys {
		k := &keys[j]
		ktable := "[[keychains.keys]]"
		if k.m.parsed && !k.m.has("id") {
			p.errorf(k.Line, "%s: id is missing", ktable)
		} else if !k.m.isBad("id") {
			ktable = fmt.Sprintf("%s key %d", table, k.ID)
			firstOf(p, ids, k.ID, k.LineOf("id"), "id: duplicate key id %d in %s", k.ID, table)
		}
		validateSecret(p, &k.m, k.Line, ktable, SourceSecret, k.SecretSource, k.Secret, maxLen)
		if k.m.isBad("send-from") {
			continue
		}
		if k.SendFrom.IsZero() {
			if always != nil {
				p.errorf(k.Line, "%s: keys %d (line %d) and %d both have no send-from: only one key may be valid from the start",
					table, always.ID, always.Line, k.ID)
			}
			always = k
			continue
		}
		key := k.SendFrom.UTC()
		if o, dup := starts[key]; dup {
			p.errorf(k.LineOf("send-from"), "send-from: keys %d (line %d) and %d have the same send-from %s",
				o.ID, o.LineOf("send-from"), k.ID, k.SendFrom.Format(time.RFC3339))
		} else {
			starts[key] = k
		}
	}
}

func (c *Config) validatePeers(p *problems) {
	seen := map[string]*Peer{}
	for i := range c.Peers {
		pr := &c.Peers[i]
		table := validatePeerScope(p, pr)
		validatePeerIdentity(p, pr, seen)
		validateASN(p, &pr.m, pr.Line, table, pr.ASN)
		c.validatePeerAuth(p, pr, table)
		if pr.IsInterface() {
			validateInterfacePeer(p, pr)
		} else if a := pr.LocalAddress; a.IsValid() {
			peer := pr.Address
			if pr.Prefix.IsValid() {
				peer = pr.Prefix.Addr()
			}
			switch {
			case a.IsUnspecified() || a.IsMulticast():
				p.errorf(pr.LineOf("local-address"), "local-address: %s is not a unicast address", a)
			case peer.IsValid() && a.Is4() != peer.Is4():
				p.errorf(pr.LineOf("local-address"), "local-address: %s is not of the peer's address family", a)
			}
		}
		if pr.Prefix.IsValid() && !pr.Passive && !pr.m.isBad("passive") {
			p.errorf(pr.LineOf("passive"), "passive: a prefix of dynamic neighbors is always passive")
		}
		validateFamilies(p, pr)
		validateTimers(p, pr)
		validatePrefixLimit(p, pr)
	}
}

// validateTimers checks hold-time and keepalive-interval. RFC 4271 4.2
// allows a hold time of 0 (no hold timer) or at least 3 s, but the
// embedded GoBGP replaces 0 with 90 (pkg/config/oc/default.go), so 0 is
// refused rather than silently not meant; keepalives come within it.
func validateTimers(p *problems, pr *Peer) {
	if pr.m.isBad("hold-time") || pr.m.isBad("keepalive-interval") {
		return
	}
	h, k := pr.Timers()
	switch {
	case pr.m.has("hold-time") && pr.HoldTime == 0:
		p.errorf(pr.LineOf("hold-time"), "hold-time: 0 (no hold timer) is not supported: GoBGP would use 90; want 3 or more seconds")
	case pr.m.has("keepalive-interval") && pr.KeepaliveInterval == 0:
		p.errorf(pr.LineOf("keepalive-interval"), "keepalive-interval: 0: GoBGP would use a third of hold-time; want 1 or more seconds")
	case h < 3:
		p.errorf(pr.LineOf("hold-time"), "hold-time: %d: want at least 3 seconds (RFC 4271)", h)
	case k >= h:
		p.errorf(pr.LineOf("keepalive-interval"), "keepalive-interval: %d must be less than hold-time %d (a third of it is usual)", k, h)
	}
}

// validatePeerAuth checks a peer's key source: at most one, and it exists.
func (c *Config) validatePeerAuth(p *problems, pr *Peer, table string) {
	switch {
	case pr.PasswordSource != "" && pr.Keychain != "":
		p.errorf(pr.LineOf(SourceKeychain), "keychain: only one of password, password-file, password-env, keychain may be set")
	case pr.PasswordSource != "":
		validateSecret(p, &pr.m, pr.Line, table, SourcePassword, pr.PasswordSource, pr.Password, MaxMD5SecretLen)
	case pr.Keychain != "":
		kc := c.Keychain(pr.Keychain)
		pr.tcpao = kc.IsTCPAO()
		if kc == nil {
			p.errorf(pr.LineOf(SourceKeychain), "keychain: unknown keychain %q", pr.Keychain)
		}
	case pr.m.has(SourceKeychain) && !pr.m.isBad(SourceKeychain):
		p.errorf(pr.LineOf(SourceKeychain), "keychain: empty name")
	}
}

// validateFamilies checks a peer's families: known, each once.
func validateFamilies(p *problems, pr *Peer) {
	if pr.m.isBad("families") {
		return
	}
	if len(pr.Families) == 0 && (pr.m.has("families") || !pr.m.parsed || pr.ID() != "") {
		p.errorf(pr.LineOf("families"), "families: empty")
	}
	dup := map[Family]bool{}
	for _, f := range pr.Families {
		switch {
		case !f.Valid():
			want := make([]string, len(Families))
			for i, f := range Families {
				want[i] = string(f)
			}
			p.errorf(pr.LineOf("families"), "families: unknown family %q (want %s)", f, strings.Join(want, ", "))
		case dup[f]:
			p.errorf(pr.LineOf("families"), "families: %s is listed twice", f)
		}
		dup[f] = true
	}
}

func (c *Config) validateShadow(p *problems) {
	s := &c.Shadow
	if s.m.broken {
		return
	}
	c.validateShadowMode(p)
	if s.m.isBad("interfaces") {
		return
	}
	seen := map[string]bool{}
	for _, n := range s.Interfaces {
		switch {
		case !validIfName(n):
			p.errorf(s.LineOf("interfaces"), "interfaces: %q is not an interface name", n)
		case seen[n]:
			p.errorf(s.LineOf("interfaces"), "interfaces: %s is listed twice", n)
		}
		seen[n] = true
	}
}

// validateShadowMode checks mode against enabled (for a Shadow built in
// code: parsing keeps them in step and reports a file's contradiction
// itself) and the on-demand knobs' bounds.
func (c *Config) validateShadowMode(p *problems) {
	s := &c.Shadow
	switch {
	case s.m.isBad("mode"):
	case s.Mode != "" && !slices.Contains(ShadowModes, s.Mode):
		p.errorf(s.LineOf("mode"), "mode: %q is not one of always, on-demand, off", s.Mode)
	case s.Mode != "" && s.Enabled != (s.Mode != ShadowOff):
		p.errorf(s.LineOf("mode"), "mode: %q disagrees with enabled = %v", s.Mode, s.Enabled)
	}
	if !s.m.isBad("on-demand-window") && (s.OnDemandWindow != 0 || s.m.has("on-demand-window")) &&
		(s.OnDemandWindow < MinOnDemandWindow || s.OnDemandWindow > MaxOnDemandWindow) {
		p.errorf(s.LineOf("on-demand-window"), "on-demand-window: %v is out of range %v..%v", s.OnDemandWindow, MinOnDemandWindow, MaxOnDemandWindow)
	}
	if !s.m.isBad("on-demand-segments") && (s.OnDemandSegments < 0 || s.OnDemandSegments > MaxOnDemandSegments) {
		p.errorf(s.LineOf("on-demand-segments"), "on-demand-segments: %d is out of range 1..%d", s.OnDemandSegments, MaxOnDemandSegments)
	}
}

func (c *Config) validateSRv6(p *problems) {
	c.validateHMACKeys(p)
	names := map[string]int{}
	for i := range c.SRv6.Policies {
		c.validatePolicy(p, &c.SRv6.Policies[i], names)
	}
	h := &c.SRv6.Headend
	switch {
	case h.m.broken || h.m.isBad("source"):
	case h.Enabled && !h.Source.IsValid():
		p.errorf(h.LineOf("enabled"), "[srv6.headend]: enabled without source (the outer IPv6 source address)")
	case h.Source.IsValid() && (!h.Source.Is6() || h.Source.IsUnspecified() || h.Source.IsMulticast()):
		p.errorf(h.LineOf("source"), "source: %s is not an IPv6 unicast address", h.Source)
	}
}

// validateHMACKeys checks [[srv6.hmac-keys]]: ids unique and not 0, a
// known algorithm, a secret of the length the kernel accepts.
func (c *Config) validateHMACKeys(p *problems) {
	ids := map[uint32]int{}
	want := strings.Join(algorithms, " or ")
	for i := range c.SRv6.HMACKeys {
		h := &c.SRv6.HMACKeys[i]
		table := "[[srv6.hmac-keys]]"
		if h.ID == 0 {
			if h.m.has("id") && !h.m.isBad("id") {
				p.errorf(h.LineOf("id"), "id: SRv6 HMAC key id 0 is invalid (1..4294967295)")
			} else {
				missing(p, &h.m, h.Line, table, "id")
			}
		} else {
			table = fmt.Sprintf("[[srv6.hmac-keys]] %d", h.ID)
			firstOf(p, ids, h.ID, h.LineOf("id"), "id: duplicate SRv6 HMAC key id %d", h.ID)
		}
		switch {
		case h.m.isBad("algorithm"):
		case h.Algorithm == "" && !h.m.has("algorithm"):
			p.errorf(h.Line, "%s: algorithm is missing (%s)", table, want)
		case !oneOf(h.Algorithm, algorithms):
			p.errorf(h.LineOf("algorithm"), "algorithm: unknown algorithm %q (want %s)", h.Algorithm, want)
		}
		validateSecret(p, &h.m, h.Line, table, SourceSecret, h.SecretSource, h.Secret, MaxSRv6SecretLen)
	}
}

// validatePolicy checks one [[srv6.policies]] entry; names holds the
// policy names seen so far.
func (c *Config) validatePolicy(p *problems, pol *Policy, names map[string]int) {
	table := validateName(p, &pol.m, pol.Line, "[[srv6.policies]]", pol.Name, "policy name", names)
	if pol.m.parsed && !pol.m.has("color") {
		p.errorf(pol.Line, "%s: color is missing", table)
	}
	switch {
	case pol.m.isBad("endpoint"):
	case !pol.Endpoint.IsValid():
		missing(p, &pol.m, pol.Line, table, "endpoint")
	case pol.Endpoint.Zone() != "":
		p.errorf(pol.LineOf("endpoint"), "endpoint: %s: zones are not supported", pol.Endpoint)
	}
	if b := pol.BindingSID; b.IsValid() && (!b.Is6() || b.Zone() != "" || b.IsUnspecified()) {
		p.errorf(pol.LineOf("binding-sid"), "binding-sid: %s is not an IPv6 address", b)
	}
	if !pol.m.isBad("segments") {
		validateSegments(p, pol, table)
	}
	if pol.HMACKeyID != 0 && !pol.m.isBad("hmac-key-id") && c.HMACKey(pol.HMACKeyID) == nil {
		p.errorf(pol.LineOf("hmac-key-id"), "hmac-key-id: no [[srv6.hmac-keys]] with id %d", pol.HMACKeyID)
	}
	if !pol.m.isBad("headends") {
		seen := map[netip.Addr]bool{}
		for _, h := range pol.Headends {
			switch {
			case !h.Is4() || h.IsUnspecified():
				p.errorf(pol.LineOf("headends"), "headends: %s is not a router ID (an IPv4 address)", h)
			case seen[h]:
				p.errorf(pol.LineOf("headends"), "headends: %s is listed twice", h)
			}
			seen[h] = true
		}
	}
}

// validateSegments checks a policy's segment list: present, not longer
// than an HMAC'd SRH holds, IPv6 unicast addresses.
func validateSegments(p *problems, pol *Policy, table string) {
	switch n := len(pol.Segments); {
	case n == 0 && !pol.m.has("segments"):
		p.errorf(pol.Line, "%s: segments is missing", table)
	case n == 0:
		p.errorf(pol.LineOf("segments"), "segments: empty")
	case n > MaxSegments:
		p.errorf(pol.LineOf("segments"), "segments: %d segments, at most %d fit an HMAC'd SRH", n, MaxSegments)
	}
	for _, seg := range pol.Segments {
		if !seg.Is6() || seg.Zone() != "" || seg.IsUnspecified() || seg.IsMulticast() {
			p.errorf(pol.LineOf("segments"), "segments: %s is not an IPv6 unicast address", seg)
		}
	}
}

// lint adds warnings about legal but suspicious configurations.
func (c *Config) lint(p *problems, now time.Time) {
	used := map[string]bool{}
	for i := range c.Peers {
		used[c.Peers[i].Keychain] = true
	}
	for i := range c.Keychains {
		kc := &c.Keychains[i]
		if kc.Name == "" {
			continue
		}
		if !used[kc.Name] {
			p.warnf(kc.LineOf("name"), "keychain %q is not used by any peer", kc.Name)
		}
		if _, ok := kc.Active(now); !ok && len(kc.Keys) > 0 {
			next, _ := kc.NextSwitch(now)
			p.warnf(kc.LineOf("name"), "keychain %q has no key valid now; its first key starts at %s", kc.Name, next.Format(time.RFC3339))
		}
	}
}
