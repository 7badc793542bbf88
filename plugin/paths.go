package plugin

import (
	"context"
	"errors"
	"fmt"
	"time"

	api "github.com/osrg/gobgp/v3/api"
)

var timeNow = time.Now

// AddPath originates p in the global RIB (p.Family, p.Nlri, p.Pattrs as
// GoBGP's API expects them; see docs/ARCHITECTURE.md, facts, for SR Policy specifics) and
// returns GoBGP's UUID for it (usable with DeletePathByUUID).
func (h *Host) AddPath(ctx context.Context, p *api.Path) (uuid []byte, err error) {
	if p == nil {
		return nil, errors.New("plugin: AddPath: nil path")
	}
	if err := h.checkRunning(); err != nil {
		return nil, err
	}
	r, err := h.bgp.AddPath(ctx, &api.AddPathRequest{TableType: api.TableType_GLOBAL, Path: p})
	if err != nil {
		return nil, fmt.Errorf("plugin: add path: %w", err)
	}
	return r.GetUuid(), nil
}

// DeletePath withdraws a path originated with AddPath (matched by family,
// NLRI and attributes as GoBGP does it).
func (h *Host) DeletePath(ctx context.Context, p *api.Path) error {
	if p == nil {
		return errors.New("plugin: DeletePath: nil path (use DeleteLocalPaths to withdraw all)")
	}
	if err := h.checkRunning(); err != nil {
		return err
	}
	r := &api.DeletePathRequest{TableType: api.TableType_GLOBAL, Family: p.Family, Path: p}
	if err := h.bgp.DeletePath(ctx, r); err != nil {
		return fmt.Errorf("plugin: delete path: %w", err)
	}
	return nil
}

// DeletePathByUUID withdraws the path AddPath returned uuid for.
func (h *Host) DeletePathByUUID(ctx context.Context, uuid []byte) error {
	if len(uuid) == 0 {
		return errors.New("plugin: DeletePathByUUID: empty UUID")
	}
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.bgp.DeletePath(ctx, &api.DeletePathRequest{TableType: api.TableType_GLOBAL, Uuid: uuid}); err != nil {
		return fmt.Errorf("plugin: delete path by UUID: %w", err)
	}
	return nil
}

// DeleteLocalPaths withdraws every locally originated path of family (nil:
// of all families). GoBGP forgets the UUIDs of all families when it does.
func (h *Host) DeleteLocalPaths(ctx context.Context, family *api.Family) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	if err := h.bgp.DeletePath(ctx, &api.DeletePathRequest{TableType: api.TableType_GLOBAL, Family: family}); err != nil {
		return fmt.Errorf("plugin: delete local paths: %w", err)
	}
	return nil
}

// ListPathOption refines ListPath.
type ListPathOption func(*api.ListPathRequest)

// FromTable lists table t instead of the global RIB; name is the neighbor
// address for ADJ_IN / ADJ_OUT, the VRF name for VRF.
func FromTable(t api.TableType, name string) ListPathOption {
	return func(r *api.ListPathRequest) { r.TableType, r.Name = t, name }
}

// ForPrefixes restricts the listing to the given lookups.
func ForPrefixes(p ...*api.TableLookupPrefix) ListPathOption {
	return func(r *api.ListPathRequest) { r.Prefixes = append(r.Prefixes, p...) }
}

// SortedByPrefix sorts destinations by prefix.
func SortedByPrefix() ListPathOption {
	return func(r *api.ListPathRequest) { r.SortType = api.ListPathRequest_PREFIX }
}

// WithFiltered includes paths filtered by policy (ADJ_IN / ADJ_OUT), marked
// Filtered.
func WithFiltered() ListPathOption {
	return func(r *api.ListPathRequest) { r.EnableFiltered = true }
}

// ListPath returns the destinations of family (the global RIB unless
// FromTable says otherwise). A panic in GoBGP's conversion of a path to API
// form (which happens on this goroutine) is returned as an error.
func (h *Host) ListPath(ctx context.Context, family *api.Family, opts ...ListPathOption) (dests []*api.Destination, err error) {
	if family == nil {
		return nil, errors.New("plugin: ListPath: nil family")
	}
	if err := h.checkRunning(); err != nil {
		return nil, err
	}
	r := &api.ListPathRequest{TableType: api.TableType_GLOBAL, Family: family}
	for _, o := range opts {
		o(r)
	}
	defer func() {
		if x := recover(); x != nil {
			dests, err = nil, fmt.Errorf("plugin: list paths: GoBGP panicked converting a path: %v", x)
		}
	}()
	err = h.bgp.ListPath(ctx, r, func(d *api.Destination) { dests = append(dests, d) })
	if err != nil {
		return nil, fmt.Errorf("plugin: list paths: %w", err)
	}
	return dests, nil
}
