package plugin

import (
	"context"
	"errors"
	"fmt"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// AddPathIn originates p in the RIB of vrf ("" the default VRF's: AddPath
// without the UUID), making the VRF's instance when it is the VRF's first
// use. A path of ours at the same NLRI is replaced (GoBGP keeps one path
// per source and NLRI).
func (h *Host) AddPathIn(ctx context.Context, vrf string, p *api.Path) error {
	if p == nil {
		return errors.New("plugin: AddPathIn: nil path")
	}
	if err := h.checkRunning(); err != nil {
		return err
	}
	s, err := h.serverIn(ctx, vrf)
	if err != nil {
		return err
	}
	if _, err := s.AddPath(ctx, &api.AddPathRequest{TableType: api.TableType_GLOBAL, Path: p}); err != nil {
		return fmt.Errorf("plugin: add path in %s: %w", vrfName(vrf), err)
	}
	return nil
}

// DeletePathIn withdraws a path of ours from the RIB of vrf, matched by
// family and NLRI (as DeletePath). A VRF without an instance holds no path:
// nothing to do.
func (h *Host) DeletePathIn(ctx context.Context, vrf string, p *api.Path) error {
	if p == nil {
		return errors.New("plugin: DeletePathIn: nil path")
	}
	if err := h.checkRunning(); err != nil {
		return err
	}
	s := h.existingServer(vrf)
	if s == nil {
		return nil
	}
	r := &api.DeletePathRequest{TableType: api.TableType_GLOBAL, Family: p.Family, Path: p}
	if err := s.DeletePath(ctx, r); err != nil {
		return fmt.Errorf("plugin: delete path in %s: %w", vrfName(vrf), err)
	}
	return nil
}

// LocalPathsIn returns the paths of ours (originated through AddPath,
// AddPathIn or the gRPC API, not learnt from a neighbor) of family in the
// RIB of vrf at exactly the given prefixes: a look-up per prefix, never a
// walk of the table. A VRF without an instance has none.
func (h *Host) LocalPathsIn(ctx context.Context, vrf string, family *api.Family, prefixes []string) (paths []*api.Path, err error) {
	if family == nil {
		return nil, errors.New("plugin: LocalPathsIn: nil family")
	}
	if err := h.checkRunning(); err != nil {
		return nil, err
	}
	s := h.existingServer(vrf)
	if s == nil || len(prefixes) == 0 {
		return nil, nil
	}
	r := &api.ListPathRequest{TableType: api.TableType_GLOBAL, Family: family}
	for _, p := range prefixes {
		r.Prefixes = append(r.Prefixes, &api.TableLookupPrefix{Prefix: p, Type: api.TableLookupPrefix_EXACT})
	}
	defer func() {
		if x := recover(); x != nil {
			paths, err = nil, fmt.Errorf("plugin: list paths in %s: GoBGP panicked converting a path: %v", vrfName(vrf), x)
		}
	}()
	err = s.ListPath(ctx, r, func(d *api.Destination) {
		for _, p := range d.Paths {
			if IsLocalPath(p) {
				paths = append(paths, p)
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("plugin: list paths in %s: %w", vrfName(vrf), err)
	}
	return paths, nil
}

// IsLocalPath reports whether p, as ListPath returns it, is a path of ours
// (GoBGP's source without a neighbor address), not one a neighbor sent.
func IsLocalPath(p *api.Path) bool { return p.NeighborIp == "<nil>" || p.NeighborIp == "" }

// existingServer is vrf's server, or nil when the VRF has no instance.
func (h *Host) existingServer(vrf string) *server.BgpServer {
	if vrf == "" {
		return h.bgp
	}
	h.vrfs.mu.Lock()
	defer h.vrfs.mu.Unlock()
	return h.vrfs.servers[vrf]
}

// vrfName names a VRF in errors.
func vrfName(vrf string) string {
	if vrf == "" {
		return "the default VRF"
	}
	return "VRF " + vrf
}
