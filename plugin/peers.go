package plugin

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/protobuf/proto"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/redact"
)

// ErrNotRunning is returned by operations that need a started Host.
var ErrNotRunning = errors.New("plugin: BGP is not running")

func (h *Host) checkRunning() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != stateRunning && h.state != stateStarting {
		return ErrNotRunning
	}
	return nil
}

// acceptSecrets refuses m if it carries the Redacted placeholder as a
// secret (redact.ErrPlaceholder), and registers its secrets with the log
// scrubber.
func (h *Host) acceptSecrets(m proto.Message) error {
	secrets, err := redact.Secrets(m)
	for _, s := range secrets {
		h.secrets.Add(s)
	}
	return err
}

// AddPeer adds a neighbor. With Conf.AuthPassword set GoBGP installs the
// TCP-MD5 key on its listeners and on the sockets it dials (it only logs a
// warning if that fails).
func (h *Host) AddPeer(ctx context.Context, p *api.Peer) error { return h.AddPeerIn(ctx, "", p) }

// AddPeerIn adds a neighbor to the GoBGP instance of vrf ("" the default
// VRF), made when it is the VRF's first (vrfs.go).
func (h *Host) AddPeerIn(ctx context.Context, vrf string, p *api.Peer) error {
	if p == nil || p.Conf == nil {
		return errors.New("plugin: AddPeer: nil peer or peer config")
	}
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.acceptSecrets(p); err != nil {
		return fmt.Errorf("plugin: add peer %s: %w", p.Conf.NeighborAddress, err)
	}
	s, err := h.serverIn(ctx, vrf)
	if err != nil {
		return fmt.Errorf("plugin: add peer %s: %w", p.Conf.NeighborAddress, err)
	}
	if err := s.AddPeer(ctx, &api.AddPeerRequest{Peer: p}); err != nil {
		return fmt.Errorf("plugin: add peer %s: %w", p.Conf.NeighborAddress, err)
	}
	h.place(p.Conf.NeighborAddress, vrf)
	return nil
}

// UpdatePeer replaces a neighbor's configuration. needsSoftResetIn reports
// GoBGP's answer: policies changed and an inbound soft reset
// (ResetPeer soft, direction IN) is needed to apply them. A changed
// password makes GoBGP reset the session itself.
func (h *Host) UpdatePeer(ctx context.Context, p *api.Peer) (needsSoftResetIn bool, err error) {
	if p == nil || p.Conf == nil {
		return false, errors.New("plugin: UpdatePeer: nil peer or peer config")
	}
	return h.UpdatePeerIn(ctx, h.vrfOf(p.Conf.NeighborAddress), p)
}

// UpdatePeerIn is UpdatePeer for the neighbor of vrf's instance ("" the
// default VRF's).
func (h *Host) UpdatePeerIn(ctx context.Context, vrf string, p *api.Peer) (needsSoftResetIn bool, err error) {
	if p == nil || p.Conf == nil {
		return false, errors.New("plugin: UpdatePeer: nil peer or peer config")
	}
	if err := h.checkRunning(); err != nil {
		return false, err
	}
	if err := h.acceptSecrets(p); err != nil {
		return false, fmt.Errorf("plugin: update peer %s: %w", p.Conf.NeighborAddress, err)
	}
	s, err := h.serverAt(vrf)
	if err != nil {
		return false, fmt.Errorf("plugin: update peer %s: %w", p.Conf.NeighborAddress, err)
	}
	r, err := s.UpdatePeer(ctx, &api.UpdatePeerRequest{Peer: p})
	if err != nil {
		return false, fmt.Errorf("plugin: update peer %s: %w", p.Conf.NeighborAddress, err)
	}
	return r.GetNeedsSoftResetIn(), nil
}

// DeletePeer removes a neighbor; an established session gets a NOTIFICATION
// Cease / Peer De-configured. Subscribers get a PeerEvent with Deleted set.
// GoBGP does not remove the TCP-MD5 key from its listeners (docs/ARCHITECTURE.md, facts).
func (h *Host) DeletePeer(ctx context.Context, addr string) error {
	return h.DeletePeerIn(ctx, h.vrfOf(addr), addr)
}

// DeletePeerIn is DeletePeer for the neighbor of vrf's instance.
func (h *Host) DeletePeerIn(ctx context.Context, vrf, addr string) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	s, err := h.serverAt(vrf)
	if err != nil {
		return fmt.Errorf("plugin: delete peer %s: %w", addr, err)
	}
	if err := s.DeletePeer(ctx, &api.DeletePeerRequest{Address: addr}); err != nil {
		return fmt.Errorf("plugin: delete peer %s: %w", addr, err)
	}
	if a, err := netip.ParseAddr(addr); err == nil {
		h.ev.publish(PeerEvent{VRF: vrf, Peer: a.Unmap(), State: "idle", Time: timeNow(), Deleted: true})
	}
	return nil
}

