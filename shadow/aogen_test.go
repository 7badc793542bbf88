package shadow

// The TCP-AO capture generator: real TCP handshakes and BGP segments,
// signed with package tcpao (MasterKey.Keys, TrafficKey.MAC) or md5auth,
// written as Ethernet pcap files. It makes shadow/testdata/tcpao-*.pcap
// and the config that goes with them (tcpao.toml):
//
//	go test ./shadow -run TestAOCaptures -update-ao
//
// Without -update-ao, TestAOCaptures generates them in memory and requires
// the committed files to be identical (the generator is deterministic), so
// the captures cannot drift from the code that describes them. Every
// packet carries the verdict the generator meant it to get (aoPacket.want),
// which the checker, verify-pcap and the scapy oracle must all agree with.

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpao"
)

var updateAO = flag.Bool("update-ao", false, "rewrite shadow/testdata/tcpao-*.pcap and tcpao.toml from the generator")

// Our end of every generated session.
var (
	aoLocal4 = netip.MustParseAddr("192.0.2.1")
	aoLocal6 = netip.MustParseAddr("2001:db8::1")
)

// aoPacket is one generated packet: the Ethernet frame and the verdict the
// generator means it to have, as aoLabel writes a Result ("valid",
// "bad_mac+flipped", "sent:invalid", ...).
type aoPacket struct {
	t     time.Time
	frame []byte
	want  string
	desc  string // scenario and segment, for failures (never a key)
}

// aoSigner is how one end signs: TCP-AO with mkts[cur] (KeyID its SendID,
// RNextKeyID rnext), TCP-MD5 with md5, or not at all.
type aoSigner struct {
	mkts  []tcpao.MasterKey
	cur   int
	rnext uint8
	md5   []byte
	ts    bool // put a TCP timestamps option in every segment
}

func (s *aoSigner) ao() bool { return len(s.mkts) > 0 }

// aoEnd is one end of a generated connection.
type aoEnd struct {
	ap   netip.AddrPort
	isn  uint32
	next uint64 // the next sequence number, extended (starts at isn, SNE 0)
	sig  aoSigner
}

// aoGenConn is one generated TCP connection: a (the initiator) and b.
type aoGenConn struct {
	g      *aoGen
	a, b   *aoEnd
	scen   string
	synack bool // the SYN-ACK was sent: the "other" keys exist
	n      int
}

// aoGen collects the packets of a scenario set in time order.
type aoGen struct {
	t    testing.TB
	now  time.Time
	pkts []aoPacket
}

