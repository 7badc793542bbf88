package config

import (
	"net/netip"
	"runtime"
	"time"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/srv6policy"
	"github.com/authbgp/authbgpd/tcpao"
)

// Secret is resolved key material (a TCP-MD5 password or key, an SRv6 HMAC
// secret): keys.Secret, the type md5auth and srv6policy use too. Every fmt
// verb, String, GoString, MarshalText and MarshalJSON print a redacted
// placeholder.
type Secret = keys.Secret

// Limits on secret lengths.
const (
	// MaxMD5SecretLen is the longest TCP-MD5 key Linux accepts.
	MaxMD5SecretLen = md5auth.MaxSecretLen
	// MaxSRv6SecretLen is the longest SRv6 HMAC secret Linux accepts.
	MaxSRv6SecretLen = srv6policy.MaxSecretLen
	// MaxSegments is the largest SRv6 segment list the kernel can HMAC.
	MaxSegments = srv6policy.MaxHMACSegments
)

// Defaults applied to keys that are absent from the file.
const (
	DefaultListenPort = 179
	DefaultGRPC       = "127.0.0.1:50051"
	DefaultHTTP       = "127.0.0.1:9179"

	// DefaultHoldTime and DefaultKeepaliveInterval are a peer's BGP timers
	// (seconds) when hold-time and keepalive-interval are unset. With only
	// hold-time set, the keepalive interval is a third of it.
	DefaultHoldTime          = 90
	DefaultKeepaliveInterval = 30
	DefaultLogLevel          = "info"
	DefaultLogFormat         = "text"
	// DefaultPreference is the SR policy preference when none is given
	// (RFC 9256 §2.7).
	DefaultPreference = srv6policy.DefaultPreference
)

// DefaultListenAddresses are the addresses listened on when
// global.listen-addresses is absent.
func DefaultListenAddresses() []netip.Addr {
	return []netip.Addr{netip.IPv4Unspecified(), netip.IPv6Unspecified()}
}

// Family is a BGP address family (AFI/SAFI) as written in the config.
type Family string

// The families a peer can negotiate.
const (
	IPv4Unicast  Family = "ipv4-unicast"
	IPv6Unicast  Family = "ipv6-unicast"
	IPv4SRPolicy Family = "ipv4-srpolicy"
	IPv6SRPolicy Family = "ipv6-srpolicy"
)

// Families lists every known family, in a stable order.
var Families = []Family{IPv4Unicast, IPv6Unicast, IPv4SRPolicy, IPv6SRPolicy}

// Valid reports whether f is a known family.
func (f Family) Valid() bool {
	for _, k := range Families {
		if f == k {
			return true
		}
	}
	return false
}

// Secret sources, as the key names used in the file.
const (
	SourcePassword     = "password"
	SourcePasswordFile = "password-file"
	SourcePasswordEnv  = "password-env"
	SourceKeychain     = "keychain"
	SourceSecret       = "secret"
	SourceSecretFile   = "secret-file"
	SourceSecretEnv    = "secret-env"
)

// Auth modes reported by Peer.Auth.
const (
	AuthMD5   = "md5"
	AuthTCPAO = "tcp-ao"
	AuthNone  = "none"
)

// Keychain types ([[keychains]] type).
const (
	KeychainMD5   = "md5"
	KeychainTCPAO = "tcp-ao"
)

// TCP-AO MAC algorithms, as the config names them: RFC 5926's two, whose
// MAC is 12 bytes, and the algorithms of Linux and BIRD, whose MAC length
// is mac-length (12 by default).
const (
	AlgHMACSHA196 = "hmac-sha-1-96"
	AlgAESCMAC96  = "aes-128-cmac-96"
	AlgHMACSHA1   = "hmac-sha-1"
	AlgAESCMAC    = "aes-128-cmac"
	AlgHMACSHA224 = "hmac-sha-224"
	AlgHMACSHA256 = "hmac-sha-256"
	AlgHMACSHA384 = "hmac-sha-384"
	AlgHMACSHA512 = "hmac-sha-512"
)

