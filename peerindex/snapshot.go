package peerindex

import (
	"net/netip"

	"github.com/authbgp/authbgpd/config"
)

// Snapshot is what the peers manager knows, at one moment, of each peer's
// key in use and of each BGP session: published whole by the reconciler
// (after it installs keys, and at the end of each pass), never changed
// after, so any goroutine may read one it was given. The shadow checker
// reads it: it pins each peer's installed keychain key, judges the
// established session's connection, and proposes only keys not in use.
type Snapshot struct {
	// Keys are the peers' keys in use, by peer ID.
	Keys map[string]KeyInUse
	// Sessions are GoBGP's sessions, by neighbor: the peer's address (a
	// link-local one zoned with its interface) in its VRF.
	Sessions map[Neighbor]Session
}

// Neighbor names the far end of a BGP session: its address (unmapped; a
// link-local one zoned with its interface) and the VRF it is in ("" the
// default VRF). Each VRF has a GoBGP instance of its own, so one address
// may be a neighbor in two VRFs: the address alone does not name one.
type Neighbor struct {
	VRF  string
	Addr netip.Addr
}

// String names n as peer IDs do (config.ScopedID): its address, and in a
// VRF "VRF/ADDRESS" (logs' peer field, messages).
func (n Neighbor) String() string { return config.ScopedID(n.VRF, n.Addr.String()) }

// KeyInUse is a peer's key as the peers manager installed it.
type KeyInUse struct {
	// KeyID is the keychain key id of the peer's key (-1: a password, or
	// no key yet).
	KeyID int
	// Keychain: the peer's key comes from a keychain.
	Keychain bool
	// Installed: the last install of the key succeeded on every listener.
	Installed bool
	// TCP-AO only (else -1): the current key's SendID and the RNextKeyID
	// on the listeners, and the SendID the kernel sends with on the
	// peer's established connections (following the peer's RNextKeyID;
	// -1 when unknown).
	AOCurrent, AORNext, AOSending int
}

// Session is one of GoBGP's sessions.
type Session struct {
	// Established: the session is up; Local and Remote are then its
	// connection's ends (Remote the peer's), zero otherwise.
	Established   bool
	Local, Remote netip.AddrPort
}

// Empty is the snapshot of no peers and no sessions.
var Empty = &Snapshot{Keys: map[string]KeyInUse{}, Sessions: map[Neighbor]Session{}}

// KeyID is the keychain key id installed for peer id, ok false when the
// peer has none (a password, no key yet, or no such peer).
func (s *Snapshot) KeyID(id string) (keyID int, ok bool) {
	k, found := s.Keys[id]
	if !found || !k.Keychain || k.KeyID < 0 {
		return -1, false
	}
	return k.KeyID, true
}
