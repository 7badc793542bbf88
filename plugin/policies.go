package plugin

import (
	"context"
	"errors"
	"fmt"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Routing policies are the config file's (peers installs them): every
// GoBGP instance gets the same defined sets and policies (policies are per
// server, and each VRF has one), an instance made later gets them before
// its first neighbor, and a neighbor's assignment goes to its own
// instance. The gRPC API may read them (gobgp policy, gobgp policy
// prefix, gobgp neighbor ADDR policy) but not change them.

// SetPolicies installs the defined sets and policies of rp in every GoBGP
// instance (GoBGP's SetPolicies: it replaces them all, keeping each
// neighbor's assignment by name), and in those made later.
func (h *Host) SetPolicies(ctx context.Context, rp *api.RoutingPolicy) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	h.vrfs.mu.Lock()
	h.vrfs.policy = rp
	h.vrfs.mu.Unlock()
	var errs []error
	for _, s := range h.servers() {
		errs = append(errs, setPolicies(ctx, s, rp))
	}
	return errors.Join(errs...)
}

func setPolicies(ctx context.Context, s *server.BgpServer, rp *api.RoutingPolicy) error {
	if rp == nil {
		return nil
	}
	if err := s.SetPolicies(ctx, &api.SetPoliciesRequest{DefinedSets: rp.DefinedSets, Policies: rp.Policies}); err != nil {
		return fmt.Errorf("plugin: set policies: %w", err)
	}
	return nil
}

// SetPolicyAssignmentIn sets a neighbor's import or export assignment
// (a.Name is its address) in vrf's instance ("" the default VRF's): one
// address may be a neighbor in two VRFs.
func (h *Host) SetPolicyAssignmentIn(ctx context.Context, vrf string, a *api.PolicyAssignment) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	s, err := h.serverAt(vrf)
	if err != nil {
		return fmt.Errorf("plugin: set %s policy of %s: %w", a.GetDirection(), a.GetName(), err)
	}
	if err := s.SetPolicyAssignment(ctx, &api.SetPolicyAssignmentRequest{Assignment: a}); err != nil {
		return fmt.Errorf("plugin: set %s policy of %s: %w", a.GetDirection(), a.GetName(), err)
	}
	return nil
}

// ErrPoliciesOwned refuses a change of policies through the gRPC API.
var ErrPoliciesOwned = errors.New("policies, defined sets and policy assignments are authbgpd's config file's ([defined-sets], [[policy-definitions]], the peers' import-policy-list and export-policy-list): change the file and reload; the API only reads them")

// changesPolicies reports whether req, a GoBGP API request, changes a
// policy, a statement, a defined set or an assignment.
func changesPolicies(req any) bool {
	switch req.(type) {
	case *api.AddPolicyRequest, *api.DeletePolicyRequest, *api.SetPoliciesRequest,
		*api.AddStatementRequest, *api.DeleteStatementRequest,
		*api.AddDefinedSetRequest, *api.DeleteDefinedSetRequest,
		*api.AddPolicyAssignmentRequest, *api.DeletePolicyAssignmentRequest, *api.SetPolicyAssignmentRequest:
		return true
	}
	return false
}

// refusePolicyChange is the gRPC API's answer to changesPolicies.
func refusePolicyChange(req any) error {
	if changesPolicies(req) {
		return status.Error(codes.FailedPrecondition, ErrPoliciesOwned.Error())
	}
	return nil
}
