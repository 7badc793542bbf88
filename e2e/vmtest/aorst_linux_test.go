package vmtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/shadow"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Resets and ICMP on TCP-AO sessions, as the kernel's selftests rst and
// icmps-discard/icmps-accept exercise them (RFC 5925 §7.7, §7.8):
//
//   - the RSTs an end sends itself (an abort; the reset a FIN-WAIT-2
//     time-wait socket sends to data that arrives after the close) are
//     signed, accepted by the other kernel, and valid to the checker;
//   - an RST injected into a live session with the exact sequence number,
//     unsigned or with a wrong MAC, is dropped (TCPAORequired, TCPAOBad)
//     and the session lives on; the checker counts it for the peer
//     (missing, bad_mac); the same RST ends a session without TCP-AO (the
//     control that shows the injection is right);
//   - a forged ICMP port unreachable or fragmentation needed quoting the
//     session is ignored and counted (TCPAODroppedIcmps, the socket's
//     dropped_icmp), even on a socket with IP_RECVERR (a host unreachable
//     is not TCP-AO's to ignore, and a synchronized socket without
//     IP_RECVERR only notes it), until accept_icmps is set through tcpsock —
//     read back as set — and the same ICMP then ends that socket's
//     session: what accept-icmps costs.

// pktSniffer follows the TCP segments of one interface (AF_PACKET) and
// runs each through a shadow checker.
type pktSniffer struct {
	fd   int
	chk  *shadow.Checker
	mu   sync.Mutex
	segs []sniffedSeg
	wg   sync.WaitGroup
	stop chan struct{}
}

type sniffedSeg struct {
	src, dst netip.AddrPort
	flags    byte
	seq, ack uint32
	payload  int
	verdict  shadow.Verdict
	outgoing bool
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// startSniffer opens an AF_PACKET socket on ifc in ns.
func startSniffer(t *testing.T, ns, ifc string, chk *shadow.Checker) *pktSniffer {
	t.Helper()
	s := &pktSniffer{fd: -1, chk: chk, stop: make(chan struct{})}
	err := netns.Do(ns, func() error {
		ifi, err := net.InterfaceByName(ifc)
		if err != nil {
			return err
		}
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
		if err != nil {
			return err
		}
		s.fd = fd
		if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}); err != nil {
			return err
		}
		return unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 100000})
	})
	if err != nil {
		if s.fd >= 0 {
			unix.Close(s.fd)
		}
		t.Fatalf("AF_PACKET on %s in %s: %v", ifc, ns, err)
	}
	s.wg.Add(1)
	go s.loop()
	t.Cleanup(s.close)
	return s
}

func (s *pktSniffer) loop() {
	defer s.wg.Done()
	buf := make([]byte, 1<<17)
	var tcp frame.TCP
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		n, _, err := unix.Recvfrom(s.fd, buf, 0)
		if err != nil {
			continue // EAGAIN at the timeout
		}
		if frame.DecodeTCP(frame.LinkEthernet, buf[:n], &tcp) != nil {
			continue
		}
		seg := tcp.Segment
		r := s.chk.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, seg, time.Now())
		hl := int(seg[12]>>4) * 4
		s.mu.Lock()
		s.segs = append(s.segs, sniffedSeg{src: netip.AddrPortFrom(tcp.Src.Unmap(), tcp.SrcPort), dst: netip.AddrPortFrom(tcp.Dst.Unmap(), tcp.DstPort),
			flags: seg[13], seq: binary.BigEndian.Uint32(seg[4:]), ack: binary.BigEndian.Uint32(seg[8:]), payload: len(seg) - hl,
			verdict: r.Verdict, outgoing: r.Outgoing})
		s.mu.Unlock()
	}
}

func (s *pktSniffer) close() {
	select {
	case <-s.stop:
		return
	default:
	}
	close(s.stop)
	s.wg.Wait()
	unix.Close(s.fd)
}

// mark is the number of segments seen so far.
func (s *pktSniffer) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.segs)
}

// since returns the segments seen after mark m that match.
func (s *pktSniffer) since(m int, match func(sniffedSeg) bool) []sniffedSeg {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sniffedSeg
	for _, g := range s.segs[m:] {
		if match(g) {
			out = append(out, g)
		}
	}
	return out
}

