package tcpsock

import (
	"fmt"
	"net/netip"
)

// AOSet is the TCP-AO state wanted for one peer (an address or a range):
// its master key tuples, and on its connections the key to send with and
// the key to ask the peer for.
type AOSet struct {
	Prefix netip.Prefix
	// IfIndex is the VRF (L3 master device) the set is scoped to; 0:
	// unscoped. The set's scope is (Prefix, IfIndex): the operations on a
	// set add, replace and delete MKTs of that scope only, so a scoped and
	// an unscoped set for one address live side by side on a listener.
	// When IfIndex is 0 and the keys carry an IfIndex, theirs is the set's
	// (they must all agree); a key with IfIndex 0 in a scoped set takes
	// the set's.
	IfIndex int
	// Keys are the peer's MKTs (each with Prefix as its scope).
	Keys []AOKey
	// Current is the SendID of the key to send with and RNext the RecvID
	// of the key to ask the peer for (RNextKeyID); -1 leaves one as is.
	// They matter on connections only: a listener's accepted connections
	// start with the first matching key, and the peer's RNextKeyID then
	// picks our current key.
	Current, RNext int
	// AcceptICMPs: the connections act on ICMP hard errors (the
	// keychain's accept-icmps); a listener keeps the kernel's default
	// (ignore them), which the connections it accepts inherit until a
	// pass sets theirs.
	AcceptICMPs bool
}

// String names the set without secrets.
func (s AOSet) String() string {
	if l3 := s.L3Index(); l3 != 0 {
		return fmt.Sprintf("tcp-ao keys for %s ifindex %d", s.Prefix, l3)
	}
	return "tcp-ao keys for " + s.Prefix.String()
}

// L3Index is the set's L3 scope: IfIndex, or else the first key's.
func (s AOSet) L3Index() int {
	if s.IfIndex != 0 {
		return s.IfIndex
	}
	for _, k := range s.Keys {
		if k.IfIndex != 0 {
			return k.IfIndex
		}
	}
	return 0
}

// scoped returns s with its scope made explicit: IfIndex set, and every
// key scoped to it. Keys of different L3 scopes in one set are an error
// (ErrAOKey): one set is one scope.
func (s AOSet) scoped() (AOSet, error) {
	l3 := s.L3Index()
	if l3 < 0 {
		return s, fmt.Errorf("%w: %s: negative ifindex", ErrAOKey, s)
	}
	out := s
	out.IfIndex = l3
	out.Keys = make([]AOKey, len(s.Keys))
	for i, k := range s.Keys {
		switch {
		case k.IfIndex == 0:
			k.IfIndex = l3
		case k.IfIndex != l3:
			return s, fmt.Errorf("%w: %s: %s is scoped to another ifindex (one set is one L3 scope)", ErrAOKey, s, k)
		}
		out.Keys[i] = k
	}
	return out, nil
}

// AOSocket is what the kernel reports of one of this process's sockets
// with TCP-AO keys.
type AOSocket struct {
	Local, Remote netip.AddrPort
	Listening     bool
	Family        int
	IfIndex       int // the bound device (SocketKeys.IfIndex)
	Keys          []ObservedAOKey
	// Info is the socket's current key, RNext and counters (HasInfo false
	// when the kernel gave none).
	Info    AOInfo
	HasInfo bool
}

// KeysForScope returns the socket's MKTs of the scope (p, ifindex): p's
// address and prefix length in the VRF with that ifindex (0: the unscoped
// MKTs). A scoped MKT read back with another ifindex, or unscoped, is not
// among them.
func (s AOSocket) KeysForScope(p netip.Prefix, ifindex int) []ObservedAOKey {
	var out []ObservedAOKey
	for _, k := range s.Keys {
		if k.InScope(p, ifindex) {
			out = append(out, k)
		}
	}
	return out
}

// KeysFor returns the socket's MKTs whose address and prefix length are p,
// of every L3 scope (see KeysForScope for one).
func (s AOSocket) KeysFor(p netip.Prefix) []ObservedAOKey {
	var out []ObservedAOKey
	for _, k := range s.Keys {
		if k.Prefix == p {
			out = append(out, k)
		}
	}
	return out
}

// WipeAO clears the secrets read back from the kernel.
func WipeAO(socks []AOSocket) {
	for _, s := range socks {
		for _, k := range s.Keys {
			k.Secret.Wipe()
		}
	}
}

// sameMKT reports whether the kernel's o is exactly k (ObservedAOKey.Matches).
func sameMKT(o ObservedAOKey, k AOKey) bool { return o.Matches(k) }

// aoApplies is the address family rule of ProcessSockets for TCP-AO.
func aoApplies(fam int, p netip.Prefix) (must, try bool) {
	v4 := p.Addr().Unmap().Is4()
	switch {
	case fam == afInet && v4, fam == afInet6 && !v4:
		return true, true
	case fam == afInet6 && v4:
		return false, true
	}
	return false, false
}