// TCP-AO MAC lengths (mac-length, bytes).
const (
	// DefaultTCPAOMACLen is the MAC length of every algorithm without
	// mac-length, and the only one of the -96 names.
	DefaultTCPAOMACLen = 12
	// MinTCPAOMACLen and MaxTCPAOMACLen bound mac-length: Linux takes no
	// more than 16 (the option must fit a SYN beside MSS, timestamps and
	// window scale), and never more than the algorithm's digest.
	MinTCPAOMACLen = 4
	MaxTCPAOMACLen = 16
)

// MaxTCPAOSecretLen is the longest TCP-AO master key Linux accepts
// (TCP_AO_MAXKEYLEN).
const MaxTCPAOSecretLen = tcpao.MaxSecretLen

// tcpaoAlgorithms are the algorithms a TCP-AO key may name.
// They are tcpao's (tcpao.ConfigNames): an algorithm is added there.
var tcpaoAlgorithms = tcpao.ConfigNames()

// TCPAOAlgorithms returns the names a TCP-AO key's algorithm may have, in
// the order the docs list them (a copy).
func TCPAOAlgorithms() []string { return append([]string(nil), tcpaoAlgorithms...) }

// Config is a decoded, validated authbgpd configuration.
type Config struct {
	// File is the name the configuration was loaded or parsed under; it
	// prefixes every error and warning.
	File string
	// Dir is the directory relative secret files were resolved against.
	Dir string

	Global    Global
	API       API
	Log       Log
	Keychains []Keychain
	Peers     []Peer
	Shadow    Shadow
	SRv6      SRv6
	// FIB is the [fib] table: best paths into the kernel (fib.go).
	FIB FIB
	// Config is the [config] table (watch).
	Config ConfigTable
	// Networks are the [[networks]] entries: prefixes of our own
	// (networks.go).
	Networks []Network
	// Policies are [defined-sets] and [[policy-definitions]] (policy.go).
	Policies Policies

	// Warnings found while loading (inline secrets, secret files readable
	// by others, unused keychains...). They never contain secrets.
	Warnings []Warning
}

// Global is the [global] table.
type Global struct {
	ASN      uint32
	RouterID netip.Addr
	// RouterIDFrom says where RouterID came from when router-id is not
	// written (routerid.go): "environment variable NAME" (router-id-env),
	// "interface NAME" (router-id-interface, or taken from the host); "".
	RouterIDFrom string
	// ListenPort is the BGP port; -1 means do not listen.
	ListenPort      int
	ListenAddresses []netip.Addr
	// GracefulRestart (graceful-restart) is every peer's graceful restart
	// (RFC 4724) unless it says otherwise; GracefulRestartTime
	// (graceful-restart-time) its Restart Time in seconds (gr.go).
	GracefulRestart     bool
	GracefulRestartTime uint16
	// EBGPRequiresPolicy (ebgp-requires-policy, RFC 8212): an eBGP peer
	// with no import (export) policy accepts (sends) nothing.
	EBGPRequiresPolicy bool
	// Line is the line of the [global] header (1 when absent).
	Line int
	m    meta
}

// LineOf returns the line of key in [global], or the table's line.
func (g *Global) LineOf(key string) int { return g.m.lineOf(key, g.Line) }

// ListenAddressStrings is listen-addresses as GoBGP takes them.
func (g *Global) ListenAddressStrings() []string {
	out := make([]string, 0, len(g.ListenAddresses))
	for _, a := range g.ListenAddresses {
		out = append(out, a.String())
	}
	return out
}

// API is the [api] table. An empty address means the server is off.
type API struct {
	// GRPC is GoBGP's API: "HOST:PORT" (loopback unless GRPCAllowRemote)
	// or "unix:///ABSOLUTE/PATH".
	GRPC string
	HTTP string
	// GRPCAllowRemote opts in to a gRPC listener outside loopback (the API
	// has no authentication of its own).
	GRPCAllowRemote bool
	// ReloadAllowRemote lets POST /-/reload of the HTTP API come from
	// outside loopback (by default only loopback clients may reload).
	ReloadAllowRemote bool
	// Pprof serves the Go runtime's profiles on the HTTP API under
	// /debug/pprof/, to loopback clients only.
	Pprof bool
	Line  int
	m     meta
}