// waitSeg waits until a segment after mark m matches.
func (s *pktSniffer) waitSeg(t *testing.T, m int, what string, match func(sniffedSeg) bool) sniffedSeg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []sniffedSeg
	if !netns.WaitFor(ctx, func() bool { got = s.since(m, match); return len(got) > 0 }) {
		t.Fatalf("no %s in the capture", what)
	}
	return got[0]
}

// last returns the last segment from src to dst.
func (s *pktSniffer) last(t *testing.T, src, dst netip.AddrPort) sniffedSeg {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.segs) - 1; i >= 0; i-- {
		if g := s.segs[i]; g.src == src && g.dst == dst {
			return g
		}
	}
	t.Fatalf("no segment %s -> %s captured", src, dst)
	return sniffedSeg{}
}

const (
	tcpFIN = 0x01
	tcpSYN = 0x02
	tcpRST = 0x04
	tcpACK = 0x10
)

// nextSeq is the sequence number after g.
func (g sniffedSeg) nextSeq() uint32 {
	n := uint32(g.payload)
	if g.flags&(tcpSYN|tcpFIN) != 0 {
		n++
	}
	return g.seq + n
}

// csum is the Internet checksum of b, starting from sum.
func csum(sum uint32, b []byte) uint16 {
	for ; len(b) >= 2; b = b[2:] {
		sum += uint32(b[0])<<8 | uint32(b[1])
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// ipv4 is an IPv4 header (20 bytes) of proto around payload, with its
// checksum.
func ipv4(src, dst netip.Addr, proto byte, payload []byte) []byte {
	h := make([]byte, 20, 20+len(payload))
	h[0], h[8], h[9] = 0x45, 64, proto
	binary.BigEndian.PutUint16(h[2:], uint16(20+len(payload)))
	s, d := src.As4(), dst.As4()
	copy(h[12:16], s[:])
	copy(h[16:20], d[:])
	binary.BigEndian.PutUint16(h[10:], csum(0, h))
	return append(h, payload...)
}

// tcpSegment is a TCP header (with options opts, a multiple of 4 bytes)
// from src to dst, checksummed.
func tcpSegment(src, dst netip.AddrPort, seq, ack uint32, flags byte, opts []byte) []byte {
	b := make([]byte, 20+len(opts))
	binary.BigEndian.PutUint16(b[0:], src.Port())
	binary.BigEndian.PutUint16(b[2:], dst.Port())
	binary.BigEndian.PutUint32(b[4:], seq)
	binary.BigEndian.PutUint32(b[8:], ack)
	b[12], b[13] = byte(len(b)/4)<<4, flags
	binary.BigEndian.PutUint16(b[14:], 502)
	copy(b[20:], opts)
	s, d := src.Addr().As4(), dst.Addr().As4()
	pseudo := append(append(append([]byte{}, s[:]...), d[:]...), 0, 6, byte(len(b)>>8), byte(len(b)))
	var sum uint32
	for i := 0; i+1 < len(pseudo); i += 2 {
		sum += uint32(pseudo[i])<<8 | uint32(pseudo[i+1])
	}
	binary.BigEndian.PutUint16(b[16:], csum(sum, b))
	return b
}

// inject sends the IPv4 packet pkt from namespace ns (a raw socket: the
// packet leaves as built, through the route to its destination).
func inject(t *testing.T, ns string, pkt []byte) {
	t.Helper()
	err := netns.Do(ns, func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_RAW)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Sendto(fd, pkt, 0, &unix.SockaddrInet4{Addr: [4]byte(pkt[16:20])})
	})
	if err != nil {
		t.Fatalf("inject from %s: %v", ns, err)
	}
}

// aoSession is one connection of the pair: the client's end and the
// listener's accepted end.
type aoSession struct {
	cli, srv *net.TCPConn
}

func (s aoSession) cliAddr() netip.AddrPort { return s.cli.LocalAddr().(*net.TCPAddr).AddrPort() }
func (s aoSession) srvAddr() netip.AddrPort { return s.srv.LocalAddr().(*net.TCPAddr).AddrPort() }

// connect dials ln from the client namespace with key k (nil: none).
func (p *aoPair) connect(t *testing.T, ln *net.TCPListener, k *aoKey) aoSession {
	t.Helper()
	acc := make(chan *net.TCPConn, 1)
	go func() {
		c, err := ln.AcceptTCP()
		if err != nil {
			close(acc)
			return
		}
		acc <- c
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := p.dial(ctx, ln.Addr().String(), k)
	if err != nil {
		t.Fatalf("dial %s: %v", ln.Addr(), err)
	}
	sc, ok := <-acc
	if !ok {
		c.Close()
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); sc.Close() })
	s := aoSession{cli: c, srv: sc}
	if err := s.roundTrip(); err != nil {
		t.Fatalf("a new session: %v", err)
	}
	return s
}

