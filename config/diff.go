package config

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Changes is what differs between two configurations, for a reload.
type Changes struct {
	// Global changes that need a restart of the BGP server.
	ASN             bool
	RouterID        bool
	ListenPort      bool
	ListenAddresses bool // compared as sets

	API    bool // [api] changed (the API servers must be restarted)
	Log    bool // [log] changed
	Shadow bool // [shadow] changed

	// Peers, by identity (Peer.ID). Added and Unchanged point into the new
	// config, Removed into the old one; Changed has both.
	Added     []*Peer
	Removed   []*Peer
	Changed   []PeerChange
	Unchanged []*Peer

	// Keychains whose name appears in only one config, or whose keys
	// differ (ids, secrets, send-from).
	KeychainsAdded   []string
	KeychainsRemoved []string
	KeychainsChanged []string

	// SRv6 HMAC keys by id and policies by name (the srv6 Manager logs
	// them on reload; it applies the configs themselves, against what the
	// kernel holds).
	HMACKeysAdded   []uint32
	HMACKeysRemoved []uint32
	HMACKeysChanged []uint32 // algorithm or secret changed
	PoliciesAdded   []string
	PoliciesRemoved []string
	PoliciesChanged []string
	Headend         bool // [srv6.headend] changed

	// Networks ([[networks]]) by ID (Network.ID): announced, withdrawn,
	// or announced with other communities; never a session reset.
	NetworksAdded, NetworksRemoved, NetworksChanged []string
	// RoutingPolicy: [defined-sets] or [[policy-definitions]] changed;
	// PolicyPeers: the peers whose policies change, with the directions
	// soft-reset ("import", "export", "import, export"; PolicyChanges).
	RoutingPolicy bool
	PolicyPeers   map[string]string
}

// PeerChange describes one peer present in both configs with differences.
type PeerChange struct {
	ID       string
	Old, New *Peer
	// Fields names what changed, as config keys, sorted: "asn",
	// "families", "hold-time", "keepalive-interval", "local-address",
	// "max-prefixes", "max-prefixes-warning" (in place for a static peer:
	// InPlace), "multihop-ttl", "passive", "vrf" (the peer moves to another VRF: a
	// session reset, see VRFMove), "auth" (the
	// source of the key: password / password-file / password-env /
	// keychain, or its keychain's name) and "secret" (the key material:
	// the password, or the keys of the keychain). An interface peer's ID
	// is its interface, so a peer on another interface is another peer:
	// one removed, one added, never a change.
	Fields []string
	// KeyChanged reports that the TCP-MD5 key the peer uses now, or will
	// use later (keychains), is different: a secret changed, or
	// authentication was turned on or off.
	KeyChanged bool
}

// Has reports whether field changed.
func (pc *PeerChange) Has(field string) bool { return slices.Contains(pc.Fields, field) }

// VRFMove describes a change of the peer's vrf, as the reload preview
// and log say it: "peer 192.0.2.2 moves from VRF blue to VRF red: session
// reset" ("range ..." for a prefix, "sessions reset"). "" when the vrf did
// not change.
func (pc *PeerChange) VRFMove() string {
	if pc.Old == nil || pc.New == nil || pc.Old.VRF == pc.New.VRF {
		return ""
	}
	what, reset := "peer", "session reset"
	if pc.New.IsDynamic() {
		what, reset = "range", "its sessions reset"
	}
	_, name := SplitScopedID(pc.ID)
	return fmt.Sprintf("%s %s moves from %s to %s: %s (sessions are bound to the VRF device, keys scoped to its l3index)",
		what, name, vrfLabel(pc.Old.VRF), vrfLabel(pc.New.VRF), reset)
}

// KeyOnly reports whether only the peer's key changed (its source and
// material), which can be applied without resetting the session.
func (pc *PeerChange) KeyOnly() bool {
	for _, f := range pc.Fields {
		if f != "auth" && f != "secret" {
			return false
		}
	}
	return true
}

// NeedsRestart reports whether a global change needs the BGP server to be
// restarted (asn, router-id, listen-port, listen-addresses).
func (ch *Changes) NeedsRestart() bool {
	return ch.ASN || ch.RouterID || ch.ListenPort || ch.ListenAddresses
}

