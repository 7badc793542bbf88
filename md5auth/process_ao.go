package md5auth

import (
	"net/netip"
)

// AOSet is the TCP-AO state wanted for one peer (an address or a range):
// its master key tuples, and on its connections the key to send with and
// the key to ask the peer for.
type AOSet struct {
	Prefix netip.Prefix
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
func (s AOSet) String() string { return "tcp-ao keys for " + s.Prefix.String() }

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

// KeysFor returns the socket's MKTs whose scope is p.
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