// LineOf returns the line of key in [api], or the table's line.
func (a *API) LineOf(key string) int { return a.m.lineOf(key, a.Line) }

// Log is the [log] table.
type Log struct {
	Level  string // debug | info | warn | error
	Format string // text | json
	Line   int
	m      meta
}

// LineOf returns the line of key in [log], or the table's line.
func (l *Log) LineOf(key string) int { return l.m.lineOf(key, l.Line) }

// Keychain is one [[keychains]] entry: named, time-switched keys, for
// TCP-MD5 (type "md5", the default) or TCP-AO (type "tcp-ao": each key is
// a master key tuple with its own send and receive KeyIDs).
type Keychain struct {
	Name string
	Type string // KeychainMD5 or KeychainTCPAO
	Keys []Key
	// AcceptICMPs (accept-icmps, TCP-AO only, default false): the peers'
	// sessions act on the ICMP errors RFC 5925 §7.8 calls hard (protocol
	// and port unreachable, fragmentation needed; ICMPv6 administratively
	// prohibited and port unreachable) that quote them. Off, the kernel
	// ignores them (an ICMP cannot be authenticated, so a forged one could
	// end the session) and counts them (TCPAODroppedIcmps).
	AcceptICMPs bool
	Line        int
	m           meta
}

// IsTCPAO reports whether the keychain holds TCP-AO master key tuples.
func (k *Keychain) IsTCPAO() bool { return k != nil && k.Type == KeychainTCPAO }

// LineOf returns the line of key in this [[keychains]] entry, or its line.
func (k *Keychain) LineOf(key string) int { return k.m.lineOf(key, k.Line) }

// Key is one [[keychains.keys]] entry.
type Key struct {
	ID uint8
	// SendID and RecvID are a TCP-AO key's KeyIDs (RFC 5925 §3.1): the
	// KeyID we put in our segments, and the one the peer puts in its
	// own. Both default to ID. Unused for TCP-MD5.
	SendID, RecvID uint8
	// Algorithm is a TCP-AO key's MAC (AlgHMACSHA196, the default,
	// AlgAESCMAC96, AlgHMACSHA256, ...); "" for TCP-MD5.
	Algorithm string
	// MACLen is a TCP-AO key's MAC length in bytes (mac-length;
	// DefaultTCPAOMACLen when unset); 0 for TCP-MD5.
	MACLen int
	// IncludeTCPOptions: the TCP-AO MAC covers the TCP options (true, the
	// default; false is the MKT's "exclude TCP options" flag).
	IncludeTCPOptions bool
	Secret            Secret
	// SecretSource is "secret", "secret-file" or "secret-env"; SecretRef is
	// the resolved file path or the variable name (empty for inline).
	SecretSource string
	SecretRef    string
	// SendFrom is when the key starts being sent; zero means always valid
	// (and earlier than any key with a SendFrom).
	SendFrom time.Time
	Line     int
	m        meta
}

// LineOf returns the line of key in this [[keychains.keys]] entry, or its line.
func (k *Key) LineOf(key string) int { return k.m.lineOf(key, k.Line) }

// LineOf returns the line of key in this [[peers]] entry, or the peer's line.
func (p *Peer) LineOf(key string) int { return p.m.lineOf(key, p.Line) }

// Timers returns the hold time and keepalive interval the peer offers:
// the configured ones, or DefaultHoldTime and DefaultKeepaliveInterval
// (a third of hold-time when only hold-time is set).
func (p *Peer) Timers() (hold, keepalive uint16) {
	hold, keepalive = p.HoldTime, p.KeepaliveInterval
	if hold == 0 {
		hold = DefaultHoldTime
	}
	if keepalive == 0 {
		keepalive = DefaultKeepaliveInterval
		if p.HoldTime != 0 {
			keepalive = hold / 3
		}
	}
	return hold, keepalive
}

