package srv6

import "github.com/authbgp/authbgpd/status"

// Status is the srv6 part of /status: the configured keys, the configured
// policies (advertised) and the received ones (installed), never a secret.
// It never waits behind a pass (which may hold the lock for seconds while
// the kernel or GoBGP answer): it then returns the last snapshot.
func (s *Manager) Status() status.SRv6 {
	if !s.mu.TryLock() {
		if p := s.lastStatus.Load(); p != nil {
			return *p
		}
		return status.SRv6{HMACKeys: []status.HMACKey{}, Policies: []status.Policy{}}
	}
	defer s.mu.Unlock()
	st := s.statusLocked()
	s.lastStatus.Store(&st)
	return st
}

func (s *Manager) statusLocked() status.SRv6 {
	st := status.SRv6{HMACKeys: []status.HMACKey{}, Policies: []status.Policy{}}
	for _, ck := range s.cfg.SRv6.HMACKeys {
		hk := status.HMACKey{ID: ck.ID, Algorithm: ck.Algorithm}
		if k := s.keys.keys[ck.ID]; k != nil {
			hk.Installed, hk.Error = k.installed, k.err
		} else if !s.started {
			hk.Error = "not started"
		}
		st.HMACKeys = append(st.HMACKeys, hk)
	}
	for _, cp := range s.cfg.SRv6.Policies {
		p := status.Policy{Name: cp.Name}
		if a := s.adv[cp.Name]; a != nil {
			p.Advertised, p.Reason = a.advertised, a.err
		}
		st.Policies = append(st.Policies, p)
	}
	if s.he != nil {
		for _, c := range s.he.cands {
			st.Policies = append(st.Policies, status.Policy{Name: c.Name, Installed: c.Installed, Reason: c.Reason})
		}
	}
	return st
}
