package tcpao_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/authbgp/authbgpd/tcpao"
)

// The client's first data segment of RFC 9235 §4.1.3 (a BGP OPEN), IPv4
// header stripped: 10.11.12.13:59863 -> 172.27.28.29:179, HMAC-SHA-1-96.
const rfc9235Section413 = `
e9 d7 00 b3 fb fb ab 5b 11 c1 42 62 c0 18 01 04 a1 62 00 00 01 01 08 0a
00 15 5a c1 84 a5 0b eb 1d 10 3d 54 70 64 cf 99 8c c6 c3 15 c2 c2 e2 bf
ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff 00 43 01 04 da bf 00 b4
0a 0b 0c 0d 26 02 06 01 04 00 01 00 01 02 02 80 00 02 02 02 00 02 02 42
00 02 06 41 04 00 00 da bf 02 08 40 06 00 64 00 01 01 00`

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

// A shadow checker on the server of RFC 9235 §4.1 derives the
// connection's traffic keys once, from the ISNs of the handshake, then
// verifies each segment.
func ExampleMasterKey_Keys() {
	mk := tcpao.MasterKey{
		Alg:            tcpao.HMACSHA1,
		Secret:         []byte("testvector"),
		SendID:         84, // the server sends KeyID 84
		RecvID:         61, // and receives 61
		IncludeOptions: true,
	}
	conn := tcpao.Connection{
		Local:     netip.MustParseAddrPort("172.27.28.29:179"),
		Remote:    netip.MustParseAddrPort("10.11.12.13:59863"),
		LocalISN:  0x11c14261, // the SYN-ACK's sequence number
		RemoteISN: 0xfbfbab5a, // the SYN's
	}
	keys, err := mk.Keys(conn)
	if err != nil {
		fmt.Println(err)
		return
	}
	seg := tcpao.Segment{
		Src: netip.MustParseAddr("10.11.12.13"),
		Dst: netip.MustParseAddr("172.27.28.29"),
		TCP: mustHex(rfc9235Section413),
	}
	fmt.Println("verify:", keys.Verify(tcpao.Receive, 0, seg))

	// A changed byte, or the wrong SNE, is a bad MAC.
	err = keys.Verify(tcpao.Receive, 1, seg)
	fmt.Println("SNE 1 is a bad MAC:", errors.Is(err, tcpao.ErrBadMAC))
	fmt.Println(mk) // no secret
	// Output:
	// verify: <nil>
	// SNE 1 is a bad MAC: true
	// tcpao.MasterKey(hmac-sha-1-96, send 84, recv 61, options included, 12-byte MAC, 10-byte secret)
}

// The MAC of a segment, computed with a prepared traffic key into a
// caller's buffer (no allocation), and the option it goes into.
func ExampleTrafficKey_MAC() {
	ctx := tcpao.Context{ // the client's Send_other_traffic_key of RFC 9235 §4.1
		Src:    netip.MustParseAddrPort("10.11.12.13:59863"),
		Dst:    netip.MustParseAddrPort("172.27.28.29:179"),
		SrcISN: 0xfbfbab5a,
		DstISN: 0x11c14261,
	}
	raw, err := tcpao.DeriveTrafficKey(tcpao.HMACSHA1, []byte("testvector"), ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	key, err := tcpao.NewTrafficKey(tcpao.HMACSHA1, raw, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	seg := tcpao.Segment{Src: ctx.Src.Addr(), Dst: ctx.Dst.Addr(), TCP: mustHex(rfc9235Section413)}
	var buf [tcpao.MACLen]byte
	mac, err := key.MAC(buf[:0], 0, seg)
	if err != nil {
		fmt.Println(err)
		return
	}
	opts, _ := tcpao.SegmentOptions(seg.TCP)
	fmt.Printf("MAC %x\n", mac)
	fmt.Printf("option KeyID %d RNextKeyID %d, MD5 too: %v\n", opts.AO.KeyID, opts.AO.RNextKeyID, opts.HasMD5)
	fmt.Printf("encoded %x\n", tcpao.Option{KeyID: 61, RNextKeyID: 84, MAC: mac}.Append(nil))
	// Output:
	// MAC 7064cf998cc6c315c2c2e2bf
	// option KeyID 61 RNextKeyID 84, MD5 too: false
	// encoded 1d103d547064cf998cc6c315c2c2e2bf
}

// The SNE of a long session's segments, per direction.
func ExampleSNETracker() {
	t := tcpao.NewSNETracker(0xfffffff0) // the direction's ISN
	fmt.Println(t.Observe(0xfffffff1))   // before the wrap
	fmt.Println(t.Observe(0x00000100))   // after it
	fmt.Println(t.Observe(0xfffffff8))   // late, from before it
	fmt.Printf("%#x\n", t.Highest())
	// Output:
	// 0
	// 1
	// 0
	// 0x100000100
}