// ID is the peer's identity, as text: its address or its prefix, in a
// VRF prefixed with the VRF's name and a slash ("blue/192.0.2.2",
// ScopedID), or, for an interface peer, the interface's name (an
// interface is in one VRF). The same address (or prefix) may be a peer in
// two VRFs, each its own peer with its own key; IDs are unique in a valid
// config: a device name has no '/', and an interface name never parses
// as an address or a prefix (validation refuses one that does).
func (p *Peer) ID() string {
	if p.Interface != "" {
		// Also once the reconciler filled in the learnt address (its
		// copy of the peer): the identity stays the interface.
		return p.Interface
	}
	if p.Prefix.IsValid() {
		return ScopedID(p.VRF, p.Prefix.String())
	}
	if p.Address.IsValid() {
		return ScopedID(p.VRF, p.Address.String())
	}
	return ""
}

// IsDynamic reports whether the peer is a prefix of dynamic neighbors.
func (p *Peer) IsDynamic() bool { return p.Prefix.IsValid() }

// IsInterface reports whether the peer is an unnumbered peer on an
// interface (its address is learnt at run time; the reconciler's copy of
// the peer carries it in Address).
func (p *Peer) IsInterface() bool { return p.Interface != "" }

// Auth describes how a peer is authenticated and where its key comes from.
type Auth struct {
	Mode     string // "md5", "tcp-ao" or "none"
	Source   string // "password", "password-file", "password-env", "keychain"; "" for none
	Keychain string // the keychain's name when Source is "keychain"
}

// Auth reports what the peer's key comes from.
func (p *Peer) Auth() Auth {
	switch {
	case p.Keychain != "" && p.tcpao:
		return Auth{Mode: AuthTCPAO, Source: SourceKeychain, Keychain: p.Keychain}
	case p.Keychain != "":
		return Auth{Mode: AuthMD5, Source: SourceKeychain, Keychain: p.Keychain}
	case p.PasswordSource != "":
		return Auth{Mode: AuthMD5, Source: p.PasswordSource}
	default:
		return Auth{Mode: AuthNone}
	}
}

// Shadow is the [shadow] table.
type Shadow struct {
	// Mode says when the checker captures (ShadowAlways, ShadowOnDemand,
	// ShadowOff). Parsing sets it from mode, or from enabled (true:
	// always, false: off), or to the default, off. "" (a Shadow built in
	// code) means what Enabled says: use EffectiveMode or On, not the
	// field, to decide.
	Mode ShadowMode
	// Enabled is true when the checker runs at all (mode always or
	// on-demand), as it was before mode existed: parsing keeps it equal
	// to On. New code reads On or EffectiveMode.
	Enabled    bool
	Interfaces []string // empty: all
	// OnDemandWindow is how long a peer demanded in on-demand mode is
	// captured (0: DefaultOnDemandWindow); see Window.
	OnDemandWindow time.Duration
	// OnDemandSegments bounds the segments checked per demanded peer and
	// window (0: DefaultOnDemandSegments); see SegmentLimit.
	OnDemandSegments   int
	FollowPeerRollover bool
	// Workers is the number of capture rings and checkers the frames are
	// spread over (by address pair), each on its own goroutine; 0: one
	// per CPU the process may use, at most AutoShadowWorkers (see
	// WorkerCount).
	Workers int
	Line    int
	m       meta
}

// Bounds of [shadow] workers.
const (
	MaxShadowWorkers  = 64 // capture.MaxFanout
	AutoShadowWorkers = 4  // the most workers = 0 picks
)

// ShadowMode is [shadow] mode: when the shadow checker captures.
type ShadowMode string

