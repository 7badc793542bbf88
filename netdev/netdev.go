// Package netdev answers the questions the key writers ask about network
// devices: the ifindex of an interface, the ifindex (l3index) of a VRF
// device, and the VRF an interface is enslaved to. TCP-MD5 keys
// (TCP_MD5SIG_FLAG_IFINDEX) and TCP-AO keys (TCP_AO_KEYF_IFINDEX) scoped to
// a VRF carry that VRF's ifindex.
//
// On Linux the answers come from route netlink (RTM_GETLINK: IFLA_IFNAME,
// IFLA_MASTER, IFLA_LINKINFO/IFLA_INFO_KIND), asked in the calling thread's
// network namespace, so a goroutine locked into another namespace gets that
// namespace's devices (/sys/class/net would show the mount's namespace
// instead). Elsewhere every function returns ErrNotSupported.
//
// The parsing of RTM_NEWLINK answers is pure and portable (ParseLink).
// Imports nothing of ours.
package netdev

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Errors, to be matched with errors.Is.
var (
	// ErrNoDevice: no network device has that name (or index).
	ErrNoDevice = errors.New("no such network device")
	// ErrNotVRF: the device exists but is not of kind "vrf".
	ErrNotVRF = errors.New("network device is not a VRF")
	// ErrNotSupported: not on Linux.
	ErrNotSupported = errors.New("netdev: network device lookup is only supported on Linux")
)

// KindVRF is IFLA_INFO_KIND of a VRF device.
const KindVRF = "vrf"

// Link is what this package reads of one RTM_NEWLINK message.
type Link struct {
	Index  int    // ifi_index
	Name   string // IFLA_IFNAME
	Master int    // IFLA_MASTER; 0 when the device has none
	Kind   string // IFLA_LINKINFO/IFLA_INFO_KIND; "" when the device has none (e.g. a physical NIC)
	// Table is a VRF device's routing table (IFLA_INFO_DATA/IFLA_VRF_TABLE);
	// 0 for other devices.
	Table uint32
}

// IsVRF reports whether l is a VRF device.
func (l Link) IsVRF() bool { return l.Kind == KindVRF }

// Route netlink constants (linux/if_link.h, linux/rtnetlink.h), kept here
// so the parser builds on every OS.
const (
	ifinfomsgLen  = 16
	iflaIfname    = 3
	iflaMaster    = 10
	iflaLinkinfo  = 18
	iflaInfoKind  = 1
	iflaInfoData  = 2
	iflaVRFTable  = 1
	nlaTypeMask   = 0x3fff // ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
	nlaHeaderLen  = 4
	maxIfnameSize = 16 // IFNAMSIZ
)

// ParseLink decodes the payload of an RTM_NEWLINK message (struct
// ifinfomsg followed by attributes). Unknown attributes are ignored; a
// truncated message or attribute is an error.
func ParseLink(b []byte) (Link, error) {
	if len(b) < ifinfomsgLen {
		return Link{}, fmt.Errorf("netdev: link message of %d bytes, shorter than ifinfomsg (%d)", len(b), ifinfomsgLen)
	}
	l := Link{Index: int(int32(binary.NativeEndian.Uint32(b[4:8])))}
	err := walkAttrs(b[ifinfomsgLen:], func(typ uint16, v []byte) error {
		switch typ {
		case iflaIfname:
			l.Name = cString(v)
		case iflaMaster:
			if len(v) < 4 {
				return fmt.Errorf("netdev: IFLA_MASTER of %d bytes", len(v))
			}
			l.Master = int(binary.NativeEndian.Uint32(v[:4]))
		case iflaLinkinfo:
			var data []byte
			err := walkAttrs(v, func(typ uint16, v []byte) error {
				switch typ {
				case iflaInfoKind:
					l.Kind = cString(v)
				case iflaInfoData:
					data = v
				}
				return nil
			})
			if err != nil || l.Kind != KindVRF || data == nil {
				return err
			}
			return walkAttrs(data, func(typ uint16, v []byte) error {
				if typ == iflaVRFTable {
					if len(v) < 4 {
						return fmt.Errorf("netdev: IFLA_VRF_TABLE of %d bytes", len(v))
					}
					l.Table = binary.NativeEndian.Uint32(v[:4])
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return Link{}, err
	}
	return l, nil
}

// walkAttrs calls fn for each netlink attribute of b, in order.
func walkAttrs(b []byte, fn func(typ uint16, v []byte) error) error {
	for len(b) > 0 {
		if len(b) < nlaHeaderLen {
			return fmt.Errorf("netdev: %d trailing bytes, shorter than an attribute header", len(b))
		}
		n := int(binary.NativeEndian.Uint16(b[0:2]))
		typ := binary.NativeEndian.Uint16(b[2:4]) & nlaTypeMask
		if n < nlaHeaderLen || n > len(b) {
			return fmt.Errorf("netdev: attribute %d of length %d in %d bytes", typ, n, len(b))
		}
		if err := fn(typ, b[nlaHeaderLen:n]); err != nil {
			return err
		}
		n = (n + 3) &^ 3 // NLA_ALIGN
		if n > len(b) {
			n = len(b)
		}
		b = b[n:]
	}
	return nil
}

// cString is v up to its first NUL.
func cString(v []byte) string {
	for i, c := range v {
		if c == 0 {
			return string(v[:i])
		}
	}
	return string(v)
}

// checkName refuses names the kernel could never have: empty, too long,
// or with a NUL or '/'.
func checkName(what, name string) error {
	if name == "" {
		return fmt.Errorf("netdev: %s name is empty: %w", what, ErrNoDevice)
	}
	if len(name) >= maxIfnameSize {
		return fmt.Errorf("netdev: %s %q: name longer than %d bytes: %w", what, name, maxIfnameSize-1, ErrNoDevice)
	}
	for i := 0; i < len(name); i++ {
		if name[i] == 0 || name[i] == '/' {
			return fmt.Errorf("netdev: %s %q: invalid name: %w", what, name, ErrNoDevice)
		}
	}
	return nil
}

// vrfOf checks that l is a VRF and returns its index.
func vrfOf(l Link) (int, error) {
	if !l.IsVRF() {
		kind := l.Kind
		if kind == "" {
			kind = "none"
		}
		return 0, fmt.Errorf("netdev: %s (ifindex %d) is of kind %q: %w", l.Name, l.Index, kind, ErrNotVRF)
	}
	return l.Index, nil
}

func putInt32(b []byte, v int32) { binary.NativeEndian.PutUint32(b, uint32(v)) }
