package srv6

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/srv6policy"
)

// TestPlan: which received policies the headend installs, with which
// routes, and the verdict of each candidate.
func TestPlan(t *testing.T) {
	nb := netip.MustParseAddr("2001:db8:12::1")
	cand := func(p srv6policy.Policy, from netip.Addr) Candidate {
		return candidateOf("x", receivedPath(t, p, 65001, from.String()), from)
	}
	name := func(p srv6policy.Policy) string { return p.NLRIKey() + " from " + nb.String() }
	high := rcvBase
	high.Distinguisher, high.Preference = 2, 200
	high.Segments = []netip.Addr{netip.MustParseAddr("fc00:0:4::1")}
	high.BindingSID = netip.MustParseAddr("fc00:0:1:b6::200")
	noBSID := rcvBase
	noBSID.BindingSID = netip.Addr{}
	otherKey := rcvBase
	otherKey.KeyID = 77
	sameBSID := rcvBase
	sameBSID.Color, sameBSID.Endpoint, sameBSID.Preference = 800, netip.MustParseAddr("2001:db8:3::8"), 50
	sameBSID.BindingSID = high.BindingSID
	far := netip.MustParseAddr("2001:db8:99::1")
	noAdv := rcvBase
	noAdv.Headends = nil
	installed := map[uint32]KeyState{42: {Installed: true}}
	type want struct {
		selected bool
		reason   string // contained in the verdict's reason (or notes)
		routes   int
	}
	for _, tc := range []struct {
		name    string
		cands   []Candidate
		steer   bool
		blocked error
		via     error
		keys    map[uint32]KeyState
		desired []string
		want    map[string]want
	}{
		{name: "installed with steer", cands: []Candidate{cand(rcvBase, nb)}, steer: true, keys: installed,
			desired: []string{"fc00:0:1:b6::100/128", "2001:db8:3::3/128"},
			want:    map[string]want{name(rcvBase): {selected: true, routes: 2}}},
		{name: "installed without steer", cands: []Candidate{cand(rcvBase, nb)}, keys: installed,
			desired: []string{"fc00:0:1:b6::100/128"},
			want:    map[string]want{name(rcvBase): {selected: true, routes: 1}}},
		{name: "key not configured", cands: []Candidate{cand(otherKey, nb)}, steer: true, keys: installed,
			want: map[string]want{name(otherKey): {reason: "HMAC key ID 77 not in our key table"}}},
		{name: "key not in the kernel", cands: []Candidate{cand(rcvBase, nb)}, steer: true, keys: map[uint32]KeyState{42: {Err: "boom"}},
			want: map[string]want{name(rcvBase): {reason: "HMAC key 42 is not in the kernel: boom"}}},
		{name: "key never applied", cands: []Candidate{cand(rcvBase, nb)}, steer: true, keys: map[uint32]KeyState{},
			want: map[string]want{name(rcvBase): {reason: "HMAC key 42 is not in the kernel: not installed"}}},
		{name: "best preference wins", cands: []Candidate{cand(rcvBase, nb), cand(high, nb)}, steer: true, keys: installed,
			desired: []string{"fc00:0:1:b6::200/128", "2001:db8:3::3/128"},
			want: map[string]want{
				name(high):    {selected: true, routes: 2},
				name(rcvBase): {reason: "not selected: " + name(high) + " wins for color 100 endpoint 2001:db8:3::3 (preference 200 over 100)"},
			}},
		{name: "destination held by a better winner", cands: []Candidate{cand(sameBSID, nb), cand(high, nb)}, steer: true, keys: installed,
			desired: []string{"fc00:0:1:b6::200/128", "2001:db8:3::3/128", "2001:db8:3::8/128"},
			want: map[string]want{
				name(high):     {selected: true, routes: 2},
				name(sameBSID): {selected: true, routes: 1, reason: "bsid route fc00:0:1:b6::200/128 is held by " + name(high)},
			}},
		{name: "blocked", cands: []Candidate{cand(rcvBase, nb)}, steer: true, keys: installed, blocked: errors.New("no tunnel source"),
			want: map[string]want{name(rcvBase): {reason: "no tunnel source"}}},
		{name: "nothing to install", cands: []Candidate{cand(noBSID, nb)}, keys: installed,
			want: map[string]want{name(noBSID): {reason: "nothing to install: no Binding SID, and steer-endpoint is off"}}},
		{name: "no route to the first segment", cands: []Candidate{cand(rcvBase, nb)}, steer: true, keys: installed, via: errors.New("unreachable"),
			want: map[string]want{name(rcvBase): {reason: "no route to the first segment fc00:0:3::e: unreachable"}}},
		{name: "NO_ADVERTISE from afar", cands: []Candidate{cand(noAdv, far)}, steer: true, keys: installed,
			want: map[string]want{noAdv.NLRIKey() + " from " + far.String(): {reason: "not directly connected"}}},
		{name: "undecodable", cands: []Candidate{{Name: "x from 2001:db8:12::1", Err: "truncated NLRI"}}, keys: installed,
			want: map[string]want{"x from 2001:db8:12::1": {reason: "truncated NLRI"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := View{
				RouterID: netip.MustParseAddr("192.0.2.2"),
				HaveKey:  func(id uint32) bool { return id == 42 },
				Direct:   func(a netip.Addr) bool { return a == nb },
				Steer:    tc.steer,
				Blocked:  tc.blocked,
				Via: func(netip.Addr) (int, error) {
					if tc.via != nil {
						return 0, tc.via
					}
					return 2, nil
				},
			}
			desired, verdicts := Plan(tc.cands, v, tc.keys)
			var got []string
			for _, dst := range sortedPrefixes(desired) {
				got = append(got, dst.String())
				if r := desired[dst].Route; r.OIF != 2 || r.KeyID != 42 || r.Dst != dst {
					t.Errorf("route %s: %+v", dst, r)
				}
			}
			want := slices.Clone(tc.desired)
			slices.SortFunc(want, func(a, b string) int {
				pa, pb := netip.MustParsePrefix(a), netip.MustParsePrefix(b)
				return pa.Addr().Compare(pb.Addr())
			})
			if !slices.Equal(got, want) {
				t.Errorf("desired %v, want %v", got, want)
			}
			if len(verdicts) != len(tc.cands) {
				t.Fatalf("%d verdicts for %d candidates", len(verdicts), len(tc.cands))
			}
			for _, vd := range verdicts {
				w, ok := tc.want[vd.Name]
				reason := strings.Join(append([]string{vd.Reason}, vd.Notes...), "; ")
				if !ok || vd.Selected != w.selected || len(vd.Routes) != w.routes || !strings.Contains(reason, w.reason) {
					t.Errorf("verdict %+v; want %+v", vd, w)
				}
			}
		})
	}
}

// TestStatuses: a selected candidate is installed when one of its routes
// is; failures and held routes are its reason; names count once, sorted.
func TestStatuses(t *testing.T) {
	a := netip.MustParsePrefix("fc00::a/128")
	b := netip.MustParsePrefix("fc00::b/128")
	failed := map[netip.Prefix]error{b: fmt.Errorf("file exists")}
	got := Statuses([]Verdict{
		{Name: "z", Reason: "for another headend"},
		{Name: "c", Selected: true, Routes: []netip.Prefix{a, b}, Notes: []string{"steer route held by y"}},
		{Name: "d", Selected: true, Routes: []netip.Prefix{b}},
		{Name: "e", Selected: true},
		{Name: "z", Selected: true, Routes: []netip.Prefix{a}}, // the first z counts
	}, failed)
	want := []PolicyStatus{
		{Name: "c", Installed: true, Reason: "steer route held by y; file exists"},
		{Name: "d", Reason: "file exists"},
		{Name: "e", Reason: "no route installed"},
		{Name: "z", Reason: "for another headend"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Statuses:\n got %+v\nwant %+v", got, want)
	}
}
