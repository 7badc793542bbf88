package peers

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// The pass's view of the listeners' TCP-MD5 keys, as the kernel showed
// them at the pass's start, and the check of one peer's key against it.

// listeners are the observed listeners on the BGP port.
func (p *pass) listeners() []tcpsock.SocketKeys {
	var out []tcpsock.SocketKeys
	for _, s := range p.obs.Sockets {
		if s.Listening && p.m.port != 0 && s.Local.Port() == p.m.port {
			out = append(out, s)
		}
	}
	return out
}

// listenerKeyIndex is one observed listener with its TCP-MD5 keys by
// prefix.
type listenerKeyIndex struct {
	local netip.AddrPort
	v4    bool
	keys  map[netip.Prefix][]keys.Secret
}

// listenerKeys indexes the pass's observed listeners by key prefix, once a
// pass: every peer's check asks it (a walk of every socket and every key
// per peer was O(peers²)).
func (p *pass) listenerKeys() []listenerKeyIndex {
	if p.lkeys == nil {
		p.lkeys = indexListenerKeys(p.listeners())
	}
	return p.lkeys
}

func indexListenerKeys(ls []tcpsock.SocketKeys) []listenerKeyIndex {
	out := make([]listenerKeyIndex, 0, len(ls))
	for _, l := range ls {
		x := listenerKeyIndex{local: l.Local, v4: l.Family == afInet, keys: make(map[netip.Prefix][]keys.Secret, len(l.Keys))}
		for _, o := range l.Keys {
			x.keys[o.Prefix] = append(x.keys[o.Prefix], o.Secret)
		}
		out = append(out, x)
	}
	return out
}

// listenerProblems says what is wrong with key k on the listeners of its
// family ("" nothing): a listener without k's secret for k's prefix, or
// with a key for it that is neither k's nor wanted's. wanted are the
// secrets every desired peer of that prefix has (k's too): the same
// address in two VRFs is two peers, each key scoped to its VRF's l3index,
// which sock_diag does not show, so one listener carries both keys for
// one prefix.
func listenerProblems(k md5auth.Key, wanted []keys.Secret, listeners []listenerKeyIndex) string {
	v4 := k.Prefix.Addr().Is4()
	for _, l := range listeners {
		if l.v4 != v4 {
			continue
		}
		got := l.keys[k.Prefix]
		if len(got) == 0 {
			return fmt.Sprintf("listener %s has no key for %s", l.local, k.Prefix)
		}
		mine := false
		for _, o := range got {
			mine = mine || k.Secret.Equal(o)
			if !k.Secret.Equal(o) && !slices.ContainsFunc(wanted, o.Equal) {
				return fmt.Sprintf("listener %s carries another key for %s", l.local, k.Prefix)
			}
		}
		if !mine {
			return fmt.Sprintf("listener %s carries another key for %s", l.local, k.Prefix)
		}
	}
	// No listener of the peer's family (listen-addresses names none): only
	// dialed sockets carry the key, nothing to check here.
	return ""
}
