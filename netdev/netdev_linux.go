//go:build linux

package netdev

import (
	"errors"
	"fmt"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// IfIndex returns the ifindex of network device name in the calling
// thread's network namespace; ErrNoDevice when there is none.
func IfIndex(name string) (int, error) {
	l, err := LinkByName(name)
	if err != nil {
		return 0, err
	}
	return l.Index, nil
}

// VRFIndex returns the ifindex (the l3index keys are scoped with) of VRF
// device name: ErrNoDevice when there is no such device, ErrNotVRF when
// it is not of kind "vrf".
func VRFIndex(name string) (int, error) {
	if err := checkName("VRF", name); err != nil {
		return 0, err
	}
	l, err := LinkByName(name)
	if err != nil {
		return 0, fmt.Errorf("netdev: VRF %q: %w", name, err)
	}
	return vrfOf(l)
}

// VRFTable returns the routing table of VRF device name (ErrNoDevice,
// ErrNotVRF as VRFIndex).
func VRFTable(name string) (uint32, error) {
	if err := checkName("VRF", name); err != nil {
		return 0, err
	}
	l, err := LinkByName(name)
	if err != nil {
		return 0, fmt.Errorf("netdev: VRF %q: %w", name, err)
	}
	if _, err := vrfOf(l); err != nil {
		return 0, err
	}
	return l.Table, nil
}

// MasterVRF returns the VRF interface ifname is enslaved to: "", 0 and no
// error when it is in none (no master, or a master that is not a VRF, such
// as a bridge whose own master is not a VRF either); ErrNoDevice when
// ifname does not exist. A VRF device is its own l3 domain: MasterVRF of a
// VRF returns the VRF itself. A port of a bridge that is in a VRF is in
// that VRF (the kernel's l3mdev rule walks up through the bridge).
func MasterVRF(ifname string) (name string, index int, err error) {
	l, err := LinkByName(ifname)
	if err != nil {
		return "", 0, err
	}
	seen := map[int]bool{}
	for {
		if l.IsVRF() {
			return l.Name, l.Index, nil
		}
		if l.Master == 0 || seen[l.Master] {
			return "", 0, nil
		}
		seen[l.Index] = true
		m, err := LinkByIndex(l.Master)
		if errors.Is(err, ErrNoDevice) {
			return "", 0, nil // the master went away between the two questions
		}
		if err != nil {
			return "", 0, fmt.Errorf("netdev: master of %s: %w", ifname, err)
		}
		l = m
	}
}

// LinkByName asks the kernel for the device called name.
func LinkByName(name string) (Link, error) {
	if err := checkName("device", name); err != nil {
		return Link{}, err
	}
	ae := netlink.NewAttributeEncoder()
	ae.String(iflaIfname, name)
	attrs, err := ae.Encode()
	if err != nil {
		return Link{}, fmt.Errorf("netdev: encode request for %q: %w", name, err)
	}
	l, err := getLink(0, attrs)
	if err != nil {
		return Link{}, fmt.Errorf("netdev: device %q: %w", name, err)
	}
	return l, nil
}

// LinkByIndex asks the kernel for the device of ifindex index.
func LinkByIndex(index int) (Link, error) {
	if index <= 0 {
		return Link{}, fmt.Errorf("netdev: ifindex %d: %w", index, ErrNoDevice)
	}
	l, err := getLink(int32(index), nil)
	if err != nil {
		return Link{}, fmt.Errorf("netdev: ifindex %d: %w", index, err)
	}
	return l, nil
}

// getLink sends one RTM_GETLINK for index (or, when 0, for the name in
// attrs) and parses the answer. ENODEV is ErrNoDevice.
func getLink(index int32, attrs []byte) (Link, error) {
	c, err := netlink.Dial(unix.NETLINK_ROUTE, nil)
	if err != nil {
		return Link{}, fmt.Errorf("route netlink socket: %w", err)
	}
	defer c.Close()
	req := make([]byte, ifinfomsgLen, ifinfomsgLen+len(attrs))
	req[0] = unix.AF_UNSPEC
	putInt32(req[4:8], index)
	req = append(req, attrs...)
	msgs, err := c.Execute(netlink.Message{
		Header: netlink.Header{Type: unix.RTM_GETLINK, Flags: netlink.Request},
		Data:   req,
	})
	if err != nil {
		var oe *netlink.OpError
		if errors.Is(err, unix.ENODEV) || (errors.As(err, &oe) && errors.Is(oe.Err, unix.ENODEV)) {
			return Link{}, ErrNoDevice
		}
		return Link{}, fmt.Errorf("RTM_GETLINK: %w", err)
	}
	for _, m := range msgs {
		if m.Header.Type != unix.RTM_NEWLINK {
			continue
		}
		return ParseLink(m.Data)
	}
	return Link{}, fmt.Errorf("RTM_GETLINK: no RTM_NEWLINK in %d answers", len(msgs))
}
