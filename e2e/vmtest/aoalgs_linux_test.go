package vmtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/shadow"
	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpsock"
)

// The kernel is the oracle for the TCP-AO algorithms RFC 9235 has no
// vectors for (HMAC-SHA-224 .. -512) and for MAC lengths other than 12:
// kernel-made sessions of every algorithm and several MAC lengths are
// captured and every segment, both ways, must verify with package tcpao
// through the shadow checker (live Check, and ReadCapture as verify-pcap
// reads files); a MAC length that differs between the ends is refused by
// the kernel (TCPAOBad) and diagnosed mac-length-mismatch.

// aoAlgPort is the listener's port in TestTCPAOAlgorithmsKernel.
const aoAlgPort = 1179

// addAOKeyMACLen is addAOKey with TCP_AO_ADD_KEY's maclen (byte 205).
func addAOKeyMACLen(fd int, k aoKey, macLen uint8) error {
	b := k.encode()
	b[205] = macLen
	if err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, tcpAOAddKey, string(b)); err != nil {
		return fmt.Errorf("setsockopt TCP_AO_ADD_KEY %s maclen %d %s/%d: %w", k.alg, macLen, k.peer, k.prefix, err)
	}
	return nil
}

// TestTCPAOMACLengthLimits: the kernel takes every algorithm of
// tcpsock/config, with the MAC lengths config allows (4..16), and refuses
// 17 (EMSGSIZE: the option must fit a SYN) and more than the digest; so
// config's limits are the kernel's. hmac(sha384) and hmac(sha512) need
// CONFIG_CRYPTO_SHA512 (ENOENT without).
func TestTCPAOMACLengthLimits(t *testing.T) {
	requireVM(t)
	for _, a := range tcpao.Algorithms {
		for _, c := range []struct {
			n  uint8
			ok bool
		}{{4, true}, {12, true}, {16, true}, {17, false}, {20, false}} {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			k := aoKey{peer: netip.MustParseAddr("198.51.100.1"), prefix: 32, alg: a.LinuxName(), sndID: 1, rcvID: 1, secret: []byte("maclen-limits")}
			err = addAOKeyMACLen(fd, k, c.n)
			unix.Close(fd)
			if (err == nil) != c.ok {
				t.Errorf("%s maclen %d: %v, want ok %v", a.LinuxName(), c.n, err, c.ok)
			}
			mk := tcpsock.AOKey{Prefix: netip.MustParsePrefix("198.51.100.1/32"), Alg: a.LinuxName(), Secret: keys.Secret("x"), MACLen: c.n}
			if (mk.Validate() == nil) != c.ok {
				t.Errorf("%s maclen %d: tcpsock says %v, the kernel %v", a.LinuxName(), c.n, mk.Validate(), err)
			}
			if !c.ok {
				t.Logf("%s maclen %d: %v", a.LinuxName(), c.n, err)
			}
		}
	}
}

// aoAlgCase is one client of TestTCPAOAlgorithmsKernel: its own address,
// the algorithm and the MAC lengths of the server's key (ours) and its
// own.
type aoAlgCase struct {
	alg                tcpao.Algorithm
	srvLen, cliLen     int
	cli                netip.Addr
	secret             string
	conns              int // connections made (a good case: 1)
	recvSegs, sentSegs int
}

func (c *aoAlgCase) good() bool { return c.srvLen == c.cliLen }

func (c *aoAlgCase) String() string {
	return fmt.Sprintf("%s server mac %d client mac %d (%s)", c.alg.LinuxName(), c.srvLen, c.cliLen, c.cli)
}

