package netdev

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// attr encodes one netlink attribute, padded to 4 bytes.
func attr(typ uint16, v []byte) []byte {
	b := make([]byte, 4, 4+len(v)+3)
	binary.NativeEndian.PutUint16(b[0:2], uint16(4+len(v)))
	binary.NativeEndian.PutUint16(b[2:4], typ)
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func u32(v uint32) []byte { b := make([]byte, 4); binary.NativeEndian.PutUint32(b, v); return b }

func linkMsg(index int32, attrs ...[]byte) []byte {
	b := make([]byte, ifinfomsgLen)
	putInt32(b[4:8], index)
	for _, a := range attrs {
		b = append(b, a...)
	}
	return b
}

func TestParseLink(t *testing.T) {
	const nested = 0x8000 // NLA_F_NESTED, as the kernel sets it on IFLA_LINKINFO
	vrf := linkMsg(7,
		attr(iflaIfname, []byte("blue\x00")),
		attr(99, []byte{1, 2, 3}), // unknown, skipped
		attr(iflaLinkinfo|nested, append(attr(iflaInfoKind, []byte("vrf\x00")), attr(iflaInfoData|nested, attr(iflaVRFTable, u32(10)))...)),
	)
	slave := linkMsg(9, attr(iflaIfname, []byte("eth1\x00")), attr(iflaMaster, u32(7)))
	for _, tc := range []struct {
		name string
		in   []byte
		want Link
		vrf  bool
	}{
		{"vrf", vrf, Link{Index: 7, Name: "blue", Kind: "vrf", Table: 10}, true},
		// IFLA_INFO_DATA of another kind is not read as a VRF's.
		{"veth data", linkMsg(4, attr(iflaLinkinfo, append(attr(iflaInfoKind, []byte("veth\x00")), attr(iflaInfoData, u32(0))...))), Link{Index: 4, Kind: "veth"}, false},
		{"slave", slave, Link{Index: 9, Name: "eth1", Master: 7}, false},
		{"bare", linkMsg(1), Link{Index: 1}, false},
		{"name without NUL", linkMsg(2, attr(iflaIfname, []byte("lo"))), Link{Index: 2, Name: "lo"}, false},
		{"veth", linkMsg(3, attr(iflaLinkinfo, attr(iflaInfoKind, []byte("veth")))), Link{Index: 3, Kind: "veth"}, false},
	} {
		got, err := ParseLink(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want || got.IsVRF() != tc.vrf {
			t.Errorf("%s: got %+v (vrf %v), want %+v (vrf %v)", tc.name, got, got.IsVRF(), tc.want, tc.vrf)
		}
	}
}

func TestParseLinkTruncated(t *testing.T) {
	good := linkMsg(7, attr(iflaIfname, []byte("blue\x00")), attr(iflaMaster, u32(3)))
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"short ifinfomsg", good[:ifinfomsgLen-1]},
		{"short attribute header", good[:ifinfomsgLen+2]},
		{"attribute past the end", good[:ifinfomsgLen+6]},
		{"short IFLA_MASTER", linkMsg(1, attr(iflaMaster, []byte{1, 2}))},
		{"attribute length under its header", append(linkMsg(1), 2, 0, 3, 0)},
		{"bad nested attribute", linkMsg(1, attr(iflaLinkinfo, []byte{9, 0, 1, 0}))},
		{"short IFLA_VRF_TABLE", linkMsg(1, attr(iflaLinkinfo, append(attr(iflaInfoKind, []byte("vrf\x00")), attr(iflaInfoData, attr(iflaVRFTable, []byte{1, 2}))...)))},
	} {
		if l, err := ParseLink(tc.in); err == nil {
			t.Errorf("%s: no error (got %+v)", tc.name, l)
		}
	}
	// Padding missing after the last attribute is accepted (the kernel
	// always pads, but the length says where the value ends).
	b := append(linkMsg(1), 7, 0, iflaIfname, 0, 'l', 'o', 0)
	if l, err := ParseLink(b); err != nil || l.Name != "lo" {
		t.Errorf("unpadded last attribute: %+v, %v", l, err)
	}
}

func TestVRFOf(t *testing.T) {
	if i, err := vrfOf(Link{Index: 7, Name: "blue", Kind: "vrf"}); err != nil || i != 7 {
		t.Errorf("vrf: %d, %v", i, err)
	}
	_, err := vrfOf(Link{Index: 3, Name: "eth0", Kind: "veth"})
	if !errors.Is(err, ErrNotVRF) || !strings.Contains(err.Error(), `eth0 (ifindex 3) is of kind "veth"`) {
		t.Errorf("veth: %v", err)
	}
	if _, err := vrfOf(Link{Index: 1, Name: "lo"}); !errors.Is(err, ErrNotVRF) || !strings.Contains(err.Error(), `"none"`) {
		t.Errorf("lo: %v", err)
	}
}

func TestCheckName(t *testing.T) {
	for _, bad := range []string{"", "0123456789abcdef", "a/b", "a\x00b"} {
		if err := checkName("VRF", bad); !errors.Is(err, ErrNoDevice) {
			t.Errorf("checkName(%q) = %v, want ErrNoDevice", bad, err)
		}
	}
	for _, good := range []string{"blue", "0123456789abcde", "eth0.100"} {
		if err := checkName("VRF", good); err != nil {
			t.Errorf("checkName(%q) = %v", good, err)
		}
	}
}
