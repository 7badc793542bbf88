package srv6

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"

	"github.com/authbgp/authbgpd/srv6policy"
)

// Candidate is one received SR policy path as read from the RIB.
type Candidate struct {
	srv6policy.Candidate        // Received is nil when the path could not be decoded
	Name                 string // "<NLRI> from <neighbor>", for /status and metrics
	Err                  string // why it could not be decoded
}

// View is what Plan decides with, besides the candidates and the keys.
type View struct {
	RouterID netip.Addr
	HaveKey  func(id uint32) bool          // is the key ID configured
	Direct   func(netip.Addr) bool         // is a neighbor directly connected
	Steer    bool                          // [srv6.headend] steer-endpoint
	Blocked  error                         // why nothing can be installed (nil: it can)
	Via      func(netip.Addr) (int, error) // the output interface towards a first segment
}

// KeyState is one key ID of the kernel key table as the Manager applied it.
type KeyState struct {
	Installed bool
	Err       string // why not, when known
}

// Planned is one route the headend wants, for the candidate Owner.
type Planned struct {
	Route srv6policy.Route
	Owner string
}

// Verdict is Plan's decision about one candidate.
type Verdict struct {
	Name     string
	Selected bool           // it won and has routes planned (some may be held by others)
	Reason   string         // not selected: why
	Routes   []netip.Prefix // selected: its destinations in the plan
	Notes    []string       // selected: the routes another candidate holds
}

// evaluated is one candidate on its way through Plan.
type evaluated struct {
	*Candidate
	in *srv6policy.Installable
	v  Verdict
}

// Plan decides which received policies the headend installs and with which
// routes: per (color, endpoint) the best valid candidate (valid: for this
// headend, with an HMAC key ID that is configured and in the kernel); its
// Binding SID route and, with Steer, its endpoint route, each destination
// to the first winner that wants it (by preference, then name). It returns
// the desired routes by destination and a verdict per candidate, in the
// candidates' order.
func Plan(cands []Candidate, v View, keys map[uint32]KeyState) (map[netip.Prefix]Planned, []Verdict) {
	evs := make([]*evaluated, len(cands))
	for i := range cands {
		evs[i] = &evaluated{Candidate: &cands[i], v: Verdict{Name: cands[i].Name}}
		evs[i].check(v, keys)
	}
	desired := map[netip.Prefix]Planned{}
	for _, ev := range selectWinners(evs) {
		ev.plan(v, desired)
	}
	out := make([]Verdict, len(evs))
	for i, ev := range evs {
		ev.v.Selected = ev.in != nil && ev.v.Reason == ""
		out[i] = ev.v
	}
	return desired, out
}

// check decides whether the candidate is valid (ev.in set) or why not.
func (ev *evaluated) check(v View, keys map[uint32]KeyState) {
	if ev.Received == nil {
		ev.v.Reason = ev.Err
		return
	}
	view := srv6policy.HeadendView{RouterID: v.RouterID, HaveKey: v.HaveKey}
	if v.Direct != nil {
		view.Direct = v.Direct(ev.Neighbor)
	}
	in, err := ev.Check(view)
	if err != nil {
		ev.v.Reason = err.Error()
		return
	}
	if k, ok := keys[in.KeyID]; !ok || !k.Installed {
		why := "not installed"
		if ok && k.Err != "" {
			why = k.Err
		}
		ev.v.Reason = fmt.Sprintf("HMAC key %d is not in the kernel: %s", in.KeyID, why)
		return
	}
	ev.in = in
}

// selectWinners keeps, per (color, endpoint), the best valid candidate and
// returns the winners by preference, then name; the others say who won.
func selectWinners(evs []*evaluated) []*evaluated {
	var valid []*evaluated
	var cands []srv6policy.Candidate
	for _, ev := range evs {
		if ev.in != nil {
			valid = append(valid, ev)
			cands = append(cands, ev.Candidate.Candidate)
		}
	}
	best := srv6policy.SelectBest(cands, nil)
	var winners []*evaluated
	for i, ev := range valid {
		w := valid[best[ev.Key()]]
		if best[ev.Key()] == i {
			winners = append(winners, ev)
			continue
		}
		ev.v.Reason = fmt.Sprintf("not selected: %s wins for color %d endpoint %s (preference %d over %d)", w.Name, ev.Color, ev.Endpoint, w.Preference, ev.Preference)
		ev.in = nil
	}
	sort.Slice(winners, func(i, j int) bool {
		if winners[i].Preference != winners[j].Preference {
			return winners[i].Preference > winners[j].Preference
		}
		return winners[i].Name < winners[j].Name
	})
	return winners
}

// plan adds a winner's routes to desired (a destination already taken is
// a note).
func (ev *evaluated) plan(v View, desired map[netip.Prefix]Planned) {
	if v.Blocked != nil {
		ev.v.Reason = v.Blocked.Error()
		return
	}
	var rs []srv6policy.Route
	if ev.in.BindingSID.IsValid() {
		rs = append(rs, srv6policy.Route{Kind: srv6policy.RouteBSID, Dst: netip.PrefixFrom(ev.in.BindingSID, 128), Segments: ev.in.Segments, KeyID: ev.in.KeyID})
	}
	if v.Steer {
		ep := ev.Endpoint
		rs = append(rs, srv6policy.Route{Kind: srv6policy.RouteSteer, Dst: netip.PrefixFrom(ep, ep.BitLen()), Segments: ev.in.Segments, KeyID: ev.in.KeyID})
	}
	if len(rs) == 0 {
		ev.v.Reason = "nothing to install: no Binding SID, and steer-endpoint is off"
		return
	}
	oif, err := v.Via(ev.in.Segments[0])
	if err != nil {
		ev.v.Reason = fmt.Sprintf("no route to the first segment %s: %v", ev.in.Segments[0], err)
		return
	}
	for _, r := range rs {
		r.OIF = oif
		if o, taken := desired[r.Dst]; taken {
			ev.v.Notes = append(ev.v.Notes, fmt.Sprintf("%s route %s is held by %s", r.Kind, r.Dst, o.Owner))
			continue
		}
		desired[r.Dst] = Planned{Route: r, Owner: ev.Name}
		ev.v.Routes = append(ev.v.Routes, r.Dst)
	}
}

// PolicyStatus is a received policy as last evaluated.
type PolicyStatus struct {
	Name      string
	Installed bool
	Reason    string
}

// Statuses is the outcome of a pass: the verdicts of Plan with the routes
// that failed to install (by destination). A selected candidate is
// installed when one of its routes is; a name seen twice counts once (the
// first). Sorted by name.
func Statuses(verdicts []Verdict, failed map[netip.Prefix]error) []PolicyStatus {
	var out []PolicyStatus
	seen := map[string]bool{}
	for _, v := range verdicts {
		ps := PolicyStatus{Name: v.Name, Reason: v.Reason}
		if v.Selected {
			notes, n := slices.Clone(v.Notes), 0
			for _, dst := range v.Routes {
				if err := failed[dst]; err != nil {
					notes = append(notes, err.Error())
				} else {
					n++
				}
			}
			ps.Installed = n > 0
			ps.Reason = strings.Join(notes, "; ")
			if !ps.Installed && ps.Reason == "" {
				ps.Reason = "no route installed"
			}
		}
		if seen[ps.Name] {
			continue
		}
		seen[ps.Name] = true
		out = append(out, ps)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