// TestTCPAOAlgorithmsKernel: for every algorithm and MAC lengths 4, 12 and
// 16 (AES-128-CMAC, SHA-1: also their -96 form, 12), a kernel TCP-AO
// session (IPv4; and IPv6 for two) carries 30 kB each way; the capture's
// every segment of it verifies with package tcpao in the shadow checker,
// both ways, with the key config makes of algorithm and mac-length; the
// kernel's own counters agree (good > 0, bad 0). A client whose MAC
// length differs from the server's key (16 against 12, 12 against 16) is
// refused by the kernel (TCPAOBad grows, no connection) and its SYNs are
// mac-length-mismatch to the checker and to verify-pcap's ReadCapture.
func TestTCPAOAlgorithmsKernel(t *testing.T) {
	requireVM(t)
	var cases []*aoAlgCase
	for _, a := range tcpao.Algorithms {
		for _, n := range []int{4, 12, 16} {
			cases = append(cases, &aoAlgCase{alg: a, srvLen: n, cliLen: n})
		}
	}
	cases = append(cases,
		&aoAlgCase{alg: tcpao.HMACSHA256, srvLen: 12, cliLen: 16},
		&aoAlgCase{alg: tcpao.HMACSHA256, srvLen: 16, cliLen: 12},
		&aoAlgCase{alg: tcpao.AESCMAC, srvLen: 12, cliLen: 4},
		&aoAlgCase{alg: tcpao.HMACSHA512, srvLen: 16, cliLen: 12})
	var cliAddrs []string
	for i, c := range cases {
		c.cli = netip.AddrFrom4([4]byte{192, 0, 2, byte(10 + i)})
		c.secret = fmt.Sprintf("alg-%d-secret-%s", i, strings.Repeat("x", i%17))
		cliAddrs = append(cliAddrs, c.cli.String()+"/24")
	}
	v6 := []*aoAlgCase{{alg: tcpao.HMACSHA384, srvLen: 16, cliLen: 16}, {alg: tcpao.AESCMAC, srvLen: 4, cliLen: 4}}
	for i, c := range v6 {
		c.cli = netip.MustParseAddr(fmt.Sprintf("2001:db8:a1::%x", 0x10+i))
		c.secret = fmt.Sprintf("alg-v6-%d-secret", i)
		cliAddrs = append(cliAddrs, c.cli.String()+"/64")
		cases = append(cases, c)
	}
	srv4, srv6 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8:a1::1")
	p := netns.NewPair(t, "aoalg",
		netns.End{NS: "srv", If: "eth0", Addrs: []string{"192.0.2.1/24", "2001:db8:a1::1/64"}},
		netns.End{NS: "cli", If: "eth0", Addrs: cliAddrs})
	dir := t.TempDir()
	capt := startCapture(t, p.Topology, p.A, "eth0", dir, fmt.Sprintf("tcp port %d", aoAlgPort))

	// Two listeners (IPv4, IPv6) holding every client's MKT.
	listen := func(addr netip.Addr, v6 bool) *net.TCPListener {
		var ln net.Listener
		err := netns.Do(p.A, func() (err error) {
			lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
				var kerr error
				err := rc.Control(func(fd uintptr) {
					for _, c := range cases {
						if c.cli.Is6() != v6 {
							continue
						}
						k := aoKey{peer: c.cli, prefix: uint8(c.cli.BitLen()), alg: c.alg.LinuxName(), sndID: 1, rcvID: 1, secret: []byte(c.secret)}
						if kerr = addAOKeyMACLen(int(fd), k, uint8(c.srvLen)); kerr != nil {
							return
						}
					}
				})
				if err != nil {
					return err
				}
				return kerr
			}}
			ln, err = lc.Listen(context.Background(), "tcp", netip.AddrPortFrom(addr, aoAlgPort).String())
			return err
		})
		if err != nil {
			t.Fatalf("listen %s: %v", addr, err)
		}
		t.Cleanup(func() { ln.Close() })
		return ln.(*net.TCPListener)
	}
	lns := []*net.TCPListener{listen(srv4, false), listen(srv6, true)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	infos := map[netip.Addr]aoInfo{}
	for _, ln := range lns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := ln.AcceptTCP()
				if err != nil {
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer c.Close()
					_, _ = io.Copy(c, c)
					var info aoInfo
					_ = rawFD(c, func(fd int) (err error) { info, err = getAOInfo(fd); return err })
					mu.Lock()
					infos[c.RemoteAddr().(*net.TCPAddr).AddrPort().Addr().Unmap()] = info
					mu.Unlock()
					_ = c.CloseWrite()
				}()
			}
		}()
	}
	before := counters(t, p.A)
	msg := bytes.Repeat([]byte("TCP-AO algorithm check\n"), 30000/23)
	for _, c := range cases {
		srv := srv4
		if c.cli.Is6() {
			srv = srv6
		}
		k := aoKey{peer: srv, prefix: uint8(srv.BitLen()), alg: c.alg.LinuxName(), sndID: 1, rcvID: 1, secret: []byte(c.secret)}
		timeout := 20 * time.Second
		if !c.good() {
			timeout = 4500 * time.Millisecond // SYNs at 0, 1 and 3 s: the checker's hysteresis is 3
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		var conn net.Conn
		err := netns.Do(p.B, func() (err error) {
			d := net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(c.cli, 0)),
				Control: func(_, _ string, rc syscall.RawConn) error {
					var kerr error
					if err := rc.Control(func(fd uintptr) { kerr = addAOKeyMACLen(int(fd), k, uint8(c.cliLen)) }); err != nil {
						return err
					}
					return kerr
				}}
			conn, err = d.DialContext(ctx, "tcp", netip.AddrPortFrom(srv, aoAlgPort).String())
			return err
		})
		cancel()
		if !c.good() {
			if err == nil {
				conn.Close()
				t.Errorf("%s: connected, want the kernel to refuse the MAC length", c)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: dial: %v", c, err)
		}
		tc := conn.(*net.TCPConn)
		_ = tc.SetDeadline(time.Now().Add(30 * time.Second))
		go func() { _, _ = tc.Write(msg); _ = tc.CloseWrite() }()
		got, err := io.ReadAll(tc)
		if err != nil || !bytes.Equal(got, msg) {
			t.Errorf("%s: echo: read %d of %d bytes, err %v", c, len(got), len(msg), err)
		}
		var info aoInfo
		if err := rawFD(tc, func(fd int) (err error) { info, err = getAOInfo(fd); return err }); err != nil {
			t.Errorf("%s: %v", c, err)
		} else if info.Good == 0 || info.Bad != 0 {
			t.Errorf("%s: the client kernel counts good %d bad %d", c, info.Good, info.Bad)
		}
		tc.Close()
	}
	for _, ln := range lns {
		ln.Close()
	}
	wg.Wait()
	after := counters(t, p.A)
	bad := 0
	for _, c := range cases {
		if !c.good() {
			bad++
			continue
		}
		if info, ok := infos[c.cli]; !ok || info.Good == 0 || info.Bad != 0 {
			t.Errorf("%s: the server kernel's connection counts %+v (seen %v)", c, info, ok)
		}
	}
	t.Logf("server namespace TcpExt: TCPAOGood +%d, TCPAOBad +%d", after["TCPAOGood"]-before["TCPAOGood"], after["TCPAOBad"]-before["TCPAOBad"])
	if after["TCPAOBad"]-before["TCPAOBad"] < uint64(bad) {
		t.Errorf("TcpExt TCPAOBad grew by %d for %d clients with another MAC length", after["TCPAOBad"]-before["TCPAOBad"], bad)
	}
	time.Sleep(500 * time.Millisecond) // the last segments reach the capture
	capt.stop()

	// The checker's config: one peer per client, our key as config makes it.
	var b strings.Builder
	b.WriteString("[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n")
	for i, c := range cases {
		fmt.Fprintf(&b, "[[keychains]]\nname = \"k%d\"\ntype = \"tcp-ao\"\n  [[keychains.keys]]\n  id = 1\n  algorithm = %q\n  mac-length = %d\n  secret = %q\n",
			i, strings.TrimSuffix(c.alg.String(), "-96"), c.srvLen, c.secret)
	}
	for i, c := range cases {
		fmt.Fprintf(&b, "[[peers]]\naddress = %q\nasn = %d\nkeychain = \"k%d\"\n", c.cli, 65100+i, i)
	}
	cfg, err := config.Parse("aoalgs.toml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	byAddr := map[netip.Addr]*aoAlgCase{}
	for _, c := range cases {
		byAddr[c.cli] = c
	}
	chk := shadow.New(shadow.PeersOf(peerindex.New(cfg)), shadow.Options{Port: aoAlgPort, IdleAfter: -1})
	n := 0
	err = capfile.EachFile(capt.file, func(pk capfile.Packet) error {
		var f frame.TCP
		if frame.DecodeTCP(pk.LinkType, pk.Data, &f) != nil {
			return nil
		}
		n++
		r := chk.Check(f.Src, f.Dst, f.SrcPort, f.DstPort, f.Segment, pk.Time)
		peer := f.Src.Unmap()
		if r.Outgoing {
			peer = f.Dst.Unmap()
		}
		c := byAddr[peer]
		if c == nil {
			return fmt.Errorf("a segment of %s, no client", peer)
		}
		switch {
		case c.good() && r.Verdict != shadow.Valid:
			t.Errorf("%s: segment %v -> %v flags %#x seq %d: %s, want valid", c, f.Src, f.Dst, f.Segment[13], binary.BigEndian.Uint32(f.Segment[4:]), r.Verdict)
		case !c.good() && r.Outgoing:
			t.Errorf("%s: the server answered", c)
		case !c.good() && (r.Verdict != shadow.BadMAC || !r.MACLenMismatch):
			t.Errorf("%s: segment %s (mac-length mismatch %v), want bad_mac of another MAC length", c, r.Verdict, r.MACLenMismatch)
		}
		if r.Outgoing {
			c.sentSegs++
		} else {
			c.recvSegs++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	off := shadow.New(shadow.PeersOf(peerindex.New(cfg)), shadow.Options{Port: aoAlgPort, IdleAfter: -1})
	fh, err := os.Open(capt.file)
	if err != nil {
		t.Fatal(err)
	}
	_, err = shadow.ReadCapture(fh, off, nil)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	for how, reps := range map[string][]shadow.PeerReport{"live": chk.Reports(time.Time{}), "verify-pcap": off.Reports(time.Time{})} {
		for _, r := range reps {
			c := byAddr[r.Address.Unmap()]
			want := shadow.DiagOK
			if !c.good() {
				want = shadow.DiagMACLenMismatch
			}
			if r.Diagnosis != want {
				t.Errorf("%s: %s: diagnosis %s, want %s (%+v)", how, c, r.Diagnosis, want, r.Received)
			}
			if c.good() && (r.Received.Valid < 10 || r.Sent.Valid < 10 || r.Received.BadMAC != 0 || r.Sent.Invalid != 0) {
				t.Errorf("%s: %s: received %+v sent %+v", how, c, r.Received, r.Sent)
			}
		}
	}
	for _, c := range cases {
		t.Logf("%s: %d segments received, %d sent, all %s", c, c.recvSegs, c.sentSegs, map[bool]string{true: "valid", false: "mac-length-mismatch"}[c.good()])
		if c.recvSegs == 0 {
			t.Errorf("%s: no segments in the capture", c)
		}
	}
	t.Logf("%d segments checked", n)
}