func newAOGen(t testing.TB) *aoGen {
	return &aoGen{t: t, now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
}

// conn starts a connection from initiator a to b.
func (g *aoGen) conn(scen string, a, b netip.AddrPort, isnA, isnB uint32, sa, sb aoSigner) *aoGenConn {
	return &aoGenConn{g: g, scen: scen,
		a: &aoEnd{ap: a, isn: isnA, next: uint64(isnA), sig: sa},
		b: &aoEnd{ap: b, isn: isnB, next: uint64(isnB), sig: sb}}
}

// TCP flags.
const (
	fFIN = 0x01
	fSYN = 0x02
	fRST = 0x04
	fPSH = 0x08
	fACK = 0x10
)

// send emits a segment from a (fromA) or b with flags and payload,
// labelled want; retrans sends it again without advancing the sequence.
func (c *aoGenConn) send(fromA bool, flags byte, payload []byte, want string) {
	c.sendSeq(fromA, flags, payload, want, false)
}

func (c *aoGenConn) sendSeq(fromA bool, flags byte, payload []byte, want string, retrans bool) {
	from, to := c.a, c.b
	if !fromA {
		from, to = c.b, c.a
	}
	seq := from.next
	if retrans && flags&fSYN != 0 {
		seq = uint64(from.isn)
	}
	ack := uint32(0)
	if flags&fACK != 0 {
		ack = uint32(to.next)
	}
	seg := c.segment(from, to, uint32(seq), ack, flags, payload)
	if !retrans {
		adv := uint64(len(payload))
		if flags&(fSYN|fFIN) != 0 {
			adv++
		}
		from.next += adv
	}
	if flags&(fSYN|fACK) == fSYN|fACK {
		c.synack = true
	}
	c.n++
	c.g.now = c.g.now.Add(7 * time.Millisecond)
	c.g.pkts = append(c.g.pkts, aoPacket{t: c.g.now, frame: ethernet(from.ap.Addr(), to.ap.Addr(), seg), want: want,
		desc: fmt.Sprintf("%s #%d %v -> %v flags %#02x seq %d len %d", c.scen, c.n, from.ap, to.ap, flags, uint32(seq), len(payload))})
}

// segment builds and signs one TCP segment from from to to.
func (c *aoGenConn) segment(from, to *aoEnd, seq, ack uint32, flags byte, payload []byte) []byte {
	var opts []byte
	syn := flags&fSYN != 0
	if syn {
		opts = append(opts, 2, 4, 0x05, 0xb4) // MSS 1460
		opts = append(opts, 4, 2)             // SACK permitted
	}
	if from.sig.ts || syn {
		if !syn {
			opts = append(opts, 1, 1)
		}
		opts = append(opts, 8, 10)
		opts = binary.BigEndian.AppendUint32(opts, uint32(c.g.now.UnixMilli()))
		opts = binary.BigEndian.AppendUint32(opts, uint32(c.g.now.UnixMilli()-3))
	}
	if syn {
		opts = append(opts, 1, 3, 3, 7) // NOP, window scale 7
	}
	aoOff, md5Off := -1, -1
	switch {
	case from.sig.ao():
		mk := from.sig.mkts[from.sig.cur]
		aoOff = len(opts)
		opts = tcpao.Option{KeyID: mk.SendID, RNextKeyID: from.sig.rnext, MAC: make([]byte, mk.MACLength())}.Append(opts)
	case from.sig.md5 != nil:
		opts = append(opts, 1, 1)
		md5Off = len(opts)
		opts = append(opts, md5auth.OptMD5, 18)
		opts = append(opts, make([]byte, 16)...)
	}
	for len(opts)%4 != 0 {
		opts = append(opts, 0) // EOL padding
	}
	if len(opts) > 40 {
		c.g.t.Fatalf("%s: %d bytes of options", c.scen, len(opts))
	}
	hl := 20 + len(opts)
	seg := make([]byte, hl+len(payload))
	be := binary.BigEndian
	be.PutUint16(seg[0:], from.ap.Port())
	be.PutUint16(seg[2:], to.ap.Port())
	be.PutUint32(seg[4:], seq)
	be.PutUint32(seg[8:], ack)
	seg[12] = byte(hl/4) << 4
	seg[13] = flags
	be.PutUint16(seg[14:], 64240)
	copy(seg[20:], opts)
	copy(seg[hl:], payload)
	src, dst := from.ap.Addr(), to.ap.Addr()
	switch {
	case aoOff >= 0:
		mk := from.sig.mkts[from.sig.cur]
		conn := tcpao.Connection{Local: from.ap, Remote: to.ap, LocalISN: from.isn, RemoteISN: to.isn}
		ks, err := mk.Keys(conn)
		if err != nil {
			c.g.t.Fatal(err)
		}
		sne := uint32(uint64(from.next) >> 32)
		if flags&fSYN != 0 {
			sne = 0
		}
		mac, err := ks.Select(tcpao.Send, flags).MAC(nil, sne, tcpao.Segment{Src: src, Dst: dst, TCP: seg})
		if err != nil {
			c.g.t.Fatal(err)
		}
		copy(seg[20+aoOff+4:], mac)
	case md5Off >= 0:
		sig, err := md5auth.NewDigester().Sum(nil, src, dst, seg, from.sig.md5)
		if err != nil {
			c.g.t.Fatal(err)
		}
		copy(seg[20+md5Off+2:], sig)
	}
	be.PutUint16(seg[16:], tcpChecksum(src, dst, seg))
	return seg
}

// tcpChecksum is the TCP checksum of seg (its checksum field zero).
func tcpChecksum(src, dst netip.Addr, seg []byte) uint16 {
	var sum uint32
	add := func(b []byte) {
		for i := 0; i+1 < len(b); i += 2 {
			sum += uint32(binary.BigEndian.Uint16(b[i:]))
		}
		if len(b)%2 == 1 {
			sum += uint32(b[len(b)-1]) << 8
		}
	}
	add(src.AsSlice())
	add(dst.AsSlice())
	if src.Is4() {
		sum += 6 + uint32(len(seg))
	} else {
		sum += uint32(len(seg)>>16) + uint32(len(seg)&0xffff) + 6
	}
	add(seg)
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// ethernet wraps seg in an IP header and an Ethernet header.
func ethernet(src, dst netip.Addr, seg []byte) []byte {
	f := []byte{0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02}
	be := binary.BigEndian
	if src.Is4() {
		f = append(f, 0x08, 0x00)
		ip := make([]byte, 20)
		ip[0], ip[8], ip[9] = 0x45, 64, 6
		be.PutUint16(ip[2:], uint16(20+len(seg)))
		be.PutUint16(ip[6:], 0x4000) // DF
		copy(ip[12:], src.AsSlice())
		copy(ip[16:], dst.AsSlice())
		var sum uint32
		for i := 0; i < 20; i += 2 {
			sum += uint32(be.Uint16(ip[i:]))
		}
		for sum > 0xffff {
			sum = sum>>16 + sum&0xffff
		}
		be.PutUint16(ip[10:], ^uint16(sum))
		return append(append(f, ip...), seg...)
	}
	f = append(f, 0x86, 0xdd)
	ip := make([]byte, 40)
	ip[0], ip[6], ip[7] = 0x60, 6, 64
	be.PutUint16(ip[4:], uint16(len(seg)))
	copy(ip[8:], src.AsSlice())
	copy(ip[24:], dst.AsSlice())
	return append(append(f, ip...), seg...)
}

// pcap writes the packets as an Ethernet pcap file (microseconds).
func pcapBytes(pkts []aoPacket) []byte {
	var out []byte
	le := binary.LittleEndian
	out = le.AppendUint32(out, 0xa1b2c3d4)
	out = le.AppendUint16(out, 2)
	out = le.AppendUint16(out, 4)
	out = append(out, make([]byte, 8)...)
	out = le.AppendUint32(out, 65535)
	out = le.AppendUint32(out, 1) // LINKTYPE_ETHERNET
	for _, p := range pkts {
		out = le.AppendUint32(out, uint32(p.t.Unix()))
		out = le.AppendUint32(out, uint32(p.t.Nanosecond()/1000))
		out = le.AppendUint32(out, uint32(len(p.frame)))
		out = le.AppendUint32(out, uint32(len(p.frame)))
		out = append(out, p.frame...)
	}
	return out
}

// BGP messages as payloads.
func bgpMsg(typ byte, body int) []byte {
	m := bytes.Repeat([]byte{0xff}, 16)
	m = binary.BigEndian.AppendUint16(m, uint16(19+body))
	m = append(m, typ)
	for i := range body {
		m = append(m, byte(i*7+int(typ)))
	}
	return m
}

var (
	bgpOpen      = bgpMsg(1, 10+18)
	bgpUpdate    = bgpMsg(2, 4+27+4)
	bgpKeepalive = bgpMsg(4, 0)
)

// aoSecrets of the generated captures, by keychain key. They are test
// values; tests check that none of them shows in any output.
var aoSecrets = map[string]string{
	"sha1":      "AO-Sha1-Secret-Quokka",
	"cmac16":    "Cmac16-Narwhal!!", // 16 bytes: KDF_AES_128_CMAC uses it as is
	"sha1-v6":   "AO-Sha1-V6-Secret-Ibex",
	"cmac6":     "Cmac-V6-Secret-Pangolin",
	"roll1":     "Roll-Key-One-Okapi",
	"roll2":     "Roll-Key-Two-Tapir",
	"wrong":     "AO-Our-Secret-Axolotl",
	"peerwrong": "AO-Peer-Secret-Wombat",
	"keyid":     "AO-KeyID-Secret-Lemur",
	"opts":      "AO-Opts-Secret-Kiwi",
	"aomd5":     "AO-Configured-Secret-Yak",
	"md5pw":     "Md5-Password-Marmot",
	"md5ok":     "Md5-Ok-Password-Gecko",
	"missing":   "AO-Missing-Secret-Bison",
	"badroll1":  "Badroll-One-Heron",
	"badroll2":  "Badroll-Two-Egret",
	"peerroll2": "Badroll-Two-Peer-Crane",
	"sne":       "AO-SNE-Wrap-Secret-Dingo",
}

func mkt(alg tcpao.Algorithm, secret string, send, recv uint8, include bool) tcpao.MasterKey {
	return tcpao.MasterKey{Alg: alg, Secret: []byte(aoSecrets[secret]), SendID: send, RecvID: recv, IncludeOptions: include}
}

// aoConfig is the config of the generated captures (tcpao.toml).
const aoConfig = `# Generated by: go test ./shadow -run TestAOCaptures -update-ao
# The peers and keys of shadow/testdata/tcpao-*.pcap (test secrets only).
[global]
asn = 65001
router-id = "192.0.2.1"

[[keychains]]
name = "sha1"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "AO-Sha1-Secret-Quokka"

[[keychains]]
name = "cmac16"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  send-id = 3
  recv-id = 4
  algorithm = "aes-128-cmac-96"
  include-tcp-options = false
  secret = "Cmac16-Narwhal!!"

[[keychains]]
name = "sha1-v6"
type = "tcp-ao"
  [[keychains.keys]]
  id = 7
  send-id = 70
  recv-id = 71
  secret = "AO-Sha1-V6-Secret-Ibex"

[[keychains]]
name = "cmac6"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  algorithm = "aes-128-cmac-96"
  include-tcp-options = false
  secret = "Cmac-V6-Secret-Pangolin"

[[keychains]]
name = "roll"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "Roll-Key-One-Okapi"
  [[keychains.keys]]
  id = 2
  algorithm = "aes-128-cmac-96"
  secret = "Roll-Key-Two-Tapir"
  send-from = 2026-12-01T00:00:00Z

[[keychains]]
name = "wrong"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "AO-Our-Secret-Axolotl"

[[keychains]]
name = "keyid"
type = "tcp-ao"
  [[keychains.keys]]
  id = 5
  secret = "AO-KeyID-Secret-Lemur"

[[keychains]]
name = "opts"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "AO-Opts-Secret-Kiwi"

[[keychains]]
name = "aomd5"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "AO-Configured-Secret-Yak"

[[keychains]]
name = "missing"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "AO-Missing-Secret-Bison"

[[keychains]]
name = "badroll"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "Badroll-One-Heron"
  [[keychains.keys]]
  id = 2
  secret = "Badroll-Two-Egret"
  send-from = 2026-12-01T00:00:00Z

[[keychains]]
name = "sne"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "AO-SNE-Wrap-Secret-Dingo"

[[peers]]
address = "192.0.2.10"
asn = 65010
keychain = "sha1"

[[peers]]
address = "192.0.2.11"
asn = 65011
keychain = "cmac16"

[[peers]]
address = "2001:db8::10"
asn = 65110
keychain = "sha1-v6"

[[peers]]
address = "2001:db8::11"
asn = 65111
keychain = "cmac6"

[[peers]]
address = "192.0.2.12"
asn = 65012
keychain = "roll"

[[peers]]
address = "192.0.2.13"
asn = 65013
keychain = "wrong"

[[peers]]
address = "192.0.2.14"
asn = 65014
keychain = "keyid"

[[peers]]
address = "192.0.2.15"
asn = 65015
keychain = "opts"

[[peers]]
address = "192.0.2.16"
asn = 65016
keychain = "aomd5"

[[peers]]
address = "192.0.2.17"
asn = 65017
password = "Md5-Password-Marmot"

[[peers]]
address = "192.0.2.18"
asn = 65018
password = "Md5-Ok-Password-Gecko"

[[peers]]
address = "192.0.2.19"
asn = 65019

[[peers]]
address = "192.0.2.20"
asn = 65020
keychain = "missing"

[[peers]]
address = "2001:db8::12"
asn = 65112
keychain = "badroll"

[[peers]]
address = "192.0.2.21"
asn = 65021
keychain = "sne"
`

// aoScenario is the diagnosis the mixed capture must give one peer.
type aoScenario struct {
	peer, diag string
	keyID      int // peer_key_id (-1: null)
}

// aoWant are the diagnoses of tcpao-mixed.pcap, and aoWantMid those of
// tcpao-midstream.pcap.
var (
	aoWant = []aoScenario{
		{"192.0.2.10", DiagOK, -1},
		{"192.0.2.11", DiagOK, -1},
		{"2001:db8::10", DiagOK, -1},
		{"2001:db8::11", DiagOK, -1},
		{"192.0.2.12", DiagOK, -1},
		{"192.0.2.13", DiagBadMAC, -1},
		{"192.0.2.14", DiagUnknownKey, 9},
		{"192.0.2.15", DiagOptionsMismatch, -1},
		{"192.0.2.16", DiagWrongMechanism, -1},
		{"192.0.2.17", DiagWrongMechanism, -1},
		{"192.0.2.18", DiagOK, -1},
		{"192.0.2.19", DiagUnexpected, -1},
		{"192.0.2.20", DiagMissing, -1},
		{"2001:db8::12", DiagBadMAC, -1},
		{"192.0.2.21", DiagOK, -1},
	}
	aoWantMid = []aoScenario{
		{"192.0.2.10", DiagNoHandshake, -1},
		{"2001:db8::10", DiagNoHandshake, -1},
	}
)

func ap(a string, port uint16) netip.AddrPort {
	return netip.AddrPortFrom(netip.MustParseAddr(a), port)
}

// session runs a BGP session's start over c (a dials b): handshake, OPENs,
// KEEPALIVEs, an UPDATE each way, labelling received (want) and sent
// segments; peerIsA says which end is the peer.
func (c *aoGenConn) session(peerIsA bool, want string) {
	lab := func(fromA bool) string {
		if fromA == peerIsA {
			return want
		}
		return "sent:valid"
	}
	c.send(true, fSYN, nil, lab(true))
	c.send(false, fSYN|fACK, nil, lab(false))
	c.send(true, fACK, nil, lab(true))
	c.send(true, fPSH|fACK, bgpOpen, lab(true))
	c.send(false, fPSH|fACK, bgpOpen, lab(false))
	c.send(true, fPSH|fACK, bgpKeepalive, lab(true))
	c.send(false, fPSH|fACK, bgpKeepalive, lab(false))
	c.send(false, fPSH|fACK, bgpUpdate, lab(false))
	c.send(true, fPSH|fACK, bgpUpdate, lab(true))
	c.send(true, fPSH|fACK, bgpKeepalive, lab(true))
}

// synOnly sends n SYNs (one and its retransmissions) from the peer a.
func (c *aoGenConn) synOnly(n int, want string) {
	for i := range n {
		c.sendSeq(true, fSYN, nil, want, i > 0)
	}
}

// generateAO returns the packets of tcpao-mixed.pcap and
// tcpao-midstream.pcap.
func generateAO(t testing.TB) (mixed, mid []aoPacket) {
	g := newAOGen(t)
	us4, us6 := func(p uint16) netip.AddrPort { return netip.AddrPortFrom(aoLocal4, p) }, func(p uint16) netip.AddrPort { return netip.AddrPortFrom(aoLocal6, p) }
	sha1, cmac := tcpao.HMACSHA1, tcpao.AESCMAC

	// 1. HMAC-SHA-1-96, options covered (timestamps in every segment),
	// IPv4, the peer dials.
	k := mkt(sha1, "sha1", 1, 1, true)
	c := g.conn("sha1-v4", ap("192.0.2.10", 50110), us4(179), 0x1000_0001, 0x2000_0002,
		aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1, ts: true}, aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1, ts: true})
	c.session(true, "valid")
	sha1v4 := c

	// 2. AES-128-CMAC-96 with a 16-byte secret, options excluded, KeyIDs
	// apart (ours 3, the peer's 4), IPv4, we dial.
	ours, theirs := mkt(cmac, "cmac16", 3, 4, false), mkt(cmac, "cmac16", 4, 3, false)
	c = g.conn("cmac-v4", us4(40011), ap("192.0.2.11", 179), 0x3000_0003, 0x4000_0004,
		aoSigner{mkts: []tcpao.MasterKey{ours}, rnext: 4, ts: true}, aoSigner{mkts: []tcpao.MasterKey{theirs}, rnext: 3, ts: true})
	c.session(false, "valid")

	// 3. HMAC-SHA-1-96, options covered, IPv6, the peer dials; KeyIDs 70/71.
	ours, theirs = mkt(sha1, "sha1-v6", 70, 71, true), mkt(sha1, "sha1-v6", 71, 70, true)
	c = g.conn("sha1-v6", ap("2001:db8::10", 50210), us6(179), 0x5000_0005, 0x6000_0006,
		aoSigner{mkts: []tcpao.MasterKey{theirs}, rnext: 70, ts: true}, aoSigner{mkts: []tcpao.MasterKey{ours}, rnext: 71, ts: true})
	c.session(true, "valid")
	sha1v6 := c

	// 4. AES-128-CMAC-96 with a 23-byte secret, options excluded, IPv6, we
	// dial.
	k = mkt(cmac, "cmac6", 1, 1, false)
	c = g.conn("cmac-v6", us6(40211), ap("2001:db8::11", 179), 0x7000_0007, 0x0800_0008,
		aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1}, aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1})
	c.session(false, "valid")

	// 5. A rollover mid-connection from key 1 (HMAC-SHA-1) to key 2
	// (AES-CMAC): the peer asks for 2 (RNextKeyID), we switch our current
	// key, the peer follows. Every segment is valid.
	roll := []tcpao.MasterKey{mkt(sha1, "roll1", 1, 1, true), mkt(cmac, "roll2", 2, 2, true)}
	c = g.conn("rollover", ap("192.0.2.12", 50112), us4(179), 0x0900_0009, 0x0a00_000a,
		aoSigner{mkts: roll, rnext: 1, ts: true}, aoSigner{mkts: roll, rnext: 1, ts: true})
	c.session(true, "valid")
	c.a.sig.rnext = 2 // the peer asks for key 2
	c.send(true, fPSH|fACK, bgpKeepalive, "valid")
	c.send(false, fPSH|fACK, bgpKeepalive, "sent:valid")
	c.b.sig.cur, c.b.sig.rnext = 1, 2 // we send with key 2
	c.send(false, fPSH|fACK, bgpKeepalive, "sent:valid")
	c.send(true, fPSH|fACK, bgpKeepalive, "valid")
	c.a.sig.cur = 1 // the peer follows
	for range 3 {
		c.send(true, fPSH|fACK, bgpKeepalive, "valid")
		c.send(false, fPSH|fACK, bgpKeepalive, "sent:valid")
	}

	// 6. A wrong key: the peer's SYNs (retransmitted: our kernel drops
	// them) carry MACs of another secret.
	c = g.conn("wrong-key", ap("192.0.2.13", 50113), us4(179), 0x0b00_000b, 0,
		aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "peerwrong", 1, 1, true)}, rnext: 1}, aoSigner{})
	c.synOnly(4, "bad_mac")

	// 7. A wrong KeyID: the peer sends KeyID 9, we hold 5.
	c = g.conn("wrong-keyid", ap("192.0.2.14", 50114), us4(179), 0x0c00_000c, 0,
		aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "keyid", 9, 9, true)}, rnext: 9}, aoSigner{})
	c.synOnly(4, "unknown_key")

	// 8. The peer excludes the options, we include them.
	c = g.conn("options", ap("192.0.2.15", 50115), us4(179), 0x0d00_000d, 0,
		aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "opts", 1, 1, false)}, rnext: 1}, aoSigner{})
	c.synOnly(4, "bad_mac+flipped")

	// 9. TCP-MD5 where TCP-AO is configured.
	c = g.conn("md5-for-ao", ap("192.0.2.16", 50116), us4(179), 0x0e00_000e, 0,
		aoSigner{md5: []byte(aoSecrets["aomd5"])}, aoSigner{})
	c.synOnly(4, "missing+wrongmech")

	// 10. TCP-AO where TCP-MD5 is configured.
	c = g.conn("ao-for-md5", ap("192.0.2.17", 50117), us4(179), 0x0f00_000f, 0,
		aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "md5pw", 1, 1, true)}, rnext: 1}, aoSigner{})
	c.synOnly(4, "missing+wrongmech")

	// 11. A TCP-MD5 peer in the same capture, signing with our password.
	c = g.conn("md5-ok", ap("192.0.2.18", 50118), us4(179), 0x1100_0011, 0x1200_0012,
		aoSigner{md5: []byte(aoSecrets["md5ok"])}, aoSigner{md5: []byte(aoSecrets["md5ok"])})
	c.session(true, "valid")

	// 12. TCP-AO from a peer we hold no key for.
	c = g.conn("unexpected", ap("192.0.2.19", 50119), us4(179), 0x1300_0013, 0,
		aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "sha1", 1, 1, true)}, rnext: 1}, aoSigner{})
	c.synOnly(4, "unexpected")

	// 13. A TCP-AO peer that does not sign.
	c = g.conn("missing", ap("192.0.2.20", 50120), us4(179), 0x1400_0014, 0, aoSigner{}, aoSigner{})
	c.synOnly(4, "missing")

	// 14. A rollover to a key whose secrets differ (IPv6): valid under
	// key 1, bad MACs (the "other" traffic keys) once the peer is on 2.
	ourRoll := []tcpao.MasterKey{mkt(sha1, "badroll1", 1, 1, true), mkt(sha1, "badroll2", 2, 2, true)}
	peerRoll := []tcpao.MasterKey{mkt(sha1, "badroll1", 1, 1, true), mkt(sha1, "peerroll2", 2, 2, true)}
	c = g.conn("bad-rollover", ap("2001:db8::12", 50212), us6(179), 0x1500_0015, 0x1600_0016,
		aoSigner{mkts: peerRoll, rnext: 1}, aoSigner{mkts: ourRoll, rnext: 1})
	c.session(true, "valid")
	c.a.sig.cur, c.a.sig.rnext = 1, 2
	for range 4 {
		c.send(true, fPSH|fACK, bgpKeepalive, "bad_mac")
	}

	// 15. Sequence numbers that wrap: both ISNs just below 2^32, so the
	// last 5 segments of each direction have SNE 1.
	k = mkt(sha1, "sne", 1, 1, true)
	c = g.conn("sne-wrap", ap("192.0.2.21", 50121), us4(179), 0xffff_ff00, 0xffff_ff80,
		aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1}, aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1})
	c.session(true, "valid")
	for range 8 {
		c.send(true, fPSH|fACK, bgpUpdate, "valid")
		c.send(false, fPSH|fACK, bgpUpdate, "sent:valid")
	}
	if c.a.next>>32 != 1 || c.b.next>>32 != 1 {
		t.Fatalf("sne-wrap: SNEs %d, %d: the sequence numbers did not wrap", c.a.next>>32, c.b.next>>32)
	}
	mixed = g.pkts

	// The capture that starts mid-connection: later segments of
	// connections 1 and 3, whose handshakes it never saw.
	g.pkts = nil
	g.now = g.now.Add(time.Minute)
	for _, c := range []*aoGenConn{sha1v4, sha1v6} {
		c.scen += "-midstream"
		for range 2 {
			c.send(true, fPSH|fACK, bgpKeepalive, "no_handshake")
			c.send(false, fPSH|fACK, bgpKeepalive, "sent:no_handshake")
		}
		c.send(true, fPSH|fACK, bgpUpdate, "no_handshake")
	}
	return mixed, g.pkts
}

// aoFiles are the generated files under testdata.
var aoFiles = []string{"tcpao-mixed.pcap", "tcpao-midstream.pcap", "tcpao.toml"}

// aoFileBytes returns the contents of aoFiles, generated.
func aoFileBytes(t testing.TB) map[string][]byte {
	mixed, mid := generateAO(t)
	return map[string][]byte{
		"tcpao-mixed.pcap":     pcapBytes(mixed),
		"tcpao-midstream.pcap": pcapBytes(mid),
		"tcpao.toml":           []byte(aoConfig),
	}
}

// TestAOCaptures keeps testdata/tcpao-* equal to what the generator makes
// (-update-ao rewrites them).
func TestAOCaptures(t *testing.T) {
	files := aoFileBytes(t)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		path := filepath.Join("testdata", name)
		if *updateAO {
			if err := os.WriteFile(path, files[name], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (generate with: go test ./shadow -run TestAOCaptures -update-ao)", err)
		}
		if !bytes.Equal(got, files[name]) {
			t.Errorf("%s differs from the generator's output: run go test ./shadow -run TestAOCaptures -update-ao", path)
		}
	}
}
