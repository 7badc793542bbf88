package config

import (
	"slices"
	"strings"
	"testing"
)

// TestDiffVRFInterface: a peer or range that moves to another VRF is a
// change of "vrf", never key-only (the session is reset, its keys move to
// the new l3index), and the preview says so in words; an interface peer
// on another interface is another peer (removed and added), and so is the
// same address in another VRF beside it.
func TestDiffVRFInterface(t *testing.T) {
	doc := func(peers ...string) *Config { return mustParse(t, G+"\n"+strings.Join(peers, "\n")) }
	static := func(vrf string) string {
		return "[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\npassword = \"pw\"\n" + vrf
	}
	iface := func(name, vrf string) string {
		return "[[peers]]\ninterface = \"" + name + "\"\nasn = 65003\n" + vrf
	}
	rng := func(vrf string) string { return "[[peers]]\nprefix = \"198.51.100.0/24\"\nasn = 65004\n" + vrf }
	blue, red := "vrf = \"blue\"\n", "vrf = \"red\"\n"
	const why = " (sessions are bound to the VRF device, keys scoped to its l3index)"

	cases := []struct {
		name           string
		old, new       *Config
		added, removed []string
		changed        []string // IDs of the changed peers, each with only "vrf"
		other          []string // the preview's Other
	}{
		{"static blue to red", doc(static(blue)), doc(static(red)), nil, nil, []string{"red/192.0.2.2"},
			[]string{"peer 192.0.2.2 moves from VRF blue to VRF red: session reset" + why}},
		{"interface default to blue", doc(iface("eth1", "")), doc(iface("eth1", blue)), nil, nil, []string{"eth1"},
			[]string{"peer eth1 moves from the default VRF to VRF blue: session reset" + why}},
		{"range red to default", doc(rng(red)), doc(rng("")), nil, nil, []string{"198.51.100.0/24"},
			[]string{"range 198.51.100.0/24 moves from VRF red to the default VRF: its sessions reset" + why}},
		{"interface eth1 to eth2", doc(iface("eth1", blue)), doc(iface("eth2", blue)), []string{"eth2"}, []string{"eth1"}, nil, nil},
		{"address to interface", doc(static("")), doc(iface("eth1", "")), []string{"eth1"}, []string{"192.0.2.2"}, nil, nil},
		// The same address in a second VRF is another peer: blue's stays.
		{"blue, and red beside it", doc(static(blue)), doc(static(blue), static(red)), []string{"red/192.0.2.2"}, nil, nil, nil},
		// Two peers of one address: which moved is not told, so none is.
		{"blue and red to default and green", doc(static(blue), static(red)), doc(static(""), static("vrf = \"green\"\n")),
			[]string{"192.0.2.2", "green/192.0.2.2"}, []string{"blue/192.0.2.2", "red/192.0.2.2"}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ch := Diff(tc.old, tc.new)
			if !slices.Equal(ids(ch.Added), tc.added) || !slices.Equal(ids(ch.Removed), tc.removed) {
				t.Errorf("added %v removed %v, want %v %v", ids(ch.Added), ids(ch.Removed), tc.added, tc.removed)
			}
			var changed []string
			for _, pc := range ch.Changed {
				changed = append(changed, pc.ID)
				if !slices.Equal(pc.Fields, []string{"vrf"}) || pc.KeyOnly() || pc.KeyChanged || pc.VRFMove() == "" {
					t.Errorf("%s: fields %v key-only %v key changed %v move %q", pc.ID, pc.Fields, pc.KeyOnly(), pc.KeyChanged, pc.VRFMove())
				}
			}
			if !slices.Equal(changed, tc.changed) {
				t.Errorf("changed %v, want %v", changed, tc.changed)
			}
			p := NewPreview(tc.old, tc.new)
			for _, c := range p.Changed {
				if !c.Reset || c.Rekey {
					t.Errorf("preview change %+v: want a reset, no re-key", c)
				}
			}
			if !slices.Equal(p.Other, tc.other) && (len(p.Other) != 0 || len(tc.other) != 0) {
				t.Errorf("preview other:\n  %s\nwant:\n  %s", strings.Join(p.Other, "\n  "), strings.Join(tc.other, "\n  "))
			}
			assertNoChanges(t, "Diff(new, new)", tc.new, Diff(tc.new, tc.new))
		})
	}
}
