package speaker

import (
	"net/netip"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/md5auth/shadow"
	"github.com/authbgp/authbgpd/status"
)

// ShadowPeers lists cfg's peers with every key they may sign with, for the
// shadow checker: a password is one key (id -1); a keychain gives all its
// keys with their send-from times, so the checker can tell "wrong key"
// from "the peer is on another key of the chain".
func ShadowPeers(cfg *config.Config) []shadow.Peer {
	out := make([]shadow.Peer, 0, len(cfg.Peers))
	for i := range cfg.Peers {
		p := &cfg.Peers[i]
		sp := shadow.Peer{ID: p.ID(), Pinned: -1}
		if p.IsDynamic() {
			sp.Prefix = p.Prefix
		} else {
			sp.Prefix = netip.PrefixFrom(p.Address, p.Address.BitLen())
		}
		switch a := p.Auth(); {
		case a.Mode != config.AuthMD5:
		case a.Source == config.SourceKeychain:
			if kc := cfg.Keychain(a.Keychain); kc != nil {
				for _, k := range kc.Keys {
					sp.Keys = append(sp.Keys, shadow.Key{ID: int(k.ID), Secret: k.Secret, SendFrom: k.SendFrom})
				}
			}
		default:
			sp.Keys = []shadow.Key{{ID: -1, Secret: p.Password}}
		}
		out = append(out, sp)
	}
	return out
}

// ShadowStatus converts a checker report to the /status shape.
func ShadowStatus(r shadow.PeerReport) *status.Shadow {
	s := &status.Shadow{
		Diagnosis: r.Diagnosis,
		Segments: status.Segments{
			Valid:      r.Received.Valid,
			BadDigest:  r.Received.BadDigest,
			Missing:    r.Received.Missing,
			Unexpected: r.Received.Unexpected,
		},
		Sent: &status.Sent{Valid: r.Sent.Valid, Invalid: r.Sent.Invalid, Unsigned: r.Sent.Unsigned},
	}
	if r.PeerKeyID != nil {
		k := *r.PeerKeyID
		s.PeerKeyID = &k
	}
	return s
}