// DisablePeer administratively disables a neighbor: an established session
// gets a NOTIFICATION Cease / Administrative Shutdown carrying communication
// (RFC 9003, may be empty), and GoBGP does not reconnect until EnablePeer.
func (h *Host) DisablePeer(ctx context.Context, addr, communication string) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.serverOf(addr).DisablePeer(ctx, &api.DisablePeerRequest{Address: addr, Communication: communication}); err != nil {
		return fmt.Errorf("plugin: disable peer %s: %w", addr, err)
	}
	return nil
}

// EnablePeer re-enables a neighbor disabled with DisablePeer.
func (h *Host) EnablePeer(ctx context.Context, addr string) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.serverOf(addr).EnablePeer(ctx, &api.EnablePeerRequest{Address: addr}); err != nil {
		return fmt.Errorf("plugin: enable peer %s: %w", addr, err)
	}
	return nil
}

// ShutdownPeer sends a NOTIFICATION Cease / Administrative Shutdown with
// communication to an established neighbor ("" addr: all of them). Unlike
// DisablePeer the neighbor stays enabled: GoBGP reconnects.
func (h *Host) ShutdownPeer(ctx context.Context, addr, communication string) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.serverOf(addr).ShutdownPeer(ctx, &api.ShutdownPeerRequest{Address: addr, Communication: communication}); err != nil {
		return fmt.Errorf("plugin: shutdown peer %s: %w", addr, err)
	}
	return nil
}

// ResetPeer resets a neighbor's session (hard: NOTIFICATION Cease / Admin
// Reset with communication) or, with soft, re-sends / re-evaluates routes in
// direction dir without dropping the session.
func (h *Host) ResetPeer(ctx context.Context, addr, communication string, soft bool, dir api.ResetPeerRequest_SoftResetDirection) error {
	return h.ResetPeerIn(ctx, h.vrfOf(addr), addr, communication, soft, dir)
}

// ResetPeerIn is ResetPeer for the neighbor of vrf's instance.
func (h *Host) ResetPeerIn(ctx context.Context, vrf, addr, communication string, soft bool, dir api.ResetPeerRequest_SoftResetDirection) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	s, err := h.serverAt(vrf)
	if err != nil {
		return fmt.Errorf("plugin: reset peer %s: %w", addr, err)
	}
	r := &api.ResetPeerRequest{Address: addr, Communication: communication, Soft: soft, Direction: dir}
	if err := s.ResetPeer(ctx, r); err != nil {
		return fmt.Errorf("plugin: reset peer %s: %w", addr, err)
	}
	return nil
}

// ListPeer returns the neighbor addr ("" = all), with passwords redacted
// (a non-empty AuthPassword reads Redacted). A VRF instance's neighbors
// carry their VRF in Conf.Vrf (VRFOf).
func (h *Host) ListPeer(ctx context.Context, addr string) ([]*api.Peer, error) {
	if addr == "" {
		return h.listPeer(ctx, h.instances(), "")
	}
	return h.ListPeerIn(ctx, h.vrfOf(addr), addr)
}

// ListPeerIn is ListPeer for the neighbor addr of vrf's instance.
func (h *Host) ListPeerIn(ctx context.Context, vrf, addr string) ([]*api.Peer, error) {
	s, err := h.serverAt(vrf)
	if err != nil {
		return nil, fmt.Errorf("plugin: list peer %q: %w", addr, err)
	}
	return h.listPeer(ctx, []instance{{vrf, s}}, addr)
}

// VRFOf is the VRF of a neighbor that ListPeer, PeersAndPasswords or
// PeerStates returned ("" the default VRF).
func VRFOf(p *api.Peer) string { return p.GetConf().GetVrf() }

// listed is p as the Host answers it: redacted, and with the VRF of the
// instance it came from in Conf.Vrf (the instances themselves hold no
// GoBGP VRF: a VRF is an instance of its own).
func listed(p *api.Peer, vrf string) *api.Peer {
	c := redact.Proto(p)
	if vrf != "" {
		if c.Conf == nil {
			c.Conf = &api.PeerConf{}
		}
		c.Conf.Vrf = vrf
	}
	return c
}