// roundTrip sends a message each way and reads it.
func (s aoSession) roundTrip() error {
	for _, d := range []struct {
		from, to *net.TCPConn
		msg      string
	}{{s.cli, s.srv, "ping"}, {s.srv, s.cli, "pong"}} {
		_ = d.to.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := d.from.Write([]byte(d.msg)); err != nil {
			return fmt.Errorf("write %q: %w", d.msg, err)
		}
		b := make([]byte, len(d.msg))
		if _, err := io.ReadFull(d.to, b); err != nil {
			return fmt.Errorf("read %q: %w", d.msg, err)
		}
	}
	return nil
}

// readErr waits (up to 5 s) for the error of a read on c.
func readErr(c *net.TCPConn) error {
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.Read(make([]byte, 64))
	return err
}

func sockInfo(t *testing.T, c *net.TCPConn) aoInfo {
	t.Helper()
	var info aoInfo
	if err := rawFD(c, func(fd int) (err error) { info, err = getAOInfo(fd); return err }); err != nil {
		t.Fatal(err)
	}
	return info
}

// waitCounter waits until TcpExt name of ns exceeds before.
func waitCounter(t *testing.T, ns, name string, before uint64) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return netns.WaitFor(ctx, func() bool { return counters(t, ns)[name] > before })
}

// icmpUnreach is an ICMP destination unreachable of code from src,
// quoting the IPv4 header and first 8 bytes of a segment quoted (as the
// router or host that refused it would).
func icmpUnreach(src, dst netip.Addr, code byte, quoted []byte) []byte {
	m := make([]byte, 8, 8+28)
	m[0], m[1] = 3, code
	if code == 4 {
		binary.BigEndian.PutUint16(m[6:], 1280) // the next hop's MTU
	}
	m = append(m, quoted[:28]...)
	binary.BigEndian.PutUint16(m[2:], csum(0, m))
	return ipv4(src, dst, 1, m)
}

