//go:build linux

package netdev

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// newNS makes one namespace with a veth pair v0/v1 (no addresses).
func newNS(t *testing.T) string {
	t.Helper()
	testenv.RequireRoot(t)
	if _, err := exec.LookPath("ip"); err != nil {
		testenv.Skip(t, "ip(8) is not installed")
	}
	tp := netns.New(t, "netdev")
	ns := tp.Add("a")
	netns.Run(t, "ip", "-n", ns, "link", "add", "v0", "type", "veth", "peer", "name", "v1")
	return ns
}

// in runs fn in namespace ns.
func in(t *testing.T, ns string, fn func() error) {
	t.Helper()
	if err := netns.Do(ns, fn); err != nil {
		t.Fatal(err)
	}
}

// addBridge adds bridge device name in ns, or skips the test because the
// kernel has no bridges (the VM's kernel has none).
func addBridge(t *testing.T, ns, name string) {
	t.Helper()
	out, err := exec.Command("ip", "-n", ns, "link", "add", name, "type", "bridge").CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "Unknown device type") || strings.Contains(string(out), "not supported") {
			testenv.SkipKernelLacks(t, "CONFIG_BRIDGE", "ip link add type bridge: "+strings.TrimSpace(string(out)))
		}
		t.Fatalf("ip link add %s type bridge: %v\n%s", name, err, out)
	}
}

// addVRF adds VRF device name (routing table table) in ns, or skips the
// test because the kernel has no VRF devices.
func addVRF(t *testing.T, ns, name, table string) {
	t.Helper()
	out, err := exec.Command("ip", "-n", ns, "link", "add", name, "type", "vrf", "table", table).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "Unknown device type") || strings.Contains(string(out), "not supported") {
			testenv.SkipKernelLacks(t, "CONFIG_NET_VRF", "ip link add type vrf: "+strings.TrimSpace(string(out)))
		}
		t.Fatalf("ip link add %s type vrf: %v\n%s", name, err, out)
	}
	netns.Run(t, "ip", "-n", ns, "link", "set", name, "up")
}

func TestIfIndexInNamespace(t *testing.T) {
	ns := newNS(t)
	in(t, ns, func() error {
		lo, err := IfIndex("lo")
		if err != nil || lo != 1 {
			t.Errorf("IfIndex(lo) = %d, %v; want 1 (a new namespace's loopback)", lo, err)
		}
		v0, err := IfIndex("v0")
		if err != nil || v0 <= 1 {
			t.Errorf("IfIndex(v0) = %d, %v", v0, err)
		}
		l, err := LinkByIndex(v0)
		if err != nil || l.Name != "v0" || l.Kind != "veth" || l.Master != 0 {
			t.Errorf("LinkByIndex(%d) = %+v, %v", v0, l, err)
		}
		if _, err := IfIndex("nosuch0"); !errors.Is(err, ErrNoDevice) {
			t.Errorf("IfIndex(nosuch0) = %v, want ErrNoDevice", err)
		}
		if _, err := LinkByIndex(1 << 30); !errors.Is(err, ErrNoDevice) {
			t.Errorf("LinkByIndex(1<<30) = %v, want ErrNoDevice", err)
		}
		return nil
	})
}

func TestNotVRFInNamespace(t *testing.T) {
	ns := newNS(t)
	in(t, ns, func() error {
		for _, name := range []string{"v0", "lo"} {
			_, err := VRFIndex(name)
			if !errors.Is(err, ErrNotVRF) || errors.Is(err, ErrNoDevice) {
				t.Errorf("VRFIndex(%s) = %v, want ErrNotVRF", name, err)
			}
		}
		if _, err := VRFIndex("blue"); !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), `VRF "blue"`) {
			t.Errorf("VRFIndex(blue) = %v, want ErrNoDevice naming the VRF", err)
		}
		for _, name := range []string{"v0", "v1", "lo"} {
			if vrf, idx, err := MasterVRF(name); err != nil || vrf != "" || idx != 0 {
				t.Errorf("MasterVRF(%s) = %q, %d, %v; want none", name, vrf, idx, err)
			}
		}
		if _, _, err := MasterVRF("nosuch0"); !errors.Is(err, ErrNoDevice) {
			t.Errorf("MasterVRF(nosuch0) = %v, want ErrNoDevice", err)
		}
		return nil
	})
}

