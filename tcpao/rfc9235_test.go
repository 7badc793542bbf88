package tcpao

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
)

// rfcTCPChecksumErrata: the TCP checksums the 16 IPv4 packets carry do not
// match their bytes (their IPv4 header checksums and every IPv6 packet's
// TCP checksum do). The right values are below, as this test computes them
// (and scapy agrees). RFC 9235 has 16 verified errata (EIDs 7032-7047): one
// per IPv4 packet, presumably these; their text could not be read here.
// The checksum is not covered by the MAC (zeroed in the message), so the
// MACs are right either way, which the test checks too.
var rfcTCPChecksumErrata = map[string][2]uint16{ // section: {as printed, right}
	"4.1.1": {0xcac4, 0xd45e}, "4.1.2": {0x3776, 0x86cb}, "4.1.3": {0xa162, 0x8cde}, "4.1.4": {0x400c, 0xa43c},
	"4.2.1": {0x541f, 0xc2bf}, "4.2.2": {0x388e, 0xf260}, "4.2.3": {0x6c45, 0xbfb0}, "4.2.4": {0x46b6, 0x458c},
	"5.1.1": {0x5a0f, 0x4641}, "5.1.2": {0xf3f2, 0xe544}, "5.1.3": {0x9505, 0xedf3}, "5.1.4": {0xe7db, 0x0cef},
	"5.2.1": {0x70bf, 0x2b31}, "5.2.2": {0xe445, 0x3ab4}, "5.2.3": {0x8851, 0xf2ec}, "5.2.4": {0x0449, 0x4be9},
}

// rfcConnections returns the client's and the server's view of a group's
// connection (ports from the client's SYN).
func rfcConnections(t testing.TB, g *rfcGroup) (client, server Connection) {
	t.Helper()
	syn, err := ipSegment(hexBytes(t, g.vectors[0].packet))
	if err != nil {
		t.Fatalf("%s: %v", g.vectors[0].section, err)
	}
	c := netip.AddrPortFrom(syn.Src, binary.BigEndian.Uint16(syn.TCP[0:2]))
	s := netip.AddrPortFrom(syn.Dst, binary.BigEndian.Uint16(syn.TCP[2:4]))
	return Connection{Local: c, Remote: s, LocalISN: g.clientISN, RemoteISN: g.serverISN},
		Connection{Local: s, Remote: c, LocalISN: g.serverISN, RemoteISN: g.clientISN}
}

func rfcMasterKeys(g *rfcGroup) (client, server MasterKey) {
	client = MasterKey{Alg: g.alg, Secret: []byte(rfcMasterKey), SendID: rfcClientID, RecvID: rfcServerID, IncludeOptions: g.includeOptions}
	server = client
	server.SendID, server.RecvID = rfcServerID, rfcClientID
	return client, server
}

// TestRFC9235TrafficKeys derives the traffic keys of every group from the
// connection parameters: the three distinct keys the RFC gives, seen from
// both ends (the server's Receive_SYN key is the client's Send_SYN key,
// its Send_other the client's Receive_other and so on).
func TestRFC9235TrafficKeys(t *testing.T) {
	for i := range rfc9235 {
		g := &rfc9235[i]
		t.Run(g.section, func(t *testing.T) {
			cc, sc := rfcConnections(t, g)
			for _, c := range []struct {
				name string
				conn Connection
				d    Direction
				syn  bool
				want string
			}{
				{"client Send_SYN", cc, Send, true, g.sendSYN},
				{"client Send_other", cc, Send, false, g.sendOther},
				{"client Receive_other", cc, Receive, false, g.recvOther},
				{"server Receive_SYN", sc, Receive, true, g.sendSYN},
				{"server Send_other", sc, Send, false, g.recvOther},
				{"server Receive_other", sc, Receive, false, g.sendOther},
			} {
				got, err := DeriveTrafficKey(g.alg, []byte(rfcMasterKey), c.conn.Context(c.d, c.syn))
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if !bytes.Equal(got, hexBytes(t, c.want)) {
					// Test vectors' keys are public, but keys are never printed.
					t.Errorf("%s %s: the derived %d-byte traffic key differs from the RFC's", g.section, c.name, len(got))
				}
			}
		})
	}
}

