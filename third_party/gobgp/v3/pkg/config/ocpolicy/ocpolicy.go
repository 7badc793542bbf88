// Package ocpolicy gives a program that embeds GoBGP the two steps gobgpd
// takes with the policy sections of its configuration file (defined-sets
// and policy-definitions, as oc.RoutingPolicy), which live in GoBGP's
// internal table package: the conversion to the API's types that
// pkg/config's InitialConfig and UpdateConfig hand to SetPolicies
// (table.NewAPIRoutingPolicyFromConfigStruct), and the build of the
// routing policy the server would make of them (table.RoutingPolicy's
// Reset), as a check that fails where the server would.
package ocpolicy

import (
	"fmt"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/internal/pkg/table"
	"github.com/osrg/gobgp/v3/pkg/config/oc"
	"github.com/osrg/gobgp/v3/pkg/log"
)

// ToAPI is table.NewAPIRoutingPolicyFromConfigStruct: the defined sets and
// policies of rp as SetPolicies takes them.
func ToAPI(rp *oc.RoutingPolicy) (*api.RoutingPolicy, error) {
	if rp == nil {
		return nil, fmt.Errorf("nil routing policy")
	}
	return table.NewAPIRoutingPolicyFromConfigStruct(rp)
}

// Check builds GoBGP's routing policy from rp, as the server does on
// SetPolicies, and assigns each of assignments (by any name) to it: the
// error is the one the server would meet (a bad prefix or mask length
// range, a set a statement names that does not exist, a duplicated
// name). GoBGP resolves an assignment's policy names without failing (it
// logs and skips a missing one), so names are checked here as well.
func Check(rp *oc.RoutingPolicy, assignments map[string]oc.ApplyPolicy) error {
	if rp == nil {
		return fmt.Errorf("nil routing policy")
	}
	r := table.NewRoutingPolicy(quiet{})
	if err := r.Reset(rp, nil); err != nil {
		return err
	}
	names := make(map[string]bool, len(rp.PolicyDefinitions))
	for _, p := range rp.PolicyDefinitions {
		names[p.Name] = true
	}
	for id, a := range assignments {
		for _, l := range [][]string{a.Config.ImportPolicyList, a.Config.ExportPolicyList} {
			seen := map[string]bool{}
			for _, n := range l {
				if !names[n] {
					return fmt.Errorf("%s: not found policy %s", id, n)
				}
				if seen[n] {
					return fmt.Errorf("%s: duplicated policy %s", id, n)
				}
				seen[n] = true
			}
		}
	}
	if _, err := ToAPI(rp); err != nil {
		return err
	}
	return nil
}

// quiet is a logger for Check: Reset logs its error as Fatal, which is
// not an exit here (the error is returned).
type quiet struct{}

func (quiet) Panic(string, log.Fields) {}
func (quiet) Fatal(string, log.Fields) {}
func (quiet) Error(string, log.Fields) {}
func (quiet) Warn(string, log.Fields)  {}
func (quiet) Info(string, log.Fields)  {}
func (quiet) Debug(string, log.Fields) {}
func (quiet) SetLevel(log.LogLevel)    {}
func (quiet) GetLevel() log.LogLevel   { return log.PanicLevel }
