package dropwatch

import (
	"net/netip"
	"slices"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/status"
)

// Merge adds the kernel's drops to st: st.KernelDrops always; when the
// counters are available, KernelDrops on every keyed peer of st.Peers (at 0
// when nothing was dropped) and on unkeyed ones the kernel dropped
// something of. A static peer's entry and each session of a range (by its
// address) get their own counts, a range's own entry (address = prefix)
// the sum of its sessions, including addresses with drops that have no
// entry in st.Peers (GoBGP never accepted them; no entry is added for
// them: /status lists the sessions GoBGP has, and the shadow checker's
// addresses when it runs; the log names every address).
func (w *Watcher) Merge(st *status.Status) {
	now := w.o.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	info := &status.KernelDropsInfo{Available: w.src != nil, Tracepoints: []string{}, Other: w.other, Missed: w.missed}
	if len(w.tracepoints) > 0 {
		info.Tracepoints = slices.Clone(w.tracepoints)
	}
	switch {
	case w.src == nil:
		info.Error = w.unavailable
	case w.readErr != "":
		info.Error = w.readErr
	}
	st.KernelDrops = info
	if w.src == nil {
		return
	}

	for i := range st.Peers {
		p := &st.Peers[i]
		var t *tally
		mode := p.Auth.Mode
		switch {
		case p.Prefix == "" && p.Interface != "": // its ID is the interface
			if ps := w.peers[p.Interface]; ps != nil && !ps.dynamic {
				t = &ps.tally
			}
		case p.Prefix == "":
			if ps := w.peers[config.ScopedID(p.VRF, p.Address)]; ps != nil && !ps.dynamic {
				t = &ps.tally
			}
		case p.Address == p.Prefix:
			if ps := w.peers[config.ScopedID(p.VRF, p.Prefix)]; ps != nil && ps.dynamic {
				t = &ps.tally
			}
		default:
			a, err := netip.ParseAddr(p.Address)
			if err != nil {
				break
			}
			a = a.Unmap().WithZone("")
			if id, dyn := attribute(w.index, a); dyn && id == config.ScopedID(p.VRF, p.Prefix) {
				if ps := w.peers[id]; ps != nil {
					t = ps.sessions[a]
				}
			}
		}
		keyed := mode == config.AuthMD5 || mode == config.AuthTCPAO
		if t == nil && !keyed || t != nil && !keyed && t.counts.total() == 0 {
			continue
		}
		p.KernelDrops = t.status(now, mode == config.AuthTCPAO)
	}

}

// MetricSeries returns the series of authbgpd_peer_kernel_drops_total, for
// metrics.ReadPeerKernelDrops: for every configured peer by ID (a range
// sums its sessions), the TCP-MD5 reasons of a TCP-MD5 peer and all seven
// of a TCP-AO peer, at 0 until they move, and any other reason once it
// moved (an unkeyed peer has series only then). None while unavailable.
func (w *Watcher) MetricSeries() []metrics.PeerKernelDrops {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.src == nil {
		return nil
	}
	ids := make([]string, 0, len(w.peers))
	for id := range w.peers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []metrics.PeerKernelDrops
	for _, id := range ids {
		ps := w.peers[id]
		for _, r := range kdrops.Reasons() {
			always := ps.mode == config.AuthTCPAO ||
				ps.mode == config.AuthMD5 && slices.Contains(kdrops.MD5Reasons(), r)
			if always || ps.counts[r] != 0 {
				out = append(out, metrics.PeerKernelDrops{Peer: id, Reason: r.String(), Count: ps.counts[r]})
			}
		}
	}
	return out
}