// The modes of [shadow] mode.
const (
	// ShadowAlways captures and checks every BGP segment, all the time
	// (enabled = true).
	ShadowAlways ShadowMode = "always"
	// ShadowOnDemand opens no capture until asked to diagnose a peer
	// (the kernel dropped its segments): then it captures that peer's
	// segments only, for OnDemandWindow or OnDemandSegments segments.
	ShadowOnDemand ShadowMode = "on-demand"
	// ShadowOff runs no checker (enabled = false; the default).
	ShadowOff ShadowMode = "off"
)

// ShadowModes lists the modes, as [shadow] mode spells them.
var ShadowModes = []ShadowMode{ShadowAlways, ShadowOnDemand, ShadowOff}

// Defaults and bounds of [shadow] on-demand-window and on-demand-segments.
const (
	DefaultOnDemandWindow   = 20 * time.Second
	MinOnDemandWindow       = time.Second
	MaxOnDemandWindow       = 10 * time.Minute
	DefaultOnDemandSegments = 1000
	MaxOnDemandSegments     = 1_000_000
)

// EffectiveMode is Mode, or for a Shadow built in code without one, what
// Enabled says (true: ShadowAlways).
func (s *Shadow) EffectiveMode() ShadowMode {
	switch {
	case s.Mode != "":
		return s.Mode
	case s.Enabled:
		return ShadowAlways
	}
	return ShadowOff
}

// On reports whether the checker runs at all (mode always or on-demand).
func (s *Shadow) On() bool { return s.EffectiveMode() != ShadowOff }

// Window is how long on-demand mode captures a demanded peer:
// OnDemandWindow or DefaultOnDemandWindow.
func (s *Shadow) Window() time.Duration {
	if s.OnDemandWindow > 0 {
		return s.OnDemandWindow
	}
	return DefaultOnDemandWindow
}

// SegmentLimit is the most segments on-demand mode checks per demanded
// peer and window: OnDemandSegments or DefaultOnDemandSegments.
func (s *Shadow) SegmentLimit() int {
	if s.OnDemandSegments > 0 {
		return s.OnDemandSegments
	}
	return DefaultOnDemandSegments
}

// WorkerCount is the number of shadow workers to run: Workers, or for 0
// one per CPU the process may use (GOMAXPROCS), at most AutoShadowWorkers
// (each ring is 8 MiB per captured interface, mapped into the process and
// counted in its RSS).
func (s *Shadow) WorkerCount() int {
	if s.Workers > 0 {
		return s.Workers
	}
	return min(runtime.GOMAXPROCS(0), AutoShadowWorkers)
}

// LineOf returns the line of key in [shadow], or the table's line.
func (s *Shadow) LineOf(key string) int { return s.m.lineOf(key, s.Line) }

// SRv6 is the [srv6] table.
type SRv6 struct {
	HMACKeys []HMACKey
	Policies []Policy
	Headend  Headend
}

// HMACKey is one [[srv6.hmac-keys]] entry.
type HMACKey struct {
	ID           uint32
	Algorithm    string // sha1 | sha256: srv6policy.Algorithm's names
	Secret       Secret
	SecretSource string
	SecretRef    string
	Line         int
	m            meta
}

// LineOf returns the line of key in this [[srv6.hmac-keys]] entry, or its line.
func (h *HMACKey) LineOf(key string) int { return h.m.lineOf(key, h.Line) }

// Policy is one [[srv6.policies]] entry.
type Policy struct {
	Name          string
	Color         uint32
	Endpoint      netip.Addr
	Distinguisher uint32
	Preference    uint32
	BindingSID    netip.Addr   // invalid when unset
	Segments      []netip.Addr // first hop first
	HMACKeyID     uint32       // 0: no HMAC
	Headends      []netip.Addr // router IDs; empty: NO_ADVERTISE
	Line          int
	m             meta
}

// LineOf returns the line of key in this [[srv6.policies]] entry, or its line.
func (p *Policy) LineOf(key string) int { return p.m.lineOf(key, p.Line) }

// Headend is the [srv6.headend] table.
type Headend struct {
	Enabled       bool
	Source        netip.Addr
	SteerEndpoint bool
	Line          int
	m             meta
}