// Refusals names each global change that needs a restart, as an error at
// the key's line in new ("FILE:LINE: global.asn: 65001 -> 65002: needs a
// restart"). It is empty when NeedsRestart is false.
func (ch *Changes) Refusals(old, new *Config) []*Error {
	var out []*Error
	refuse := func(changed bool, key, from, to string) {
		if changed {
			out = append(out, &Error{File: new.File, Line: new.Global.LineOf(key),
				Msg: "global." + key + ": " + from + " -> " + to + ": needs a restart (a reload cannot change it)"})
		}
	}
	og, ng := &old.Global, &new.Global
	refuse(ch.ASN, "asn", strconv.FormatUint(uint64(og.ASN), 10), strconv.FormatUint(uint64(ng.ASN), 10))
	refuse(ch.RouterID, "router-id", og.RouterID.String(), ng.RouterID.String())
	refuse(ch.ListenPort, "listen-port", strconv.Itoa(int(og.ListenPort)), strconv.Itoa(int(ng.ListenPort)))
	refuse(ch.ListenAddresses, "listen-addresses", addrList(og.ListenAddresses), addrList(ng.ListenAddresses))
	return out
}

func addrList(as []netip.Addr) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// Empty reports whether nothing changed.
func (ch *Changes) Empty() bool {
	return !ch.NeedsRestart() && !ch.API && !ch.Log && !ch.Shadow && !ch.Headend &&
		len(ch.Added)+len(ch.Removed)+len(ch.Changed) == 0 &&
		len(ch.KeychainsAdded)+len(ch.KeychainsRemoved)+len(ch.KeychainsChanged) == 0 &&
		len(ch.HMACKeysAdded)+len(ch.HMACKeysRemoved)+len(ch.HMACKeysChanged) == 0 &&
		len(ch.PoliciesAdded)+len(ch.PoliciesRemoved)+len(ch.PoliciesChanged) == 0 &&
		len(ch.NetworksAdded)+len(ch.NetworksRemoved)+len(ch.NetworksChanged) == 0 &&
		!ch.RoutingPolicy && len(ch.PolicyPeers) == 0
}

// Diff compares two configurations. A nil old config is empty: every peer
// of new is added. Secrets are compared in constant time.
func Diff(old, new *Config) Changes {
	if old == nil {
		old = &Config{}
	}
	if new == nil {
		new = &Config{}
	}
	var ch Changes
	ch.diffGlobal(old, new)
	changedChains := ch.diffKeychains(old, new)
	ch.diffPeers(old, new, changedChains)
	ch.diffHMACKeys(old, new)
	ch.diffPolicies(old, new)
	ch.diffNetworks(old, new) // networks.go
	ch.RoutingPolicy = !old.Policies.Equal(&new.Policies)
	ch.PolicyPeers = PolicyChanges(old, new) // policy.go
	oh, nh := &old.SRv6.Headend, &new.SRv6.Headend
	ch.Headend = oh.Enabled != nh.Enabled || oh.Source != nh.Source || oh.SteerEndpoint != nh.SteerEndpoint
	return ch
}

// diffGlobal compares [global], [api], [log] and [shadow].
func (ch *Changes) diffGlobal(old, new *Config) {
	ch.ASN = old.Global.ASN != new.Global.ASN
	ch.RouterID = old.Global.RouterID != new.Global.RouterID
	ch.ListenPort = old.Global.ListenPort != new.Global.ListenPort
	ch.ListenAddresses = !sameAddrSet(old.Global.ListenAddresses, new.Global.ListenAddresses)
	ch.API = old.API.GRPC != new.API.GRPC || old.API.HTTP != new.API.HTTP ||
		old.API.ReloadAllowRemote != new.API.ReloadAllowRemote || old.API.Pprof != new.API.Pprof
	ch.Log = old.Log.Level != new.Log.Level || old.Log.Format != new.Log.Format
	ch.Shadow = old.Shadow.EffectiveMode() != new.Shadow.EffectiveMode() ||
		old.Shadow.Window() != new.Shadow.Window() ||
		old.Shadow.SegmentLimit() != new.Shadow.SegmentLimit() ||
		old.Shadow.FollowPeerRollover != new.Shadow.FollowPeerRollover ||
		old.Shadow.Workers != new.Shadow.Workers ||
		!slices.Equal(sortedCopy(old.Shadow.Interfaces), sortedCopy(new.Shadow.Interfaces))
}

