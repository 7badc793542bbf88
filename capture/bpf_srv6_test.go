package capture

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
)

// TestFilterSRv6: with Options.SRv6 the filter also accepts IPv6 packets
// with a Segment Routing Header (whatever follows it), and only those
// besides BGP; without it, nothing changes.
func TestFilterSRv6(t *testing.T) {
	rt2 := func(pkt []byte) []byte { // turn the routing header at 40 into type 2
		pkt[42] = 2
		return pkt
	}
	cases := []struct {
		name       string
		pkt        []byte
		plain, sr6 bool
	}{
		{"srh encap v6", ip6([]byte{43}, 41, ip6(nil, 58, make([]byte, 16))), false, true},
		{"srh encap v4", ip6([]byte{43}, 4, ip4(1, 0, 0, make([]byte, 16))), false, true},
		{"srh inline udp", ip6([]byte{43}, 17, udpDgram(40000, 9)), false, true},
		{"hbh dst srh icmp", ip6([]byte{0, 60, 43}, 58, make([]byte, 16)), false, true},
		{"srh bgp", ip6([]byte{43}, 6, tcpSeg(40000, 179, 10)), true, true},
		{"rh type 2 udp", rt2(ip6([]byte{43}, 17, udpDgram(40000, 9))), false, false},
		{"v6 udp", ip6(nil, 17, udpDgram(40000, 9)), false, false},
		{"v6 fragment", ip6([]byte{44}, 6, tcpSeg(40000, 179, 10)), false, false},
		{"v4 udp", ip4(17, 0, 0, udpDgram(40000, 9)), false, false},
		{"v6 bgp", ip6(nil, 6, tcpSeg(40000, 179, 10)), true, true},
		{"v6 8080", ip6(nil, 6, tcpSeg(40000, 8080, 10)), false, false},
	}
	for _, fr := range []framing{framingAny, framingEthernet, framingRaw} {
		plain, sr6 := cbpf{buildFilterSRv6(179, fr, false)}, cbpf{buildFilterSRv6(179, fr, true)}
		for _, p := range []cbpf{plain, sr6} {
			if err := p.verify(); err != nil {
				t.Fatalf("framing %d: %v", fr, err)
			}
		}
		if len(plain.prog) != len(cbpf{buildFilter(179, fr)}.prog) {
			t.Fatalf("framing %d: buildFilterSRv6(false) differs from buildFilter", fr)
		}
		for _, c := range cases {
			et := uint16(0x86dd)
			if c.pkt[0]>>4 == 4 {
				et = 0x0800
			}
			views := map[framing][]struct {
				data   []byte
				hatype uint16
			}{
				framingAny:      {{ether(c.pkt, et), arphrdEther}, {c.pkt, arphrdNone}, {ether(c.pkt, et, 0x8100), arphrdEther}},
				framingEthernet: {{ether(c.pkt, et), arphrdEther}},
				framingRaw:      {{c.pkt, arphrdNone}},
			}[fr]
			for _, v := range views {
				for _, w := range []struct {
					p    cbpf
					what string
					want bool
				}{{plain, "plain", c.plain}, {sr6, "SRv6", c.sr6}} {
					n, err := w.p.run(v.data, v.hatype)
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if got := n != 0; got != w.want {
						t.Errorf("framing %d, %s (hatype %d, %s filter): accept=%v, want %v", fr, c.name, v.hatype, w.what, got, w.want)
					}
				}
			}
		}
	}
}

// TestFilterSRv6RealFrames: every frame of the kernel-made SRv6 captures
// with an SRH passes the SRv6 filter.
func TestFilterSRv6RealFrames(t *testing.T) {
	files := []string{"../frame/testdata/srv6.pcap", "../srv6policy/testdata/kernel_hmac.pcap"}
	fr := cbpf{buildFilterSRv6(179, framingAny, true)}
	n := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := capfile.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; ; i++ {
			pkt, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var tcp frame.TCP
			derr := frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp)
			if tcp.SRH == nil || (derr != nil && !errors.Is(derr, frame.ErrNotTCP)) {
				continue
			}
			hatype := uint16(arphrdEther)
			if pkt.LinkType == frame.LinkRaw {
				hatype = arphrdNone
			}
			if pkt.LinkType != frame.LinkEthernet && pkt.LinkType != frame.LinkRaw {
				continue // cooked captures: no socket sees those framings
			}
			if v, err := fr.run(pkt.Data, hatype); err != nil || v == 0 {
				t.Errorf("%s #%d: SRv6 frame rejected (%v)", filepath.Base(name), i, err)
			}
			n++
		}
		f.Close()
	}
	if n < 10 {
		t.Fatalf("only %d SRv6 frames checked", n)
	}
	t.Logf("%d SRv6 frames accepted", n)
}
