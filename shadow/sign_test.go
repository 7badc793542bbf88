package shadow

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/authbgp/authbgpd/md5auth"
)

// signedFrame builds an Ethernet/IPv4 frame from 192.0.2.2:179 to
// 192.0.2.1 carrying a BGP-sized payload, signed with e2eKey by md5auth
// (whose digest the tcpdump oracle test proves), and returns the bytes
// the digest covers.
func signedFrame(t testing.TB, payload int) (frm, covered []byte) {
	const hl = 20 + 20 // TCP header with NOP,NOP,MD5 option (20 bytes)
	seg := make([]byte, hl+payload)
	binary.BigEndian.PutUint16(seg[0:], 179)
	binary.BigEndian.PutUint16(seg[2:], 40000)
	binary.BigEndian.PutUint32(seg[4:], 1000)
	binary.BigEndian.PutUint32(seg[8:], 2000)
	seg[12] = byte(hl/4) << 4
	seg[13] = 0x18
	binary.BigEndian.PutUint16(seg[14:], 502)
	copy(seg[20:], []byte{1, 1, 19, 18})
	for i := hl; i < len(seg); i++ {
		seg[i] = 0xff
	}
	src, dst := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.1")
	sig, err := md5auth.NewDigester().Sum(nil, src, dst, seg, []byte(e2eKey))
	if err != nil {
		t.Fatal(err)
	}
	copy(seg[24:40], sig)
	ip := make([]byte, 20+len(seg))
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(len(ip)))
	ip[8] = 64
	ip[9] = 6
	copy(ip[12:16], src.AsSlice())
	copy(ip[16:20], dst.AsSlice())
	copy(ip[20:], seg)
	frm = append(make([]byte, 12), 0x08, 0x00)
	frm = append(frm, ip...)
	covered = make([]byte, 12+20+payload+len(e2eKey))
	return frm, covered
}
