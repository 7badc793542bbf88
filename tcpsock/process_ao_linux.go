//go:build linux

package tcpsock

import (
	"errors"
	"net/netip"
)

// SetListenerAO makes every listener of this process on port that can
// receive connections from set's address family hold exactly set.Keys for
// set.Prefix: missing MKTs are added, changed ones replaced, and MKTs of
// that scope no longer wanted deleted. It returns how many listeners had to
// carry them and do. An error for any listener that must carry them is an
// error (a listener without TCP-AO support, a scope that has TCP-MD5 keys,
// no memory); finding no listener is not. The kernel then drops a SYN from
// the scope that carries no TCP-AO option (TCPAORequired), or one signed
// with an unknown KeyID.
//
// The scope is (set.Prefix, set.L3Index()): a set scoped to a VRF touches
// only the MKTs of that VRF, an unscoped set only the unscoped ones. A
// scope the kernel refuses (ErrScope) fails; nothing is installed unscoped
// in its place.
func (ProcessSockets) SetListenerAO(port uint16, set AOSet) (int, error) {
	set, err := set.scoped()
	if err != nil {
		return 0, err
	}
	return eachListener(port, func(fam int) (bool, bool) { return aoApplies(fam, set.Prefix) },
		func(s *Socket, _ bool) error { return syncMKTs(s, set) })
}

// DeleteListenerAO removes every MKT of p from the listeners on port, in
// every L3 scope: unscoped and scoped to any VRF (a peer that is gone, or
// moved to another VRF, leaves none behind). DeleteListenerAOScope removes
// one scope's only.
func (ProcessSockets) DeleteListenerAO(port uint16, p netip.Prefix) error {
	_, err := eachListener(port, func(fam int) (bool, bool) { return aoApplies(fam, p) }, deleteAllScopesOp(p))
	return err
}