// LineOf returns the line of key in [srv6.headend], or the table's line.
func (h *Headend) LineOf(key string) int { return h.m.lineOf(key, h.Line) }

// meta records, for one table, the lines of the keys that appeared in the
// file and which of them failed to decode (already reported).
type meta struct {
	parsed bool // the table came from a file
	broken bool // the table had the wrong type (already reported)
	lines  map[string]int
	bad    map[string]bool
}

func (m *meta) lineOf(key string, def int) int {
	if l, ok := m.lines[key]; ok && l > 0 {
		return l
	}
	return def
}

func (m *meta) has(key string) bool { _, ok := m.lines[key]; return ok }

func (m *meta) isBad(key string) bool { return m.bad[key] }

func (m *meta) setLine(key string, line int) {
	if m.lines == nil {
		m.lines = map[string]int{}
	}
	m.lines[key] = line
}

func (m *meta) markBad(key string) {
	if m.bad == nil {
		m.bad = map[string]bool{}
	}
	m.bad[key] = true
}

// Keychain returns the keychain called name, or nil.
func (c *Config) Keychain(name string) *Keychain {
	for i := range c.Keychains {
		if c.Keychains[i].Name == name {
			return &c.Keychains[i]
		}
	}
	return nil
}

// Peer returns the peer whose ID is id, or nil.
func (c *Config) Peer(id string) *Peer {
	for i := range c.Peers {
		if c.Peers[i].ID() == id {
			return &c.Peers[i]
		}
	}
	return nil
}

// HMACKey returns the SRv6 HMAC key with the given id, or nil.
func (c *Config) HMACKey(id uint32) *HMACKey {
	for i := range c.SRv6.HMACKeys {
		if c.SRv6.HMACKeys[i].ID == id {
			return &c.SRv6.HMACKeys[i]
		}
	}
	return nil
}

// PeerKey returns the TCP-MD5 secret the peer should use at time now and,
// for keychains, the id of the active key (-1 otherwise). ok is false when
// the peer has no authentication, or its keychain has no key valid at now
// (or does not exist).
func (c *Config) PeerKey(p *Peer, now time.Time) (secret Secret, keyID int, ok bool) {
	switch a := p.Auth(); {
	case a.Mode == AuthNone:
		return nil, -1, false
	case a.Source == SourceKeychain:
		kc := c.Keychain(a.Keychain)
		if kc == nil {
			return nil, -1, false
		}
		k, ok := kc.Active(now)
		if !ok {
			return nil, -1, false
		}
		return k.Secret, int(k.ID), true
	default:
		return p.Password, -1, true
	}
}

// Schedule returns the keychain's keys, in order, as a keys.Schedule: the
// one model of "which key is active" the peers manager and the shadow
// checker use too.
func (kc *Keychain) Schedule() keys.Schedule {
	s := make(keys.Schedule, len(kc.Keys))
	for i := range kc.Keys {
		s[i] = keys.Entry{ID: int(kc.Keys[i].ID), SendFrom: kc.Keys[i].SendFrom}
	}
	return s
}

// Active returns the key to send at time now: the key with the latest
// SendFrom not after now. Keys without SendFrom are always valid and count
// as the earliest. ok is false when every key starts after now.
func (kc *Keychain) Active(now time.Time) (Key, bool) {
	i := kc.Schedule().Active(now, -1)
	if i < 0 {
		return Key{}, false
	}
	return kc.Keys[i], true
}

// NextSwitch returns when the active key next changes after now: the
// earliest SendFrom strictly after now. ok is false when no key starts later.
func (kc *Keychain) NextSwitch(now time.Time) (time.Time, bool) {
	return kc.Schedule().NextSwitch(now)
}

// Key returns the key with the given id, or nil.
func (kc *Keychain) Key(id uint8) *Key {
	for i := range kc.Keys {
		if kc.Keys[i].ID == id {
			return &kc.Keys[i]
		}
	}
	return nil
}
