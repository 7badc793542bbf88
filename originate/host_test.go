package originate

import (
	"context"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/plugin"
)

// The networks in an embedded GoBGP's RIB: announced with their
// communities, seen as paths of ours, withdrawn by a reload; a path a
// neighbor would send is not ours.
func TestOriginatorGoBGP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := plugin.New(plugin.Options{ASN: 65001, RouterID: "192.0.2.1", ListenPort: -1, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	nets := []config.Network{net("192.0.2.0/24", "", 65001<<16|100), net("2001:db8:1::/48", "", config.CommunityNoExport)}
	nets[1].LargeCommunities = []config.LargeCommunity{{Global: 65001, Local1: 1, Local2: 2}}
	o := New(nets, quiet())
	h.Register(o)
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Stop(context.Background())
	for _, n := range o.Status() {
		if !n.Announced || n.LastError != "" {
			t.Errorf("after start: %+v", n)
		}
	}
	v6 := &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}
	paths, err := h.LocalPathsIn(ctx, "", v6, []string{"2001:db8:1::/48", "2001:db8:2::/48"})
	if err != nil || len(paths) != 1 {
		t.Fatalf("v6 paths: %v %v", paths, err)
	}
	pfx, attrs, err := observedAttrs(paths[0])
	if r := routeOf(&nets[1]); err != nil || pfx != nets[1].Prefix || attrs != r.attrs {
		t.Errorf("v6 path: %v %q %v", pfx, attrs, err)
	}
	if err := o.Set(ctx, nets[1:]); err != nil {
		t.Fatal(err)
	}
	v4 := &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	if paths, err := h.LocalPathsIn(ctx, "", v4, []string{"192.0.2.0/24"}); err != nil || len(paths) != 0 {
		t.Errorf("withdrawn v4: %v %v", paths, err)
	}
	if got := o.Status(); len(got) != 1 || !got[0].Announced {
		t.Errorf("status: %+v", got)
	}
	// A VRF without an instance holds nothing.
	if paths, err := h.LocalPathsIn(ctx, "blue", v4, []string{"192.0.2.0/24"}); err != nil || len(paths) != 0 {
		t.Errorf("VRF without instance: %v %v", paths, err)
	}
	// A network of VRF blue is in blue's RIB only (its instance made for
	// it: no VRF device is needed without listeners).
	blue := net("203.0.113.0/24", "blue", 65001<<16|7)
	if err := o.Set(ctx, append(nets[1:], blue)); err != nil {
		t.Fatal(err)
	}
	if paths, err := h.LocalPathsIn(ctx, "blue", v4, []string{"203.0.113.0/24"}); err != nil || len(paths) != 1 {
		t.Errorf("in VRF blue: %v %v", paths, err)
	}
	if paths, err := h.LocalPathsIn(ctx, "", v4, []string{"203.0.113.0/24"}); err != nil || len(paths) != 0 {
		t.Errorf("VRF blue's network in the default VRF: %v %v", paths, err)
	}
	if err := o.Set(ctx, nets[1:]); err != nil {
		t.Fatal(err)
	}
	if paths, err := h.LocalPathsIn(ctx, "blue", v4, []string{"203.0.113.0/24"}); err != nil || len(paths) != 0 {
		t.Errorf("withdrawn from VRF blue: %v %v", paths, err)
	}
	if !plugin.IsLocalPath(&api.Path{NeighborIp: "<nil>"}) || plugin.IsLocalPath(&api.Path{NeighborIp: "192.0.2.2"}) {
		t.Error("IsLocalPath")
	}
}
