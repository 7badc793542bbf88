package shadow

import (
	"slices"
	"sort"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/status"
)

// PeersOf lists x's peers with every key they may sign with (the index's
// keys, their TCP-AO algorithms parsed there), for the shadow checker: a
// password is one key (id -1); a keychain gives all its keys with their
// send-from times, so the checker can tell "wrong key" from "the peer is
// on another key of the chain".
func PeersOf(x *peerindex.Index) []Peer {
	out := make([]Peer, 0, len(x.Peers()))
	for i := range x.Peers() {
		p := &x.Peers()[i]
		out = append(out, Peer{ID: p.ID, Pinned: -1, VRF: p.Scope.VRF, Interface: p.Scope.Interface, Prefix: p.Scope.Prefix,
			TCPAO: p.TCPAO(), Keys: slices.Clone(p.Keys)})
	}
	return out
}

// StatusOf converts a checker report to the /status shape. A TCP-AO
// peer's segments also have bad_mac, unknown_key and no_handshake (and
// sent no_handshake); key_ids lists the TCP-AO KeyIDs any peer sent.
func StatusOf(r PeerReport) *status.Shadow {
	s := &status.Shadow{
		Diagnosis: r.Diagnosis,
		Segments: status.Segments{
			Valid:      r.Received.Valid,
			BadDigest:  r.Received.BadDigest,
			Missing:    r.Received.Missing,
			Unexpected: r.Received.Unexpected,
		},
		Sent:    &status.Sent{Valid: r.Sent.Valid, Invalid: r.Sent.Invalid, Unsigned: r.Sent.Unsigned},
		History: historyOf(r.History),
	}
	if r.TCPAO {
		aoSegments(s)
		*s.Segments.BadMAC, *s.Segments.UnknownKey, *s.Segments.NoHandshake = r.Received.BadMAC, r.Received.UnknownKey, r.Received.NoHandshake
		*s.Sent.NoHandshake = r.Sent.NoHandshake
	}
	for _, k := range r.KeyIDs {
		s.KeyIDs = append(s.KeyIDs, status.KeyIDCount{KeyID: k.KeyID, RNextKeyID: k.RNextKeyID, Segments: k.Segments})
	}
	if r.PeerKeyID != nil {
		k := *r.PeerKeyID
		s.PeerKeyID = &k
	}
	return s
}

// aoSegments gives s the TCP-AO counters, at 0.
func aoSegments(s *status.Shadow) {
	s.Segments.BadMAC, s.Segments.UnknownKey, s.Segments.NoHandshake = new(uint64), new(uint64), new(uint64)
	if s.Sent == nil {
		s.Sent = &status.Sent{}
	}
	s.Sent.NoHandshake = new(uint64)
}

// MergeStatus attaches the checker's reports (by address, as
// Runner.Reports keys them) to the peers of st; addresses the checker saw
// that GoBGP never accepted (a dynamic neighbor with the wrong key, say)
// are added as peers of their range. An interface peer gets the report of
// its address (fe80::2%eth1) or, when that has none (the address is not
// learnt yet, or the peer's segments came from another link-local address
// of the link), the latest report of its interface; its interface's other
// addresses are added beside it, with the interface and VRF. A static
// peer whose address is a peer in another VRF too gets no shadow at all:
// the capture cannot tell the two apart, and judges neither (Lookup).
func MergeStatus(st *status.Status, reps map[string]PeerReport) {
	seen := map[string]bool{}
	vrfsOf := map[string]map[string]bool{}
	for _, p := range st.Peers {
		if p.Prefix == "" && p.Interface == "" {
			if vrfsOf[p.Address] == nil {
				vrfsOf[p.Address] = map[string]bool{}
			}
			vrfsOf[p.Address][p.VRF] = true
		}
	}
	byIface := map[string]string{} // interface -> the address of its latest report
	for a, r := range reps {
		if r.Interface == "" {
			continue
		}
		if b, ok := byIface[r.Interface]; !ok || r.Last.After(reps[b].Last) || r.Last.Equal(reps[b].Last) && a < b {
			byIface[r.Interface] = a
		}
	}
	for i := range st.Peers {
		p := &st.Peers[i]
		if p.Prefix == "" && p.Interface == "" && len(vrfsOf[p.Address]) > 1 {
			continue // one address in two VRFs: neither is judged
		}
		r, ok := reps[p.Address]
		key := p.Address
		if !ok && p.Interface != "" && p.Prefix == "" {
			if a, found := byIface[p.Interface]; found && !seen[a] {
				r, ok, key = reps[a], true, a
			}
		}
		if ok {
			p.Shadow = StatusOf(r)
			seen[key] = true
		} else if p.Auth.Mode == config.AuthMD5 && p.Prefix == "" {
			p.Shadow = &status.Shadow{Diagnosis: DiagNoTraffic}
		} else if p.Auth.Mode == config.AuthTCPAO && p.Prefix == "" {
			p.Shadow = &status.Shadow{Diagnosis: DiagNoTraffic}
			aoSegments(p.Shadow)
		}
	}
	var asns = map[string]uint32{}
	for _, p := range st.Peers {
		if p.Prefix != "" && p.Address == p.Prefix {
			asns[p.Prefix] = p.ASN
		}
		if p.Interface != "" && p.Prefix == "" {
			asns[p.Interface] = p.ASN
		}
	}
	var extra []status.Peer
	for addr, r := range reps {
		if seen[addr] {
			continue
		}
		var auth status.Auth
		for _, p := range st.Peers {
			if p.Address == r.PeerID || r.Interface != "" && p.Interface == r.Interface && p.Prefix == "" {
				auth = p.Auth
			}
		}
		ep := status.Peer{Address: addr, Prefix: r.PeerID, VRF: r.VRF, ASN: asns[r.PeerID], State: "idle", Auth: auth, Shadow: StatusOf(r)}
		if r.Interface != "" {
			ep.Prefix, ep.Interface = "", r.Interface
		}
		extra = append(extra, ep)
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].Address < extra[j].Address })
	st.Peers = append(st.Peers, extra...)
}
