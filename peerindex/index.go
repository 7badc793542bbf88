package peerindex

import (
	"net/netip"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/tcpao"
)

// Index is one loaded config's peers, built once per load (New) and
// shared: read-only after New, safe for any number of goroutines.
type Index struct {
	cfg    *config.Config
	peers  []Peer
	owners *Owners
	byID   map[string]int32
}

// Peer is one configured peer as the index knows it.
type Peer struct {
	// ID is the peer's ID (config.Peer.ID): its address, a range's
	// prefix ("VRF/..." in a VRF: config.ScopedID), or an interface
	// peer's interface.
	ID     string
	Config *config.Peer
	Scope  Scope
	// Mode is config.AuthMD5, config.AuthTCPAO or config.AuthNone.
	Mode string
	// Keys are every key the peer may sign with: a password is one key
	// (ID -1); a keychain gives all its keys with their send-from times.
	// The secrets are the config's (not copies).
	Keys []Key
}

// Key is one TCP-MD5 key, or one TCP-AO master key tuple (its algorithm
// parsed once, here).
type Key struct {
	// ID is the keychain key id, or -1 for a single password.
	ID     int
	Secret keys.Secret
	// SendFrom: the key is the active one from this time on (zero: always).
	SendFrom time.Time
	// TCP-AO only: the MAC algorithm, the KeyIDs we send (SendID) and the
	// peer sends (RecvID), whether the MAC covers the TCP options, and the
	// MAC length in bytes (0: tcpao.MACLen).
	Alg            tcpao.Algorithm
	SendID, RecvID uint8
	IncludeOptions bool
	MACLen         int
}

// MACLength is k's TCP-AO MAC length in bytes (MACLen, 0 the default:
// tcpao.MACLen).
func (k *Key) MACLength() int {
	if k.MACLen == 0 {
		return tcpao.MACLen
	}
	return k.MACLen
}

// IsDynamic reports whether p is a dynamic range.
func (p *Peer) IsDynamic() bool { return p.Config.IsDynamic() }

// TCPAO reports whether p's keys are TCP-AO master key tuples.
func (p *Peer) TCPAO() bool { return p.Mode == config.AuthTCPAO }

// New indexes cfg's peers (cfg is validated: its algorithm names parse).
func New(cfg *config.Config) *Index {
	x := &Index{cfg: cfg, byID: map[string]int32{}}
	if cfg == nil {
		x.owners = NewOwners(nil)
		return x
	}
	x.peers = make([]Peer, len(cfg.Peers))
	scopes := make([]Scope, len(cfg.Peers))
	for i := range cfg.Peers {
		p := &cfg.Peers[i]
		ip := &x.peers[i]
		*ip = Peer{ID: p.ID(), Config: p, Scope: scopeOf(p), Mode: p.Auth().Mode, Keys: keysOf(cfg, p)}
		scopes[i] = ip.Scope
		if _, dup := x.byID[ip.ID]; !dup {
			x.byID[ip.ID] = int32(i)
		}
	}
	x.owners = NewOwners(scopes)
	return x
}

// scopeOf is where p is.
func scopeOf(p *config.Peer) Scope {
	s := Scope{VRF: p.VRF}
	switch {
	case p.IsInterface():
		s.Interface = p.Interface
	case p.IsDynamic():
		s.Prefix, s.Range = p.Prefix, true
	case p.Address.IsValid():
		s.Prefix = netip.PrefixFrom(p.Address, p.Address.BitLen())
	}
	return s
}

// keysOf lists every key p may sign with.
func keysOf(cfg *config.Config, p *config.Peer) []Key {
	var out []Key
	switch a := p.Auth(); {
	case a.Mode == config.AuthTCPAO:
		if kc := cfg.Keychain(a.Keychain); kc != nil {
			for _, k := range kc.Keys {
				alg, _ := tcpao.ParseAlgorithm(k.Algorithm) // validated by config
				out = append(out, Key{ID: int(k.ID), Secret: k.Secret, SendFrom: k.SendFrom,
					Alg: alg, SendID: k.SendID, RecvID: k.RecvID, IncludeOptions: k.IncludeTCPOptions, MACLen: k.MACLen})
			}
		}
	case a.Mode != config.AuthMD5:
	case a.Source == config.SourceKeychain:
		if kc := cfg.Keychain(a.Keychain); kc != nil {
			for _, k := range kc.Keys {
				out = append(out, Key{ID: int(k.ID), Secret: k.Secret, SendFrom: k.SendFrom})
			}
		}
	default:
		out = []Key{{ID: -1, Secret: p.Password}}
	}
	return out
}

// Config is the config the index was built from.
func (x *Index) Config() *config.Config { return x.cfg }

// Peers are the config's peers, in its order (read-only).
func (x *Index) Peers() []Peer { return x.peers }

// Peer is the peer of ID id, or nil.
func (x *Index) Peer(id string) *Peer {
	if i, ok := x.byID[id]; ok {
		return &x.peers[i]
	}
	return nil
}

// Owner is the peer that owns address a (nil: none), by Owners.Lookup's
// rule, whatever the VRF.
func (x *Index) Owner(a netip.Addr) *Peer { return x.at(x.owners.Lookup(a)) }

// OwnerIn is the peer that owns address a in vrf (Owners.LookupIn).
func (x *Index) OwnerIn(a netip.Addr, vrf string) *Peer { return x.at(x.owners.LookupIn(a, vrf)) }

// InterfacePeer is the interface peer of interface name, or nil.
func (x *Index) InterfacePeer(name string) *Peer { return x.at(x.owners.Interface(name)) }

func (x *Index) at(i int) *Peer {
	if i < 0 {
		return nil
	}
	return &x.peers[i]
}

// LinkOwner is the interface peer that owns a, an IPv6 link-local
// address zoned with its interface (ok false: a is not one).
func (x *Index) LinkOwner(a netip.Addr) (p *Peer, ok bool) {
	if !a.Is6() || !a.IsLinkLocalUnicast() || a.Zone() == "" {
		return nil, false
	}
	p = x.InterfacePeer(a.Zone())
	return p, p != nil
}