// deleteAllScopesOp takes every MKT of p, in every L3 scope, off a
// listener (DeleteListenerAO).
func deleteAllScopesOp(p netip.Prefix) func(s *Socket, _ bool) error {
	return func(s *Socket, _ bool) error {
		have, err := s.AOKeys()
		if err != nil {
			return err
		}
		defer wipeObservedAO(have)
		for _, o := range have {
			if o.Prefix == p.Masked() {
				if err := s.DeleteAOKey(o.AOKey); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// DeleteListenerAOScope removes every MKT of the scope (p, ifindex) from
// the listeners on port: p's MKTs scoped to the VRF with that ifindex (0:
// the unscoped ones), and none of another scope. It works after the VRF is
// gone (TCP_AO_DEL_KEY does not look the device up).
func (ProcessSockets) DeleteListenerAOScope(port uint16, p netip.Prefix, ifindex int) error {
	_, err := eachListener(port, func(fam int) (bool, bool) { return aoApplies(fam, p) },
		func(s *Socket, _ bool) error {
			return syncMKTs(s, AOSet{Prefix: p, IfIndex: ifindex, Current: -1, RNext: -1})
		})
	return err
}

// SetConnAO brings the established connection local->remote in line with
// set: missing MKTs added (a new key of the chain), the current key and
// RNextKeyID set (the peer then switches to RNext; our current key follows
// what the peer asks for), segments without TCP-AO refused, and MKTs no
// longer wanted deleted when the kernel lets go of them (a key in use is
// kept until the switch is done).
func (ProcessSockets) SetConnAO(local, remote netip.AddrPort, set AOSet) error {
	set, err := set.scoped()
	if err != nil {
		return err
	}
	s, err := FindConn(local, remote)
	if err != nil {
		return &contextError{what: "set TCP-AO keys of session " + local.String() + "-" + remote.String(), err: err}
	}
	defer s.Close()
	return setConnAO(s, set)
}

// setConnAO is SetConnAO on the connection s.
func setConnAO(s *Socket, set AOSet) error {
	have, err := s.AOKeys()
	if err != nil {
		return err
	}
	defer wipeObservedAO(have)
	for _, k := range set.Keys {
		if !hasMKT(have, k) {
			if err := s.AddAOKey(k, false, false); err != nil {
				return err
			}
		}
	}
	if err := s.SetAOInfo(set.Current, set.RNext, true, set.AcceptICMPs); err != nil {
		return err
	}
	for _, o := range have {
		if o.InScope(set.Prefix, set.IfIndex) && !wanted(set, o) && !o.IsCurrent && !o.IsRNext {
			_ = s.DeleteAOKey(o.AOKey) // EBUSY while in use: the next pass tries again
		}
	}
	return nil
}

// ObserveAO reports this process's sockets on port (listeners on it and
// connections to or from it) that hold TCP-AO keys, with their keys and
// state. Wipe the result's secrets (WipeAO) when done.
func (ProcessSockets) ObserveAO(port uint16) ([]AOSocket, error) {
	socks, err := scan(func(s *Socket) bool {
		return s.Protocol != ProtoMPTCP && (s.Local.Port() == port || (!s.Listening && s.Remote.Port() == port))
	}, false)
	if err != nil {
		return nil, err
	}
	return observeAO(socks)
}

// observeAO reads the TCP-AO keys and state of socks (multipath TCP ones
// skipped) and closes them.
func observeAO(socks []*Socket) ([]AOSocket, error) {
	defer closeAll(socks)
	var out []AOSocket
	for _, s := range socks {
		if s.Protocol == ProtoMPTCP {
			continue
		}
		keys, err := s.AOKeys()
		if errors.Is(err, ErrNoTCPAO) {
			WipeAO(out)
			return nil, err
		}
		if err != nil || len(keys) == 0 {
			continue
		}
		a := AOSocket{Local: s.Local, Remote: s.Remote, Listening: s.Listening, Family: s.Family, IfIndex: s.IfIndex, Keys: keys}
		if info, err := s.AOInfo(); err == nil {
			a.Info, a.HasInfo = info, true
		}
		out = append(out, a)
	}
	return out, nil
}

// syncMKTs makes socket s hold exactly set.Keys for the scope (set.Prefix,
// set.IfIndex; set is scoped()), leaving MKTs of every other scope alone.
// New keys go on before old ones come off, so the scope is never without a
// key; a key whose KeyIDs stay but whose material changes can only be
// replaced (the kernel refuses two MKTs with the same KeyIDs).
func syncMKTs(s *Socket, set AOSet) error {
	have, err := s.AOKeys()
	if err != nil {
		return err
	}
	defer wipeObservedAO(have)
	var later []AOKey
	for _, k := range set.Keys {
		switch {
		case hasMKT(have, k):
		case idsTaken(have, k):
			later = append(later, k)
		default:
			if err := s.AddAOKey(k, false, false); err != nil {
				return err
			}
		}
	}
	for _, o := range have {
		if o.InScope(set.Prefix, set.IfIndex) && !wanted(set, o) {
			if err := s.DeleteAOKey(o.AOKey); err != nil {
				return err
			}
		}
	}
	for _, k := range later {
		if err := s.AddAOKey(k, false, false); err != nil {
			return err
		}
	}
	return nil
}

// idsTaken reports whether an MKT of k's scope already uses k's KeyIDs.
func idsTaken(have []ObservedAOKey, k AOKey) bool {
	for _, o := range have {
		if o.InScope(k.Prefix, k.IfIndex) && (o.SendID == k.SendID || o.RecvID == k.RecvID) {
			return true
		}
	}
	return false
}

// wanted reports whether the kernel's o is one of set's keys exactly.
func wanted(set AOSet, o ObservedAOKey) bool {
	for _, k := range set.Keys {
		if sameMKT(o, k) {
			return true
		}
	}
	return false
}

func hasMKT(have []ObservedAOKey, k AOKey) bool {
	for _, o := range have {
		if sameMKT(o, k) {
			return true
		}
	}
	return false
}

func wipeObservedAO(keys []ObservedAOKey) {
	for _, k := range keys {
		k.Secret.Wipe()
	}
}

// PreflightAO reports what stops TCP-AO from working here: a kernel
// without it (ErrNoTCPAO).
func (ProcessSockets) PreflightAO() error { return CheckTCPAO() }
