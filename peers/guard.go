package peers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	api "github.com/osrg/gobgp/v3/api"
)

// ErrManagedByConfig marks a GoBGP API request refused because the config
// file owns what it would change.
var ErrManagedByConfig = errors.New("managed by the config file")

// GuardAPI decides, for a request on GoBGP's gRPC API, whether it may run
// (plugin.APIGuard). The config owns every peer, peer group and dynamic
// range: a request that would create, change, re-key, delete or enable
// against our decision any of them is refused, naming the file (and line)
// to change instead. Peers for addresses the config does not name are
// refused too (authbgpd runs no peer that /status does not show and no
// key it did not decide). Disable, shutdown and reset of configured peers
// stay allowed (they change no key and GoBGP reconnects with our key),
// except enabling a peer held down because its key is not installed.
func (m *Manager) GuardAPI(_ context.Context, req any) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch r := req.(type) {
	case *api.AddPeerRequest:
		return m.refusePeer("add", r.GetPeer().GetConf().GetNeighborAddress())
	case *api.UpdatePeerRequest:
		return m.refusePeer("update", r.GetPeer().GetConf().GetNeighborAddress())
	case *api.DeletePeerRequest:
		return m.refusePeer("delete", r.GetAddress())
	case *api.EnablePeerRequest:
		a, err := netip.ParseAddr(r.GetAddress())
		if err != nil {
			return nil // GoBGP answers a bad address itself
		}
		if st := m.peers[m.peerFor(nbr("", a))]; st != nil && st.heldDown {
			return fmt.Errorf("peers: %s is held down because its key is not installed (%v); fix that and reload: %w", r.GetAddress(), st.err, ErrManagedByConfig)
		}
		return nil
	case *api.AddPeerGroupRequest:
		return m.refuseGroup("add", r.GetPeerGroup().GetConf().GetPeerGroupName())
	case *api.UpdatePeerGroupRequest:
		return m.refuseGroup("update", r.GetPeerGroup().GetConf().GetPeerGroupName())
	case *api.DeletePeerGroupRequest:
		return m.refuseGroup("delete", r.GetName())
	case *api.AddDynamicNeighborRequest:
		return m.refuseRange("add", r.GetDynamicNeighbor().GetPrefix())
	case *api.DeleteDynamicNeighborRequest:
		return m.refuseRange("delete", r.GetPrefix())
	case *api.StartBgpRequest, *api.StopBgpRequest:
		return fmt.Errorf("peers: the global BGP settings are configured in %s; change them there and restart authbgpd: %w", m.cfg.File, ErrManagedByConfig)
	}
	return nil
}

func (m *Manager) refusePeer(op, addr string) error {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return fmt.Errorf("peers: %s peer %q: not an IP address; peers are configured in %s: %w", op, addr, m.cfg.File, ErrManagedByConfig)
	}
	a = a.Unmap()
	if id := m.peerFor(nbr("", a)); id != "" { // the API reaches the default VRF's instance alone
		cp := m.cfg.Peer(id)
		what := a.String()
		if cp.IsDynamic() {
			what = fmt.Sprintf("%s (in dynamic range %s)", a, cp.Prefix)
		}
		return fmt.Errorf("peers: %s is configured in %s (line %d); change it there and reload: %w", what, m.cfg.File, cp.Line, ErrManagedByConfig)
	}
	return fmt.Errorf("peers: %s is not in %s; authbgpd runs only the peers its config names: add it there and reload: %w", a, m.cfg.File, ErrManagedByConfig)
}

func (m *Manager) refuseGroup(op, name string) error {
	for i := range m.cfg.Peers {
		if cp := &m.cfg.Peers[i]; cp.IsDynamic() && groupName(cp.VRF, cp.Prefix) == name {
			return fmt.Errorf("peers: peer group %s carries dynamic range %s, configured in %s (line %d); change it there and reload: %w", name, cp.Prefix, m.cfg.File, cp.Line, ErrManagedByConfig)
		}
	}
	return fmt.Errorf("peers: cannot %s peer group %q: peer groups are made from the dynamic ranges of %s; configure the range there and reload: %w", op, name, m.cfg.File, ErrManagedByConfig)
}

func (m *Manager) refuseRange(op, prefix string) error {
	if p, err := netip.ParsePrefix(strings.TrimSpace(prefix)); err == nil {
		p = p.Masked()
		for i := range m.cfg.Peers {
			if cp := &m.cfg.Peers[i]; cp.IsDynamic() && cp.Prefix.Masked() == p {
				return fmt.Errorf("peers: dynamic range %s is configured in %s (line %d); change it there and reload: %w", p, m.cfg.File, cp.Line, ErrManagedByConfig)
			}
		}
	}
	return fmt.Errorf("peers: cannot %s dynamic range %q: ranges are configured in %s only; add it there and reload: %w", op, prefix, m.cfg.File, ErrManagedByConfig)
}