func TestTCPAOResetsAndICMP(t *testing.T) {
	requireVM(t)
	p := newAOPair(t)
	secret := []byte("tcp-ao resets and icmp secret")
	srvKey := aoKey{peer: p.cli4, prefix: 32, alg: "hmac(sha1)", sndID: 1, rcvID: 1, secret: secret}
	cliKey := aoKey{peer: p.srv4, prefix: 32, alg: "hmac(sha1)", sndID: 1, rcvID: 1, secret: secret}
	ln := p.listen(t, p.srv4, &srvKey)
	plain := p.listen(t, p.srv4, nil)
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	cfg, err := config.Parse("aorst.toml", fmt.Appendf(nil, `[global]
asn = 65001
router-id = "192.0.2.1"
[[keychains]]
name = "ao"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = %q
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "ao"
`, secret))
	if err != nil {
		t.Fatal(err)
	}
	chk := shadow.New(shadow.PeersOf(peerindex.New(cfg)), shadow.Options{Port: port, IdleAfter: -1})
	sn := startSniffer(t, p.A, "eth0", chk)
	rstFrom := func(a netip.AddrPort) func(sniffedSeg) bool {
		return func(g sniffedSeg) bool { return g.src == a && g.flags&tcpRST != 0 }
	}

	t.Run("abort", func(t *testing.T) {
		// Each end aborts a session (SO_LINGER 0): the other's kernel takes
		// the signed RST, and so does the checker.
		for _, who := range []string{"client", "server"} {
			s := p.connect(t, ln, &cliKey)
			m := sn.mark()
			abort, other, from := s.cli, s.srv, s.cliAddr()
			if who == "server" {
				abort, other, from = s.srv, s.cli, s.srvAddr()
			}
			_ = abort.SetLinger(0)
			abort.Close()
			if err := readErr(other); !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("%s aborted: the other end read %v, want ECONNRESET (the signed RST taken)", who, err)
			}
			g := sn.waitSeg(t, m, who+"'s RST", rstFrom(from))
			if g.verdict != shadow.Valid {
				t.Errorf("%s's abort RST: %s, want valid", who, g.verdict)
			}
			t.Logf("%s aborts: RST seq %d, %s to the checker", who, g.seq, g.verdict)
		}
	})

	t.Run("time-wait", func(t *testing.T) {
		// The client closes; its socket waits in FIN-WAIT-2 as a time-wait
		// socket; the server's data then meets a reset signed with the keys
		// the time-wait socket kept.
		s := p.connect(t, ln, &cliKey)
		from := s.cliAddr()
		s.cli.Close()
		if err := readErr(s.srv); !errors.Is(err, io.EOF) {
			t.Fatalf("server read after the client's close: %v, want EOF", err)
		}
		time.Sleep(200 * time.Millisecond)
		tw := netns.Run(t, "ip", "netns", "exec", p.B, "ss", "-tanH", "state", "fin-wait-2", "dport", "= :"+fmt.Sprint(port))
		t.Logf("client socket: %s", tw)
		m := sn.mark()
		if _, err := s.srv.Write([]byte("late data")); err != nil {
			t.Fatal(err)
		}
		g := sn.waitSeg(t, m, "the time-wait socket's RST", rstFrom(from))
		// Taken, the RST closes the server's CLOSE-WAIT socket (the kernel
		// says EPIPE); dropped, the socket would take more data.
		time.Sleep(100 * time.Millisecond)
		if _, err := s.srv.Write([]byte("more")); !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("server write after the reset: %v, want EPIPE (the time-wait RST taken)", err)
		}
		if g.verdict != shadow.Valid {
			t.Errorf("time-wait RST: %s, want valid", g.verdict)
		}
		t.Logf("time-wait reset: seq %d, %s to the checker", g.seq, g.verdict)
	})

	t.Run("injected-rst", func(t *testing.T) {
		// Control: without TCP-AO the forged RST ends the session.
		ps := p.connect(t, plain, nil)
		time.Sleep(100 * time.Millisecond)
		last := sn.last(t, ps.cliAddr(), ps.srvAddr()).nextSeq()
		inject(t, p.B, ipv4(p.cli4, p.srv4, 6, tcpSegment(ps.cliAddr(), ps.srvAddr(), last, 0, tcpRST, nil)))
		if err := readErr(ps.srv); !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("control: a forged RST with seq %d into a session without TCP-AO: read %v, want ECONNRESET (the forgery is wrong)", last, err)
		}

		s := p.connect(t, ln, &cliKey)
		time.Sleep(100 * time.Millisecond)
		badMAC := append([]byte{29, 16, 1, 1}, []byte("not-the-MAC!")...)
		for _, f := range []struct {
			name, counter string
			opts          []byte
			verdict       shadow.Verdict
		}{
			{"unsigned", "TCPAORequired", nil, shadow.Missing},
			{"wrong MAC", "TCPAOBad", badMAC, shadow.BadMAC},
		} {
			g := sn.last(t, s.cliAddr(), s.srvAddr())
			before := counters(t, p.A)[f.counter]
			m := sn.mark()
			inject(t, p.B, ipv4(p.cli4, p.srv4, 6, tcpSegment(s.cliAddr(), s.srvAddr(), g.nextSeq(), g.ack, tcpRST|tcpACK, f.opts)))
			if !waitCounter(t, p.A, f.counter, before) {
				t.Errorf("%s RST: TcpExt %s stayed %d", f.name, f.counter, before)
			}
			if err := s.roundTrip(); err != nil {
				t.Fatalf("after a forged %s RST: %v (the session ended)", f.name, err)
			}
			r := sn.waitSeg(t, m, "the forged RST", rstFrom(s.cliAddr()))
			if r.verdict != f.verdict {
				t.Errorf("forged %s RST: %s to the checker, want %s", f.name, r.verdict, f.verdict)
			}
			t.Logf("forged %s RST (seq %d): dropped (TcpExt %s +1), session up, %s to the checker", f.name, r.seq, f.counter, r.verdict)
		}
		info := sockInfo(t, s.srv)
		if info.Required == 0 || info.Bad == 0 {
			t.Errorf("the session's TCP_AO_INFO: ao_required %d bad %d, want both counted", info.Required, info.Bad)
		}
		for _, rep := range chk.Reports(time.Time{}) {
			if rep.Address.Unmap() != p.cli4 {
				continue
			}
			t.Logf("checker, peer %s: diagnosis %s, received %+v", rep.Address, rep.Diagnosis, rep.Received)
			if rep.Received.Missing == 0 || rep.Received.BadMAC == 0 {
				t.Errorf("the checker did not count the forged RSTs for the peer: %+v", rep.Received)
			}
		}
	})

	t.Run("icmp", func(t *testing.T) {
		s := p.connect(t, ln, &cliKey)
		time.Sleep(100 * time.Millisecond)
		// What the client would quote of the server's next segment.
		quote := func() []byte {
			g := sn.last(t, s.srvAddr(), s.cliAddr())
			return ipv4(p.srv4, p.cli4, 6, tcpSegment(s.srvAddr(), s.cliAddr(), g.nextSeq(), g.ack, tcpACK, nil))
		}
		forge := func(code byte) { inject(t, p.B, icmpUnreach(p.cli4, p.srv4, code, quote())) }
		dropped := func() uint64 { return counters(t, p.A)["TCPAODroppedIcmps"] }

		// Host unreachable is a soft error to a synchronized socket
		// (no IP_RECVERR); TCP-AO does not govern it.
		before := dropped()
		forge(1)
		time.Sleep(200 * time.Millisecond)
		if after := dropped(); after != before {
			t.Errorf("host unreachable: TcpExt TCPAODroppedIcmps %d -> %d; TCP-AO ignores codes 2-4 only", before, after)
		}
		// Port unreachable and fragmentation needed: ignored and counted.
		for _, code := range []byte{3, 4} {
			before = dropped()
			forge(code)
			if !waitCounter(t, p.A, "TCPAODroppedIcmps", before) {
				t.Errorf("forged destination unreachable code %d: TcpExt TCPAODroppedIcmps stayed %d", code, before)
			}
		}
		if err := s.roundTrip(); err != nil {
			t.Fatalf("after forged ICMPs: %v", err)
		}
		// Even a socket that takes ICMP errors (IP_RECVERR) ignores it.
		if err := rawFD(s.srv, func(fd int) error { return unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_RECVERR, 1) }); err != nil {
			t.Fatal(err)
		}
		before = dropped()
		forge(3)
		if !waitCounter(t, p.A, "TCPAODroppedIcmps", before) {
			t.Errorf("forged port unreachable (IP_RECVERR): TcpExt TCPAODroppedIcmps stayed %d", before)
		}
		if err := s.roundTrip(); err != nil {
			t.Fatalf("after a forged port unreachable on an IP_RECVERR socket: %v (accept_icmps is off)", err)
		}
		if info := sockInfo(t, s.srv); info.DroppedICMP != 3 {
			t.Errorf("the session's TCP_AO_INFO dropped_icmp %d, want 3", info.DroppedICMP)
		}

		// accept_icmps through tcpsock, as a keychain's accept-icmps sets
		// it: read back, and the ICMP is then taken.
		set := tcpsock.AOSet{Prefix: netip.PrefixFrom(p.cli4, 32), Current: -1, RNext: 1, AcceptICMPs: true,
			Keys: []tcpsock.AOKey{{Prefix: netip.PrefixFrom(p.cli4, 32), Alg: tcpsock.AOAlgHMACSHA1, Secret: keys.Secret(secret), SendID: 1, RecvID: 1}}}
		if err := netns.Do(p.A, func() error {
			return (tcpsock.ProcessSockets{}).Scan(s.srvAddr().Port()).SetConnAO(s.srvAddr(), s.cliAddr(), set)
		}); err != nil {
			t.Fatal(err)
		}
		var seen bool
		err := netns.Do(p.A, func() error {
			socks, err := (tcpsock.ProcessSockets{}).Scan(port).ObserveAO()
			defer tcpsock.WipeAO(socks)
			for _, so := range socks {
				if !so.Listening && so.Remote == s.cliAddr() {
					seen = so.HasInfo && so.Info.AcceptICMPs
				}
			}
			return err
		})
		if err != nil || !seen {
			t.Fatalf("accept_icmps not read back from the session (%v)", err)
		}
		before = dropped()
		forge(3)
		if err := readErr(s.srv); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("with accept_icmps: the forged port unreachable gave %v, want ECONNREFUSED (taken)", err)
		}
		if after := dropped(); after != before {
			t.Errorf("with accept_icmps: TcpExt TCPAODroppedIcmps %d -> %d, want unchanged", before, after)
		}
		t.Logf("port unreachable: ignored twice and fragmentation needed once (dropped_icmp 3), taken with accept_icmps (ECONNREFUSED on an IP_RECVERR socket)")
	})
}