func (h *Host) listPeer(ctx context.Context, ins []instance, addr string) ([]*api.Peer, error) {
	req := &api.ListPeerRequest{Address: addr}
	if err := h.checkRunning(); err != nil {
		return nil, err
	}
	// GoBGP's ListPeer waits for its main loop whatever ctx says. A loop
	// known to be stalled is not asked, and a caller (a /metrics scrape)
	// waits no longer than ctx: the scrape answers, with the watchdog's
	// gauge, while the loop does not (the call's goroutine waits for it).
	if err := h.LoopHealth(); err != nil {
		return nil, fmt.Errorf("plugin: list peer %q: %w", addr, err)
	}
	type answer struct {
		peers []*api.Peer
		err   error
	}
	ch := make(chan answer, 1)
	go func() {
		var out []*api.Peer
		var err error
		for _, in := range ins {
			if err = in.srv.ListPeer(ctx, req, func(p *api.Peer) {
				out = append(out, listed(p, in.vrf))
			}); err != nil {
				break
			}
		}
		ch <- answer{out, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return nil, fmt.Errorf("plugin: list peer %q: %w", addr, a.err)
		}
		return a.peers, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("plugin: list peer %q: GoBGP did not answer: %w", addr, ctx.Err())
	}
}

// PeersAndPasswords is ListPeer(ctx, "") (redacted answers, each with its
// VRF) together with the TCP-MD5 password GoBGP holds for each neighbor
// (empty for none; passwords[i] is peers[i]'s), from one walk of GoBGP's
// neighbors, so the peers manager can compare them with the keys it
// decided. The passwords never leave the process: they are not logged,
// and every API answer stays redacted.
func (h *Host) PeersAndPasswords(ctx context.Context) (peers []*api.Peer, passwords []keys.Secret, err error) {
	if err := h.checkRunning(); err != nil {
		return nil, nil, err
	}
	for _, in := range h.instances() {
		err := in.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
			passwords = append(passwords, keys.Secret(p.GetConf().GetAuthPassword()))
			peers = append(peers, listed(p, in.vrf))
		})
		if err != nil {
			return nil, nil, fmt.Errorf("plugin: list peers and passwords: %w", err)
		}
	}
	return peers, passwords, nil
}

// AddPeerGroup adds a peer group (its AuthPassword applies to members and
// to dynamic neighbors accepted through it).
func (h *Host) AddPeerGroup(ctx context.Context, g *api.PeerGroup) error {
	return h.AddPeerGroupIn(ctx, "", g)
}

// AddPeerGroupIn adds a peer group to the GoBGP instance of vrf ("" the
// default VRF); its dynamic neighbors are accepted there.
func (h *Host) AddPeerGroupIn(ctx context.Context, vrf string, g *api.PeerGroup) error {
	if g == nil || g.Conf == nil {
		return errors.New("plugin: AddPeerGroup: nil group or group config")
	}
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.acceptSecrets(g); err != nil {
		return fmt.Errorf("plugin: add peer group %s: %w", g.Conf.PeerGroupName, err)
	}
	s, err := h.serverIn(ctx, vrf)
	if err != nil {
		return fmt.Errorf("plugin: add peer group %s: %w", g.Conf.PeerGroupName, err)
	}
	if err := s.AddPeerGroup(ctx, &api.AddPeerGroupRequest{PeerGroup: g}); err != nil {
		return fmt.Errorf("plugin: add peer group %s: %w", g.Conf.PeerGroupName, err)
	}
	h.vrfs.mu.Lock()
	h.vrfs.groups[g.Conf.PeerGroupName] = vrf
	h.vrfs.mu.Unlock()
	return nil
}

// UpdatePeerGroup replaces a peer group's configuration (and updates its
// members); needsSoftResetIn as for UpdatePeer.
func (h *Host) UpdatePeerGroup(ctx context.Context, g *api.PeerGroup) (needsSoftResetIn bool, err error) {
	if g == nil || g.Conf == nil {
		return false, errors.New("plugin: UpdatePeerGroup: nil group or group config")
	}
	if err := h.checkRunning(); err != nil {
		return false, err
	}
	if err := h.acceptSecrets(g); err != nil {
		return false, fmt.Errorf("plugin: update peer group %s: %w", g.Conf.PeerGroupName, err)
	}
	r, err := h.groupServer(g.Conf.PeerGroupName).UpdatePeerGroup(ctx, &api.UpdatePeerGroupRequest{PeerGroup: g})
	if err != nil {
		return false, fmt.Errorf("plugin: update peer group %s: %w", g.Conf.PeerGroupName, err)
	}
	return r.GetNeedsSoftResetIn(), nil
}

// DeletePeerGroup deletes a peer group (GoBGP refuses while neighbors use
// it; its dynamic-neighbor ranges go with it, their listener keys stay).
func (h *Host) DeletePeerGroup(ctx context.Context, name string) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.groupServer(name).DeletePeerGroup(ctx, &api.DeletePeerGroupRequest{Name: name}); err != nil {
		return fmt.Errorf("plugin: delete peer group %s: %w", name, err)
	}
	return nil
}

