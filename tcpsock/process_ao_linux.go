//go:build linux

package tcpsock

import (
	"errors"
	"net/netip"
)

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