// diffKeychains compares keychains by name; it returns the changed ones.
func (ch *Changes) diffKeychains(old, new *Config) map[string]bool {
	changedChains := map[string]bool{}
	for i := range new.Keychains {
		nk := &new.Keychains[i]
		ok := old.Keychain(nk.Name)
		switch {
		case ok == nil:
			ch.KeychainsAdded = append(ch.KeychainsAdded, nk.Name)
		case !sameKeychain(ok, nk):
			ch.KeychainsChanged = append(ch.KeychainsChanged, nk.Name)
			changedChains[nk.Name] = true
		}
	}
	for i := range old.Keychains {
		if new.Keychain(old.Keychains[i].Name) == nil {
			ch.KeychainsRemoved = append(ch.KeychainsRemoved, old.Keychains[i].Name)
		}
	}
	return changedChains
}

// diffPeers compares peers by identity (Peer.ID).
func (ch *Changes) diffPeers(old, new *Config, changedChains map[string]bool) {
	oldPeers := map[string]*Peer{}
	for i := range old.Peers {
		oldPeers[old.Peers[i].ID()] = &old.Peers[i]
	}
	newIDs := map[string]bool{}
	for i := range new.Peers {
		np := &new.Peers[i]
		id := np.ID()
		newIDs[id] = true
		op := oldPeers[id]
		if op == nil {
			ch.Added = append(ch.Added, np)
			continue
		}
		pc := diffPeer(old, new, op, np, changedChains)
		if len(pc.Fields) == 0 {
			ch.Unchanged = append(ch.Unchanged, np)
		} else {
			ch.Changed = append(ch.Changed, pc)
		}
	}
	for i := range old.Peers {
		if !newIDs[old.Peers[i].ID()] {
			ch.Removed = append(ch.Removed, &old.Peers[i])
		}
	}
	ch.pairVRFMoves(old, new, changedChains)
}

// pairVRFMoves takes a peer removed from one VRF and added in another
// with the same address or prefix (its ID names its VRF) as one peer that
// moves VRF (PeerChange.VRFMove), when that pairing is the only one.
func (ch *Changes) pairVRFMoves(old, new *Config, changedChains map[string]bool) {
	name := func(p *Peer) string { _, n := SplitScopedID(p.ID()); return n }
	count := map[string]int{}
	for _, p := range ch.Added {
		count["+"+name(p)]++
	}
	for _, p := range ch.Removed {
		count["-"+name(p)]++
	}
	var added []*Peer
	for _, np := range ch.Added {
		n := name(np)
		i := slices.IndexFunc(ch.Removed, func(op *Peer) bool { return name(op) == n })
		if i < 0 || count["+"+n] != 1 || count["-"+n] != 1 {
			added = append(added, np)
			continue
		}
		pc := diffPeer(old, new, ch.Removed[i], np, changedChains)
		pc.ID = np.ID()
		ch.Changed = append(ch.Changed, pc)
		ch.Removed = slices.Delete(ch.Removed, i, i+1)
	}
	ch.Added = added
}

// diffHMACKeys compares SRv6 HMAC keys by ID.
func (ch *Changes) diffHMACKeys(old, new *Config) {
	for i := range new.SRv6.HMACKeys {
		nh := &new.SRv6.HMACKeys[i]
		oh := old.HMACKey(nh.ID)
		switch {
		case oh == nil:
			ch.HMACKeysAdded = append(ch.HMACKeysAdded, nh.ID)
		case oh.Algorithm != nh.Algorithm || !oh.Secret.Equal(nh.Secret):
			ch.HMACKeysChanged = append(ch.HMACKeysChanged, nh.ID)
		}
	}
	for i := range old.SRv6.HMACKeys {
		if new.HMACKey(old.SRv6.HMACKeys[i].ID) == nil {
			ch.HMACKeysRemoved = append(ch.HMACKeysRemoved, old.SRv6.HMACKeys[i].ID)
		}
	}
}