// ListPeerGroup returns the peer group name ("" = all), passwords redacted.
func (h *Host) ListPeerGroup(ctx context.Context, name string) ([]*api.PeerGroup, error) {
	if err := h.checkRunning(); err != nil {
		return nil, err
	}
	var out []*api.PeerGroup
	for _, s := range h.servers() {
		err := s.ListPeerGroup(ctx, &api.ListPeerGroupRequest{PeerGroupName: name}, func(g *api.PeerGroup) {
			out = append(out, redact.Proto(g))
		})
		if err != nil {
			return nil, fmt.Errorf("plugin: list peer group %q: %w", name, err)
		}
	}
	return out, nil
}

// peerGroupExists asks GoBGP (ListPeerGroup answers with nothing, not an
// error, for an unknown name).
func (h *Host) peerGroupExists(ctx context.Context, name string) (bool, error) {
	if name == "" {
		return false, nil
	}
	found := false
	err := h.groupServer(name).ListPeerGroup(ctx, &api.ListPeerGroupRequest{PeerGroupName: name}, func(g *api.PeerGroup) {
		if g.GetConf().GetPeerGroupName() == name {
			found = true
		}
	})
	if err != nil {
		return false, err
	}
	if ctx.Err() != nil {
		// GoBGP's ListPeerGroup stops calling back on a done ctx without
		// an error: "not found" would be a guess.
		return false, ctx.Err()
	}
	return found, nil
}

// ErrNoPeerGroup is returned (wrapped) by AddDynamicNeighbor and
// DeleteDynamicNeighbor for an unknown peer group. (GoBGP refuses one
// itself since patch 0026; this check gives the error a type. A group
// deleted between the check and the call gets GoBGP's "no such
// peer-group".)
var ErrNoPeerGroup = errors.New("no such peer group")

// checkDynamic validates a dynamic-neighbor request.
func (h *Host) checkDynamic(ctx context.Context, prefix, group string) error {
	if _, err := netip.ParsePrefix(prefix); err != nil {
		return fmt.Errorf("dynamic neighbor prefix %q: %w", prefix, err)
	}
	ok, err := h.peerGroupExists(ctx, group)
	if err != nil {
		return fmt.Errorf("dynamic neighbor %s: look up peer group %q: %w", prefix, group, err)
	}
	if !ok {
		return fmt.Errorf("dynamic neighbor %s: peer group %q: %w", prefix, group, ErrNoPeerGroup)
	}
	return nil
}

// AddDynamicNeighbor accepts sessions from d.Prefix with the settings (and
// password) of peer group d.PeerGroup, which must exist (ErrNoPeerGroup).
func (h *Host) AddDynamicNeighbor(ctx context.Context, d *api.DynamicNeighbor) error {
	if d == nil {
		return errors.New("plugin: AddDynamicNeighbor: nil dynamic neighbor")
	}
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.checkDynamic(ctx, d.Prefix, d.PeerGroup); err != nil {
		return fmt.Errorf("plugin: add %w", err)
	}
	if err := h.groupServer(d.PeerGroup).AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: d}); err != nil {
		return fmt.Errorf("plugin: add dynamic neighbor %s: %w", d.Prefix, err)
	}
	return nil
}

// DeleteDynamicNeighbor removes a dynamic-neighbor range of an existing peer
// group (GoBGP clears the range's listener key; sessions already accepted
// stay up).
func (h *Host) DeleteDynamicNeighbor(ctx context.Context, prefix, group string) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.checkDynamic(ctx, prefix, group); err != nil {
		return fmt.Errorf("plugin: delete %w", err)
	}
	if err := h.groupServer(group).DeleteDynamicNeighbor(ctx, &api.DeleteDynamicNeighborRequest{Prefix: prefix, PeerGroup: group}); err != nil {
		return fmt.Errorf("plugin: delete dynamic neighbor %s: %w", prefix, err)
	}
	return nil
}

// ListDynamicNeighbor returns the dynamic-neighbor ranges of group ("" = all).
func (h *Host) ListDynamicNeighbor(ctx context.Context, group string) ([]*api.DynamicNeighbor, error) {
	if err := h.checkRunning(); err != nil {
		return nil, err
	}
	var out []*api.DynamicNeighbor
	for _, s := range h.servers() {
		err := s.ListDynamicNeighbor(ctx, &api.ListDynamicNeighborRequest{PeerGroup: group}, func(d *api.DynamicNeighbor) {
			out = append(out, redact.Proto(d))
		})
		if err != nil {
			return nil, fmt.Errorf("plugin: list dynamic neighbors %q: %w", group, err)
		}
	}
	return out, nil
}
