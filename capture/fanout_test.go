package capture

import (
	"math/rand/v2"
	"testing"
)

// fanoutOf runs the fanout program on an IP packet (network header at 0).
func fanoutOf(t *testing.T, prog cbpf, pkt []byte) uint32 {
	t.Helper()
	v, err := prog.runNet(pkt, arphrdNone, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v > 0xff {
		t.Fatalf("fanout hash %#x is more than 8 bits", v)
	}
	return v
}

// addrPacket is a TCP/IP packet from src to dst (4 or 16 bytes each).
func addrPacket(src, dst []byte, sport, dport uint16) []byte {
	seg := tcpSeg(sport, dport, 19)
	if len(src) == 4 {
		p := ip4(6, 0, 0, seg)
		copy(p[12:16], src)
		copy(p[16:20], dst)
		return p
	}
	p := ip6(nil, 6, seg)
	copy(p[8:24], src)
	copy(p[24:40], dst)
	return p
}

// TestFanoutHash checks the properties the shadow checkers rely on: both
// directions of an address pair, whatever the ports, go to the same ring;
// every bit of both addresses moves the hash (so pairs spread over the
// rings); frames that are not IP go to ring 0 without failing.
func TestFanoutHash(t *testing.T) {
	prog := cbpf{buildFanout()}
	if err := prog.verify(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{4, 16} {
		counts := [4]int{}
		for range 2000 {
			src, dst := make([]byte, size), make([]byte, size)
			for i := range src {
				src[i], dst[i] = byte(rng.Uint32()), byte(rng.Uint32())
			}
			h := fanoutOf(t, prog, addrPacket(src, dst, 179, uint16(rng.Uint32())))
			if back := fanoutOf(t, prog, addrPacket(dst, src, uint16(rng.Uint32()), 179)); back != h {
				t.Fatalf("%d-byte addresses %x, %x: hash %d one way, %d the other", size, src, dst, h, back)
			}
			counts[h%4]++
			// One flipped bit anywhere in either address changes the
			// hash: no address word is left out.
			bit := rng.IntN(2 * size * 8)
			flipped := addrPacket(src, dst, 179, 1)
			off := 12
			if size == 16 {
				off = 8
			}
			flipped[off+bit/8] ^= 1 << (bit % 8)
			if fanoutOf(t, prog, flipped) == h {
				t.Fatalf("%d-byte addresses %x, %x: flipping address bit %d leaves the hash at %d", size, src, dst, bit, h)
			}
		}
		for r, n := range counts {
			if n < 2000/4*8/10 {
				t.Errorf("%d-byte addresses: ring %d of 4 got %d of 2000 pairs: %v", size, r, n, counts)
			}
		}
	}
	arp := make([]byte, 28)
	arp[1] = 1 // hardware type Ethernet: "version" 0
	if v := fanoutOf(t, prog, arp); v != 0 {
		t.Errorf("ARP packet: ring %d, want 0", v)
	}
	short := addrPacket(make([]byte, 16), make([]byte, 16), 179, 1)[:30]
	if v := fanoutOf(t, prog, short); v != 0 {
		t.Errorf("truncated IPv6 header: ring %d, want 0", v)
	}
}
