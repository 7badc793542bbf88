package peers

import (
	"context"
	"net/netip"
	"sort"
	"sync/atomic"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// statusView is what /status reads without m.mu: the peers as the last
// pass left them (Status), and GoBGP's count of the events it dropped
// (nil: it keeps none).
type statusView struct {
	lastStatus atomic.Pointer[[]status.Peer]
	dropped    func() uint64
}

// Status returns the peers part of /status: every configured peer, and
// every session accepted from a dynamic range.
//
// Status never waits on long work (a reload holds the manager for as long
// as GoBGP takes): if the manager stays busy for more than a moment, the
// last snapshot is returned.
func (m *Manager) Status() []status.Peer {
	for i := 0; !m.mu.TryLock(); i++ {
		if i == 20 {
			if p := m.lastStatus.Load(); p != nil {
				return append([]status.Peer(nil), (*p)...)
			}
			m.mu.Lock()
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	out := m.statusLocked()
	b, now := m.bgp, m.now()
	var changed time.Time // the last session change: GoBGP's answer must be newer
	for _, s := range m.sess {
		if s.since.After(changed) {
			changed = s.since
		}
	}
	m.mu.Unlock()
	if b != nil {
		ctx, cancel := context.WithTimeout(context.Background(), gobgpWait)
		addSessions(ctx, out, b, now, changed)
		cancel()
	}
	m.lastStatus.Store(&out)
	return append([]status.Peer(nil), out...)
}

func (m *Manager) statusLocked() []status.Peer {
	now := m.now()
	var out []status.Peer
	for id, st := range m.peers {
		cp := st.cfg
		a := status.Auth{Mode: config.AuthNone}
		if au := cp.Auth(); au.Mode != config.AuthNone {
			// Installed is what the sockets were seen to carry: with the
			// kernel's view (sock_diag) a key counts only once read back
			// from every listener and session; without it (no
			// CAP_NET_ADMIN), the install calls' success is all we know.
			inst := st.observedInstalled()
			a = status.Auth{Mode: au.Mode, Source: au.Source, Keychain: au.Keychain, Installed: inst, Verified: st.obs.by}
			if st.keyID >= 0 {
				id := st.keyID
				a.KeyID = &id
			}
			m.nextKey(&a, now)
			if au.Mode == config.AuthTCPAO {
				aoStatus(&a, st)
			}
			switch {
			case st.err != nil:
				a.Error = st.err.Error()
			case st.obs.drift != "":
				a.Error = "drift: " + st.obs.drift
			}
		}
		if !cp.IsDynamic() {
			a.DialError = m.dialError(nbrOf(cp))
		}
		if !cp.IsDynamic() {
			p := status.Peer{Address: cp.Address.String(), Interface: cp.Interface, VRF: cp.VRF, ASN: cp.ASN, State: "idle", Auth: a, PrefixLimit: m.prefixLimitStatus(id, cp), Policy: policyStatus(m.cfg, cp)}
			if cp.IsInterface() && !cp.Address.IsValid() {
				p.Address = ""
			}
			if s := m.sess[nbrOf(cp)]; s != nil {
				p.State = s.state
				if s.state == "established" && !s.since.IsZero() {
					p.UptimeSeconds = int64(now.Sub(s.since).Seconds())
				}
				setEnds(&p, s)
			}
			if s := m.sess[nbrOf(cp)]; st.heldDown || (s != nil && s.adminDown) {
				p.State = "admin-down"
			}
			out = append(out, p)
			continue
		}
		lim := m.prefixLimitStatus(id, cp)
		pfx := cp.Prefix.String() // a VRF's range is named by its prefix and vrf
		rng := status.Peer{Address: pfx, Prefix: pfx, VRF: cp.VRF, ASN: cp.ASN, State: "listening", Auth: a, PrefixLimit: lim, Policy: policyStatus(m.cfg, cp)}
		if st.heldDown {
			rng.State = "admin-down"
		}
		out = append(out, rng)
		for nb, s := range m.sess {
			if nb.VRF != cp.VRF || !cp.Prefix.Contains(nb.Addr) || m.isStatic(nb) || m.peerFor(nb) != id {
				continue
			}
			p := status.Peer{Address: nb.Addr.String(), Prefix: pfx, VRF: cp.VRF, ASN: cp.ASN, State: s.state, Auth: a, PrefixLimit: lim, Policy: rng.Policy}
			if s.state == "established" && !s.since.IsZero() {
				p.UptimeSeconds = int64(now.Sub(s.since).Seconds())
			}
			setEnds(&p, s)
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

func less(a, b status.Peer) bool {
	if a.Prefix != b.Prefix {
		return a.Prefix < b.Prefix
	}
	if a.Address == b.Address { // one address in two VRFs: the default VRF's first
		return a.VRF < b.VRF
	}
	x, e1 := netip.ParseAddr(a.Address)
	y, e2 := netip.ParseAddr(b.Address)
	if e1 == nil && e2 == nil {
		return x.Less(y)
	}
	return a.Address < b.Address
}

// Healthy reports an error when TCP-MD5 cannot work at all here while
// keyed peers are configured.
func (m *Manager) Healthy() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.preErr
}

// gobgpWait bounds how long /status waits for GoBGP's peer state; past it
// the last answer is used (GoBGP serves management calls one at a time).
const gobgpWait = 200 * time.Millisecond

// sessionSource is what /status reads of GoBGP's sessions (*plugin.Host).
type sessionSource interface {
	PeerStates(ctx context.Context, after time.Time) ([]*api.Peer, time.Time, error)
	LastNotification(vrf string, addr netip.Addr) (plugin.Notification, bool)
	LastDown(vrf string, addr netip.Addr) (plugin.Down, bool)
	Malformed(vrf string, addr netip.Addr) (plugin.Malformed, bool)
}

// setEnds copies the TCP session's ends of an Established session.
func setEnds(p *status.Peer, s *session) {
	if s.state != "established" || !s.local.IsValid() {
		return
	}
	p.LocalAddress = s.local.Addr().Unmap().String()
	p.LocalPort = s.local.Port()
	p.RemotePort = s.remote.Port()
}

// addSessions fills what GoBGP knows of each peer's session: timers,
// families and prefix counts, message counts, time down, and the last
// NOTIFICATION and down reason.
func addSessions(ctx context.Context, out []status.Peer, g sessionSource, now, changed time.Time) {
	list, _, _ := g.PeerStates(ctx, changed)
	byAddr := make(map[neighbor]*api.Peer, len(list))
	for _, p := range list {
		if a, ok := plugin.NeighborAddr(p); ok {
			byAddr[nbr(plugin.VRFOf(p), a)] = p
		}
	}
	for i := range out {
		p := &out[i]
		if p.Prefix != "" && p.Prefix == p.Address {
			continue // a dynamic range: no session of its own
		}
		a, err := netip.ParseAddr(p.Address)
		if err != nil {
			continue
		}
		if gp := byAddr[nbr(p.VRF, a)]; gp != nil {
			fromGoBGP(p, gp, now)
		}
		if n, ok := g.LastNotification(p.VRF, a); ok {
			p.LastNotification = &status.Notification{Code: n.Code, Subcode: n.Subcode, Text: n.Text,
				Direction: n.Direction, At: n.At.UTC().Format(time.RFC3339)}
		}
		if d, ok := g.LastDown(p.VRF, a); ok {
			p.LastError = &status.LastError{Reason: d.Reason, At: d.At.UTC().Format(time.RFC3339)}
			if d.Malformed != nil {
				p.LastError.Malformed = d.Malformed.String()
			}
			if d.PrefixLimit && p.PrefixLimit != nil {
				p.LastError.MaxPrefixes = p.PrefixLimit.MaxPrefixes
			}
		}
		if m, ok := g.Malformed(p.VRF, a); ok {
			p.Malformed = malformedStatus(m)
		}
	}
}

// malformedStatus is m as /status shows it.
func malformedStatus(m plugin.Malformed) *status.Malformed {
	l := m.Last
	return &status.Malformed{Updates: m.Updates, Other: m.Other, ByHandling: m.ByHandling, Panics: m.Panics,
		Last: status.MalformedMessage{Message: l.Message, Handling: l.Handling, Code: l.Code, Subcode: l.Subcode,
			Text: l.Text, Reason: l.Reason, Panic: l.Panic, At: l.At.UTC().Format(time.RFC3339)}}
}

// fromGoBGP copies one GoBGP neighbor's state into p.
func fromGoBGP(p *status.Peer, gp *api.Peer, now time.Time) {
	if t := gp.GetTimers(); t != nil {
		c, s := t.GetConfig(), t.GetState()
		p.Timers = &status.Timers{HoldTime: c.GetHoldTime(), Keepalive: c.GetKeepaliveInterval(),
			ConnectRetry: c.GetConnectRetry()}
		if p.State == "established" {
			p.Timers.NegotiatedHoldTime, p.Timers.NegotiatedKeepalive = s.GetNegotiatedHoldTime(), s.GetKeepaliveInterval()
		} else if d := s.GetDowntime(); d != nil && d.GetSeconds() > 0 {
			secs := max(int64(now.Sub(d.AsTime()).Seconds()), 0)
			p.DowntimeSeconds = &secs
		}
	}
	neg := map[string]bool{}
	for _, f := range plugin.NegotiatedFamilies(gp.GetState()) {
		neg[f] = true
	}
	for _, af := range gp.GetAfiSafis() {
		if !af.GetConfig().GetEnabled() {
			continue
		}
		f := status.Family{Name: plugin.FamilyName(af.GetConfig().GetFamily()), Negotiated: p.State == "established" && neg[plugin.FamilyName(af.GetConfig().GetFamily())]}
		if st := af.GetState(); st != nil {
			f.Received, f.Accepted = st.GetReceived(), st.GetAccepted()
			if p.State == "established" { // GoBGP counts what it would send even without a session
				f.Sent = st.GetAdvertised()
			}
		}
		p.Families = append(p.Families, f)
	}
	if m := gp.GetState().GetMessages(); m != nil {
		p.Messages = &status.Messages{Sent: counts(m.GetSent()), Received: counts(m.GetReceived())}
	}
}

func counts(m *api.Message) status.MessageCounts {
	return status.MessageCounts{Open: m.GetOpen(), Update: m.GetUpdate(), Notification: m.GetNotification(),
		Keepalive: m.GetKeepalive(), Refresh: m.GetRefresh(), Total: m.GetTotal()}
}

// nextKey sets the keychain's next scheduled key and its start.
func (m *Manager) nextKey(a *status.Auth, now time.Time) {
	kc := m.cfg.Keychain(a.Keychain)
	if a.Keychain == "" || kc == nil {
		return
	}
	at, ok := kc.NextSwitch(now)
	if !ok {
		return
	}
	if k, ok := kc.Active(at); ok {
		id := int(k.ID)
		a.NextKeyID, a.NextKeyAt = &id, at.UTC().Format(time.RFC3339)
	}
}

// aoStatus adds a TCP-AO peer's KeyIDs in use and the kernel's counters.
func aoStatus(a *status.Auth, st *peer) {
	if len(st.ao.Keys) > 0 && st.ao.Current >= 0 {
		send, recv := st.ao.Current, st.ao.RNext
		a.SendID, a.RecvID = &send, &recv
		a.AcceptICMPs = st.ao.AcceptICMPs
	}
	if st.aoCurrent >= 0 {
		cur := st.aoCurrent
		a.PeerRNextKeyID, a.SendID = &cur, &cur
	}
	if k := st.aoKernel; k != nil {
		c := k.Counts
		a.Kernel = &c
	}
}