// TestRFC9235Vectors checks every segment of RFC 9235 sections 4-7 from
// both ends: the sender verifies it as sent, the receiver as received, with
// Keys chosen by flags (so the SYN-ACK with the "other" keys), the KeyID
// checked, and the MAC equal to the one the packet carries.
func TestRFC9235Vectors(t *testing.T) {
	n := 0
	for i := range rfc9235 {
		g := &rfc9235[i]
		cc, sc := rfcConnections(t, g)
		cmk, smk := rfcMasterKeys(g)
		ck, err := cmk.Keys(cc)
		if err != nil {
			t.Fatal(err)
		}
		sk, err := smk.Keys(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range g.vectors {
			t.Run(v.section, func(t *testing.T) {
				pkt := hexBytes(t, v.packet)
				seg, err := ipSegment(pkt)
				if err != nil {
					t.Fatal(err)
				}
				checkTranscription(t, g, v, pkt, seg)
				fromClient := v.sender == "client"
				clientDir, serverDir := Send, Receive
				if !fromClient {
					clientDir, serverDir = Receive, Send
				}
				opts, err := SegmentOptions(seg.TCP)
				if err != nil || !opts.HasAO || opts.HasMD5 {
					t.Fatalf("options: %+v, %v", opts, err)
				}
				wantID, wantNext := uint8(rfcClientID), uint8(rfcServerID)
				if !fromClient {
					wantID, wantNext = rfcServerID, rfcClientID
				}
				if opts.AO.KeyID != wantID || opts.AO.RNextKeyID != wantNext || len(opts.AO.MAC) != MACLen {
					t.Fatalf("option KeyID %d RNextKeyID %d, %d-byte MAC; want %d, %d, 12", opts.AO.KeyID, opts.AO.RNextKeyID, len(opts.AO.MAC), wantID, wantNext)
				}
				carried := bytes.Clone(opts.AO.MAC)
				for _, end := range []struct {
					name string
					keys *Keys
					d    Direction
				}{{"client", ck, clientDir}, {"server", sk, serverDir}} {
					if err := end.keys.Verify(end.d, 0, seg); err != nil {
						t.Errorf("%s: %v", end.name, err)
					}
					mac, err := end.keys.Select(end.d, seg.TCP[13]).MAC(nil, 0, seg)
					if err != nil || !bytes.Equal(mac, carried) {
						t.Errorf("%s: MAC %x, %v; the packet carries %x", end.name, mac, err, carried)
					}
				}
				// The wrong SNE, the other options mode, and (for the
				// SYN-ACK) the Receive_SYN key with ISN 0 all fail.
				if err := ck.Verify(clientDir, 1, seg); !errors.Is(err, ErrBadMAC) {
					t.Errorf("SNE 1: %v, want ErrBadMAC", err)
				}
				other := cmk
				other.IncludeOptions = !other.IncludeOptions
				ok, err := mustKeys(t, other, cc).Select(clientDir, seg.TCP[13]).Verify(0, seg)
				if ok || err != nil {
					t.Errorf("options %s: Verify = %v, %v; want false", optionsWord(other.IncludeOptions), ok, err)
				}
				if flags := seg.TCP[13]; flags&(flagSYN|flagACK) == flagSYN|flagACK {
					if ok, _ := ck.RecvSYN.Verify(0, seg); ok {
						t.Error("SYN-ACK verifies with the Receive_SYN key (server ISN, 0)")
					}
				}
				// The checksum is not covered: fixing the IPv4 ones changes
				// nothing.
				fixed := bytes.Clone(seg.TCP)
				binary.BigEndian.PutUint16(fixed[16:18], tcpChecksum(seg))
				if err := ck.Verify(clientDir, 0, Segment{Src: seg.Src, Dst: seg.Dst, TCP: fixed}); err != nil {
					t.Errorf("with the right checksum: %v", err)
				}
				n++
			})
		}
	}
	if n != 32 {
		t.Fatalf("%d vectors checked, want 32", n)
	}
}

func mustKeys(t testing.TB, mk MasterKey, c Connection) *Keys {
	t.Helper()
	k, err := mk.Keys(c)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// checkTranscription checks that a packet is what the RFC describes:
// lengths, IPv4 header checksum, TCP checksum (or the erratum's value),
// sequence and acknowledgment numbers against the ISNs.
func checkTranscription(t *testing.T, g *rfcGroup, v rfcVector, pkt []byte, seg Segment) {
	t.Helper()
	if (pkt[0]>>4 == 6) != g.ipv6 {
		t.Fatalf("IP version %d in group %s", pkt[0]>>4, g.section)
	}
	printed := binary.BigEndian.Uint16(seg.TCP[16:18])
	right := tcpChecksum(seg)
	if g.ipv6 {
		if printed != right {
			t.Errorf("TCP checksum %04x, want %04x", printed, right)
		}
	} else {
		if !ipv4HeaderOK(pkt) {
			t.Error("IPv4 header checksum is wrong")
		}
		e, ok := rfcTCPChecksumErrata[v.section]
		if !ok || e[0] != printed || e[1] != right {
			t.Errorf("TCP checksum %04x (right: %04x), erratum table %04x", printed, right, e)
		}
	}
	seq, ack := binary.BigEndian.Uint32(seg.TCP[4:8]), binary.BigEndian.Uint32(seg.TCP[8:12])
	flags := seg.TCP[13]
	isn, otherISN := g.clientISN, g.serverISN
	if v.sender == "server" {
		isn, otherISN = g.serverISN, g.clientISN
	}
	switch {
	case flags&(flagSYN|flagACK) == flagSYN:
		if seq != isn || ack != 0 {
			t.Errorf("SYN seq %#x ack %#x, ISN %#x", seq, ack, isn)
		}
	case flags&flagSYN != 0:
		if seq != isn || ack != otherISN+1 {
			t.Errorf("SYN-ACK seq %#x ack %#x, ISNs %#x %#x", seq, ack, isn, otherISN)
		}
	default:
		if seq != isn+1 {
			t.Errorf("seq %#x, ISN %#x", seq, isn)
		}
	}
}
