package peers

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
)

// DefaultConnectRetry is the seconds between GoBGP's connection attempts.
// GoBGP's own default (120 s, with up to 100% jitter) leaves a peer whose
// first attempt failed down for minutes; routers retry sooner.
const DefaultConnectRetry = 10

// IdleHoldAfterReset is the seconds GoBGP stays Idle after a session the
// reconciler ended (ResetPeer: a stale or unsigned session); it applies to
// those alone (after any other session end GoBGP holds 5 s, a constant of
// its own). GoBGP's default after a reset is 30 s, during which it refuses
// the peer's new, correctly keyed connection. A stale session is ended
// because the peer is dialing with the new key, so GoBGP leaves Idle after
// a second and takes (or makes) the next connection: with 5 s, as before,
// FRR's connection 5 s later (its connect timer) often met the last of the
// idle hold and waited 5 s more (13 s instead of 2 s after a key change at
// 1,000 peers).
const IdleHoldAfterReset = 1

// gobgpIdleHold is how long GoBGP holds a neighbor Idle after any session
// end it did not reset itself (holdtimeIdle, a constant of GoBGP's fsm.go),
// refusing the peer's connections meanwhile.
const gobgpIdleHold = 5 * time.Second

// restartAfterKeyChange reports whether a static neighbor that went Idle at
// ended is to be restarted at once (deleted and re-added: a new neighbor
// has no idle hold) rather than left to GoBGP's idle hold: its TCP-MD5 key
// changed at keyChanged, less than an idle hold before or after the end,
// and the hold has not run out by now. Such an end is the key change's:
// most routers end the session themselves when its password changes (FRR
// does, with a Cease), and their next connection, with the new key, would
// otherwise meet the hold and then wait out their own connect timer
// (about 7 s instead of 2 s with FRR).
func restartAfterKeyChange(ended, keyChanged, now time.Time) bool {
	if ended.IsZero() || keyChanged.IsZero() {
		return false
	}
	return now.Sub(ended) < gobgpIdleHold && ended.Sub(keyChanged).Abs() < gobgpIdleHold
}

// apiFamily maps a configured address family to GoBGP's.
func apiFamily(f config.Family) (*api.Family, error) {
	switch f {
	case config.IPv4Unicast:
		return &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}, nil
	case config.IPv6Unicast:
		return &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}, nil
	case config.IPv4SRPolicy:
		return &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_SR_POLICY}, nil
	case config.IPv6SRPolicy:
		return &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_SR_POLICY}, nil
	}
	return nil, fmt.Errorf("peers: unknown address family %q", f)
}

// afiSafis are the peer's families, each with its prefix limit
// (prefixLimit; nil: none).
func afiSafis(p *config.Peer) ([]*api.AfiSafi, error) {
	out := make([]*api.AfiSafi, 0, len(p.Families))
	for _, f := range p.Families {
		af, err := apiFamily(f)
		if err != nil {
			return nil, err
		}
		out = append(out, &api.AfiSafi{Config: &api.AfiSafiConfig{Family: af, Enabled: true}, PrefixLimits: prefixLimit(p, af)})
	}
	return out, nil
}

// shape is what a GoBGP neighbor and a peer group made of a peer have
// alike: families, timers, multihop. A peer attribute that shapes both is
// added here once, and set by apiPeer and apiPeerGroup
// (TestSameShapeCoversEveryField checks that each field of config.Peer
// does).
type shape struct {
	timers   *api.Timers
	afiSafis []*api.AfiSafi
	multihop *api.EbgpMultihop
	graceful *api.GracefulRestart // nil: no graceful restart
}

func neighborShape(p *config.Peer) (shape, error) {
	fams, err := afiSafis(p)
	if err != nil {
		return shape{}, err
	}
	hold, keepalive := p.Timers()
	s := shape{afiSafis: fams, timers: &api.Timers{Config: &api.TimersConfig{
		ConnectRetry:           DefaultConnectRetry,
		HoldTime:               uint64(hold),
		KeepaliveInterval:      uint64(keepalive),
		IdleHoldTimeAfterReset: IdleHoldAfterReset,
	}}}
	if p.MultihopTTL > 0 {
		s.multihop = &api.EbgpMultihop{Enabled: true, MultihopTtl: uint32(p.MultihopTTL)}
	}
	if p.GracefulRestart {
		// RFC 4724 in every family, with the N bit of RFC 8538 (a Cease
		// then ends graceful restart only as a Hard Reset).
		s.graceful = &api.GracefulRestart{Enabled: true, RestartTime: uint32(p.GracefulRestartTime), NotificationEnabled: true}
		for _, af := range s.afiSafis {
			af.MpGracefulRestart = &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: true}}
		}
	}
	return s, nil
}

// apiPeer is the GoBGP neighbor for a static peer; adminDown holds it
// down. It carries no password: GoBGP never holds a secret. Every key on
// every socket, the ones GoBGP dials included, is put there by the
// reconciler (the dial hook, dial.go); GoBGP only sees keyed sockets.
func apiPeer(p *config.Peer, adminDown bool) (*api.Peer, error) {
	s, err := neighborShape(p)
	if err != nil {
		return nil, err
	}
	ap := &api.Peer{
		Conf: &api.PeerConf{
			NeighborAddress: p.Address.String(),
			PeerAsn:         p.ASN,
			AdminDown:       adminDown,
		},
		Timers:          s.timers,
		Transport:       &api.Transport{PassiveMode: p.Passive},
		AfiSafis:        s.afiSafis,
		EbgpMultihop:    s.multihop,
		GracefulRestart: s.graceful,
	}
	switch {
	case p.IsInterface():
		// Unspecified, so that GoBGP takes the connection's own address
		// as the next hop it announces: left empty, GoBGP fills in the
		// interface's zoned link-local address, which its next-hop-self
		// cannot parse (it announces ::, a martian to FRR).
		ap.Transport.LocalAddress = "::"
	case p.LocalAddress.IsValid():
		ap.Transport.LocalAddress = p.LocalAddress.String()
	}
	if p.VRF != "" && !p.IsInterface() {
		// Dials leave through the VRF device (SO_BINDTODEVICE); an
		// interface peer's dial is bound by its address's zone.
		ap.Transport.BindInterface = p.VRF
	}
	return ap, nil
}

// groupName is the GoBGP peer group that carries a dynamic range of vrf.
func groupName(vrf string, pfx netip.Prefix) string {
	r := strings.NewReplacer(".", "-", ":", "-", "/", "_")
	if vrf != "" { // the same range may be another VRF's too; no '/' is in the rest
		return "authbgpd-dyn-" + r.Replace(pfx.String()) + "/" + vrf
	}
	return "authbgpd-dyn-" + r.Replace(pfx.String())
}

// apiPeerGroup is the GoBGP peer group for a dynamic range: passive (GoBGP
// does not dial dynamic neighbors), with no password (the manager keys the
// listeners itself).
func apiPeerGroup(p *config.Peer) (*api.PeerGroup, error) {
	s, err := neighborShape(p)
	if err != nil {
		return nil, err
	}
	return &api.PeerGroup{
		Conf:            &api.PeerGroupConf{PeerGroupName: groupName(p.VRF, p.Prefix), PeerAsn: p.ASN},
		Timers:          s.timers,
		Transport:       &api.Transport{PassiveMode: true},
		AfiSafis:        s.afiSafis,
		EbgpMultihop:    s.multihop,
		GracefulRestart: s.graceful,
	}, nil
}