// TestMasterNotVRF: a port of a bridge that is in no VRF is in no VRF,
// and a bridge is no VRF.
func TestMasterNotVRF(t *testing.T) {
	ns := newNS(t)
	addBridge(t, ns, "br0")
	netns.Run(t, "ip", "-n", ns, "link", "set", "v0", "master", "br0")
	in(t, ns, func() error {
		if _, err := VRFIndex("br0"); !errors.Is(err, ErrNotVRF) || !strings.Contains(err.Error(), `"bridge"`) {
			t.Errorf("VRFIndex(br0) = %v, want ErrNotVRF naming kind bridge", err)
		}
		if l, err := LinkByName("v0"); err != nil || l.Master == 0 {
			t.Errorf("LinkByName(v0) = %+v, %v; want a master", l, err)
		}
		for _, name := range []string{"v0", "br0"} {
			if vrf, idx, err := MasterVRF(name); err != nil || vrf != "" || idx != 0 {
				t.Errorf("MasterVRF(%s) = %q, %d, %v; want none", name, vrf, idx, err)
			}
		}
		return nil
	})
}

func TestVRFInNamespace(t *testing.T) {
	ns := newNS(t)
	addVRF(t, ns, "blue", "10")
	addVRF(t, ns, "red", "20")
	netns.Run(t, "ip", "-n", ns, "link", "set", "v0", "master", "blue")
	in(t, ns, func() error {
		blue, err := VRFIndex("blue")
		if err != nil {
			t.Fatalf("VRFIndex(blue): %v", err)
		}
		red, err := VRFIndex("red")
		if err != nil || red == blue {
			t.Fatalf("VRFIndex(red) = %d, %v (blue %d)", red, err, blue)
		}
		if i, _ := IfIndex("blue"); i != blue {
			t.Errorf("IfIndex(blue) = %d, VRFIndex %d", i, blue)
		}
		if l, err := LinkByName("red"); err != nil || !l.IsVRF() || l.Index != red {
			t.Errorf("LinkByName(red) = %+v, %v", l, err)
		}
		for name, want := range map[string]uint32{"blue": 10, "red": 20} {
			if tab, err := VRFTable(name); err != nil || tab != want {
				t.Errorf("VRFTable(%s) = %d, %v; want %d (ip link add %s type vrf table %d)", name, tab, err, want, name, want)
			}
		}
		if _, err := VRFTable("v0"); !errors.Is(err, ErrNotVRF) {
			t.Errorf("VRFTable(v0) = %v, want ErrNotVRF", err)
		}
		for _, tc := range []struct {
			ifname, vrf string
			index       int
		}{
			{"v0", "blue", blue},
			{"blue", "blue", blue}, // a VRF is its own l3 domain
			{"v1", "", 0},
			{"lo", "", 0},
		} {
			vrf, idx, err := MasterVRF(tc.ifname)
			if err != nil || vrf != tc.vrf || idx != tc.index {
				t.Errorf("MasterVRF(%s) = %q, %d, %v; want %q, %d", tc.ifname, vrf, idx, err, tc.vrf, tc.index)
			}
		}
		return nil
	})
	// The VRF gone: ErrNoDevice, and v0 is in no VRF any more.
	netns.Run(t, "ip", "-n", ns, "link", "del", "blue")
	in(t, ns, func() error {
		if _, err := VRFIndex("blue"); !errors.Is(err, ErrNoDevice) {
			t.Errorf("VRFIndex(blue) after delete = %v, want ErrNoDevice", err)
		}
		if vrf, idx, err := MasterVRF("v0"); err != nil || vrf != "" || idx != 0 {
			t.Errorf("MasterVRF(v0) after delete = %q, %d, %v", vrf, idx, err)
		}
		return nil
	})
	// A port of a bridge that is in a VRF is in that VRF.
	t.Run("bridge", func(t *testing.T) {
		addBridge(t, ns, "br1")
		netns.Run(t, "ip", "-n", ns, "link", "set", "br1", "master", "red")
		netns.Run(t, "ip", "-n", ns, "link", "set", "v1", "master", "br1")
		in(t, ns, func() error {
			red, _ := VRFIndex("red")
			for _, name := range []string{"br1", "v1"} {
				if vrf, idx, err := MasterVRF(name); err != nil || vrf != "red" || idx != red {
					t.Errorf("MasterVRF(%s) = %q, %d, %v; want red, %d", name, vrf, idx, err, red)
				}
			}
			return nil
		})
	})
}
