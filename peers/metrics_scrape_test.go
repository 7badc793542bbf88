package peers

import (
	"context"
	"errors"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/status"
)

// fakeGoBGP is GoBGPPeers: neighbors and a /status snapshot.
type fakeGoBGP struct {
	nbrs, snap []*api.Peer
	listErr    error
	snapErr    error
}

func (f *fakeGoBGP) ListPeer(context.Context, string) ([]*api.Peer, error) { return f.nbrs, f.listErr }
func (f *fakeGoBGP) PeerStates(context.Context, time.Time) ([]*api.Peer, time.Time, error) {
	return f.snap, time.Time{}, f.snapErr
}

// withSent is a snapshot peer advertising n ipv4-unicast prefixes.
func withSent(addr string, n uint64) *api.Peer {
	return &api.Peer{Conf: &api.PeerConf{NeighborAddress: addr}, AfiSafis: []*api.AfiSafi{{State: &api.AfiSafiState{
		Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}, Advertised: n}}}}
}

// TestMetricReader: a scrape joins the manager's view (up), GoBGP's
// neighbors (received) and its /status snapshot (sent); without the
// snapshot sent is 0; GoBGP's error is the scrape's.
func TestMetricReader(t *testing.T) {
	st := func() []status.Peer {
		return []status.Peer{{Address: "192.0.2.2", State: "established"}, {Address: "192.0.2.3", State: "active"}}
	}
	g := &fakeGoBGP{nbrs: []*api.Peer{apiNbr("192.0.2.2", api.PeerState_ESTABLISHED, 7)}, snap: []*api.Peer{withSent("192.0.2.2", 5)}}
	read := MetricReader(g, st)
	sent := func() map[string][2]uint64 {
		got, err := read()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][2]uint64{}
		for _, p := range got {
			var r, s uint64
			for _, f := range p.Prefixes {
				r, s = r+f.Received, s+f.Sent
			}
			up := uint64(0)
			if p.Up {
				up = 1
			}
			out[p.Peer] = [2]uint64{r*100 + s, up}
		}
		return out
	}
	if got := sent(); got["192.0.2.2"] != [2]uint64{705, 1} || got["192.0.2.3"] != [2]uint64{0, 0} || len(got) != 2 {
		t.Fatalf("scrape = %v", got)
	}
	g.snapErr = errors.New("snapshot busy")
	if got := sent(); got["192.0.2.2"] != [2]uint64{700, 1} {
		t.Fatalf("scrape without the snapshot = %v", got)
	}
	g.listErr = errors.New("gobgp stopped")
	if _, err := read(); !errors.Is(err, g.listErr) {
		t.Fatalf("scrape error %v, want %v", err, g.listErr)
	}
}