// diffPolicies compares SR policies by name.
func (ch *Changes) diffPolicies(old, new *Config) {
	oldPol := map[string]*Policy{}
	for i := range old.SRv6.Policies {
		oldPol[old.SRv6.Policies[i].Name] = &old.SRv6.Policies[i]
	}
	newPol := map[string]bool{}
	for i := range new.SRv6.Policies {
		np := &new.SRv6.Policies[i]
		newPol[np.Name] = true
		op := oldPol[np.Name]
		switch {
		case op == nil:
			ch.PoliciesAdded = append(ch.PoliciesAdded, np.Name)
		case !samePolicy(op, np):
			ch.PoliciesChanged = append(ch.PoliciesChanged, np.Name)
		}
	}
	for i := range old.SRv6.Policies {
		if !newPol[old.SRv6.Policies[i].Name] {
			ch.PoliciesRemoved = append(ch.PoliciesRemoved, old.SRv6.Policies[i].Name)
		}
	}
}

func diffPeer(oldCfg, newCfg *Config, op, np *Peer, changedChains map[string]bool) PeerChange {
	pc := PeerChange{ID: np.ID(), Old: op, New: np}
	add := func(f string) { pc.Fields = append(pc.Fields, f) }
	for _, a := range peerAttrs {
		if !a.same(op, np) {
			add(a.key)
		}
	}
	oa, na := op.Auth(), np.Auth()
	if oa != na {
		add("auth")
	}
	secret := false
	switch {
	case oa.Mode != na.Mode:
		secret = na.Mode != AuthNone // on or another mechanism: new material; off: only "auth"
		pc.KeyChanged = true
	case na.Mode == AuthNone:
	case oa.Source == SourceKeychain && na.Source == SourceKeychain:
		if oa.Keychain != na.Keychain {
			secret = !sameKeychain(oldCfg.Keychain(oa.Keychain), newCfg.Keychain(na.Keychain))
		} else {
			secret = changedChains[na.Keychain]
		}
	case oa.Source == SourceKeychain || na.Source == SourceKeychain:
		secret = true // a password and a keychain are different key material
	default:
		secret = !op.Password.Equal(np.Password)
	}
	if secret {
		add("secret")
		pc.KeyChanged = true
	}
	sort.Strings(pc.Fields)
	return pc
}

func sameKeychain(a, b *Keychain) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Keys) != len(b.Keys) || a.Type != b.Type || a.AcceptICMPs != b.AcceptICMPs {
		return false
	}
	for i := range a.Keys {
		bk := b.Key(a.Keys[i].ID)
		if bk == nil {
			return false
		}
		ak := &a.Keys[i]
		if !ak.SendFrom.Equal(bk.SendFrom) || !ak.Secret.Equal(bk.Secret) || ak.SendID != bk.SendID ||
			ak.RecvID != bk.RecvID || ak.Algorithm != bk.Algorithm || ak.MACLen != bk.MACLen || ak.IncludeTCPOptions != bk.IncludeTCPOptions {
			return false
		}
	}
	return true
}

func samePolicy(a, b *Policy) bool {
	return a.Name == b.Name && a.Color == b.Color && a.Endpoint == b.Endpoint &&
		a.Distinguisher == b.Distinguisher && a.Preference == b.Preference &&
		a.BindingSID == b.BindingSID && slices.Equal(a.Segments, b.Segments) &&
		a.HMACKeyID == b.HMACKeyID &&
		sameAddrSet(a.Headends, b.Headends)
}

func sameAddrSet(a, b []netip.Addr) bool {
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.SortFunc(sa, netip.Addr.Compare)
	slices.SortFunc(sb, netip.Addr.Compare)
	return slices.Equal(slices.Compact(sa), slices.Compact(sb))
}

func sortedCopy[T ~string](s []T) []T {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
