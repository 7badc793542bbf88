package vmtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
)

// The TCP-AO socket API (include/uapi/linux/tcp.h, Linux >= 6.7).
const (
	tcpAOAddKey  = 38 // TCP_AO_ADD_KEY: struct tcp_ao_add
	tcpAOInfo    = 40 // TCP_AO_INFO: struct tcp_ao_info_opt
	tcpAOAddLen  = 288
	tcpAOInfoLen = 48
)

// aoKey is one MKT (RFC 5925 master key tuple) as struct tcp_ao_add takes it.
type aoKey struct {
	peer   netip.Addr // the peer's address (port 0)
	prefix uint8      // prefix length of peer
	alg    string     // "hmac(sha1)", "cmac(aes128)", ...
	sndID  uint8
	rcvID  uint8
	secret []byte // 1..80 bytes
}

// encode lays k out as struct tcp_ao_add (288 bytes, aligned 8):
// sockaddr_storage addr (0), char alg_name[64] (128), s32 ifindex (192),
// u32 set_current:1 set_rnext:1 (196), u16 reserved2 (200), u8 prefix
// (202), sndid (203), rcvid (204), maclen (205; 0 = 12), keyflags (206),
// keylen (207), u8 key[80] (208).
func (k aoKey) encode() []byte {
	b := make([]byte, tcpAOAddLen)
	if k.peer.Is4() {
		binary.NativeEndian.PutUint16(b[0:], unix.AF_INET)
		a := k.peer.As4()
		copy(b[4:8], a[:]) // sockaddr_in: family, port, addr
	} else {
		binary.NativeEndian.PutUint16(b[0:], unix.AF_INET6)
		a := k.peer.As16()
		copy(b[8:24], a[:]) // sockaddr_in6: family, port, flowinfo, addr
	}
	copy(b[128:128+63], k.alg)
	b[202] = k.prefix
	b[203] = k.sndID
	b[204] = k.rcvID
	b[207] = byte(len(k.secret))
	copy(b[208:], k.secret)
	return b
}

func addAOKey(fd int, k aoKey) error {
	if err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, tcpAOAddKey, string(k.encode())); err != nil {
		return fmt.Errorf("setsockopt TCP_AO_ADD_KEY %s %s/%d: %w", k.alg, k.peer, k.prefix, err)
	}
	return nil
}

// aoInfo is the getsockopt(TCP_AO_INFO) answer (struct tcp_ao_info_opt:
// u32 flags, u16 reserved2, u8 current_key, rnext, then five u64 counters).
type aoInfo struct {
	AORequired                       bool
	CurrentKey, RNextKey             uint8
	Good, Bad, KeyNotFound, Required uint64
	DroppedICMP                      uint64
	len                              uint32
}

func getAOInfo(fd int) (aoInfo, error) {
	b := make([]byte, tcpAOInfoLen)
	l := uint32(len(b))
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, tcpAOInfo,
		uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&l)), 0)
	if e != 0 {
		return aoInfo{}, fmt.Errorf("getsockopt TCP_AO_INFO: %w", e)
	}
	u64 := func(off int) uint64 { return binary.NativeEndian.Uint64(b[off:]) }
	return aoInfo{
		AORequired:  binary.NativeEndian.Uint32(b[0:])&(1<<2) != 0,
		CurrentKey:  b[6],
		RNextKey:    b[7],
		Good:        u64(8),
		Bad:         u64(16),
		KeyNotFound: u64(24),
		Required:    u64(32),
		DroppedICMP: u64(40),
		len:         l,
	}, nil
}

// rawFD runs f on the file descriptor of c (a *net.TCPConn or *net.TCPListener).
func rawFD(c syscall.Conn, f func(fd int) error) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// keyControl is a net.Dialer / net.ListenConfig Control that installs k
// (nil: none) on the socket before bind/connect.
func keyControl(k *aoKey) func(string, string, syscall.RawConn) error {
	return func(_, _ string, c syscall.RawConn) error {
		if k == nil {
			return nil
		}
		var kerr error
		if err := c.Control(func(fd uintptr) { kerr = addAOKey(int(fd), *k) }); err != nil {
			return err
		}
		return kerr
	}
}

// aoPair is two namespaces "srv" and "cli" on one veth link.
type aoPair struct {
	*netns.Pair
	srv4, cli4, srv6, cli6 netip.Addr
}

func newAOPair(t *testing.T) *aoPair {
	t.Helper()
	p := netns.NewPair(t, "ao",
		netns.End{NS: "srv", If: "eth0", Addrs: []string{"192.0.2.1/24", "2001:db8:a0::1/64"}},
		netns.End{NS: "cli", If: "eth0", Addrs: []string{"192.0.2.2/24", "2001:db8:a0::2/64"}})
	return &aoPair{Pair: p,
		srv4: netip.MustParseAddr("192.0.2.1"), cli4: netip.MustParseAddr("192.0.2.2"),
		srv6: netip.MustParseAddr("2001:db8:a0::1"), cli6: netip.MustParseAddr("2001:db8:a0::2")}
}

// listen opens a TCP listener in the server namespace on addr with key k.
func (p *aoPair) listen(t *testing.T, addr netip.Addr, k *aoKey) *net.TCPListener {
	t.Helper()
	var ln net.Listener
	err := netns.Do(p.A, func() (err error) {
		lc := net.ListenConfig{Control: keyControl(k)}
		ln, err = lc.Listen(context.Background(), "tcp", netip.AddrPortFrom(addr, 0).String())
		return err
	})
	if err != nil {
		t.Fatalf("listen in %s: %v", p.A, err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.(*net.TCPListener)
}

// dial connects from the client namespace to addr with key k (nil: none).
func (p *aoPair) dial(ctx context.Context, addr string, k *aoKey) (*net.TCPConn, error) {
	var c net.Conn
	err := netns.Do(p.B, func() (err error) {
		d := net.Dialer{Control: keyControl(k)}
		c, err = d.DialContext(ctx, "tcp", addr)
		return err
	})
	if err != nil {
		return nil, err
	}
	return c.(*net.TCPConn), nil
}

func counters(t *testing.T, ns string) map[string]uint64 {
	t.Helper()
	m, err := netns.Counters(ns)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTCPAOStructLayout measures the uapi sizes this package assumes: the
// kernel refuses a tcp_ao_add one byte short (EINVAL) and takes 288 bytes,
// and TCP_AO_INFO answers 48 bytes (what the Go structs here rely on).
func TestTCPAOStructLayout(t *testing.T) {
	requireVM(t)
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	k := aoKey{peer: netip.MustParseAddr("198.51.100.1"), prefix: 32, alg: "hmac(sha1)", sndID: 1, rcvID: 1, secret: []byte("layout")}
	short := k.encode()[:tcpAOAddLen-1]
	if err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, tcpAOAddKey, string(short)); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("TCP_AO_ADD_KEY with %d bytes: got %v, want EINVAL", len(short), err)
	}
	if err := addAOKey(fd, k); err != nil {
		if errors.Is(err, unix.ENOPROTOOPT) {
			t.Fatalf("the guest kernel has no TCP-AO (CONFIG_TCP_AO): %v", err)
		}
		t.Fatal(err)
	}
	info, err := getAOInfo(fd)
	if err != nil {
		t.Fatal(err)
	}
	if info.len != tcpAOInfoLen {
		t.Fatalf("TCP_AO_INFO returned %d bytes, want %d", info.len, tcpAOInfoLen)
	}
	// (A closed socket has no current/rnext key yet: connect picks them.)
	t.Logf("tcp_ao_add: %d bytes accepted, %d refused; tcp_ao_info_opt: %d bytes", tcpAOAddLen, tcpAOAddLen-1, info.len)
}

func TestTCPAOSession(t *testing.T) {
	requireVM(t)
	p := newAOPair(t)
	for _, tc := range []struct {
		name, alg string
		secret    []byte
		v6        bool
	}{
		{"hmac-sha1/ipv4", "hmac(sha1)", []byte("tcp-ao hmac secret"), false},
		{"hmac-sha1/ipv6", "hmac(sha1)", []byte("tcp-ao hmac secret"), true},
		{"cmac-aes128/ipv4", "cmac(aes128)", []byte("0123456789abcdef"), false},
		{"cmac-aes128/ipv6", "cmac(aes128)", []byte("0123456789abcdef"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srvAddr, cliAddr, plen := p.srv4, p.cli4, uint8(32)
			if tc.v6 {
				srvAddr, cliAddr, plen = p.srv6, p.cli6, 128
			}
			srvKey := aoKey{peer: cliAddr, prefix: plen, alg: tc.alg, sndID: 1, rcvID: 1, secret: tc.secret}
			cliKey := aoKey{peer: srvAddr, prefix: plen, alg: tc.alg, sndID: 1, rcvID: 1, secret: tc.secret}
			ln := p.listen(t, srvAddr, &srvKey)
			addr := ln.Addr().String()
			before := counters(t, p.A)

			// A keyed client connects, sends 100 kB, reads them echoed back.
			accepted := make(chan *net.TCPConn, 1)
			go func() {
				c, err := ln.AcceptTCP()
				if err != nil {
					close(accepted)
					return
				}
				accepted <- c
				_, _ = io.Copy(c, c)
				_ = c.CloseWrite()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := p.dial(ctx, addr, &cliKey)
			if err != nil {
				t.Fatalf("keyed client: dial %s: %v", addr, err)
			}
			defer c.Close()
			sc, ok := <-accepted
			if !ok {
				t.Fatal("accept failed")
			}
			defer sc.Close()
			msg := bytes.Repeat([]byte("authenticated by TCP-AO\n"), 100000/24)
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			go func() { _, _ = c.Write(msg); _ = c.CloseWrite() }()
			got, err := io.ReadAll(c)
			if err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("echo: read %d of %d bytes, err %v", len(got), len(msg), err)
			}
			for _, s := range []struct {
				who string
				c   *net.TCPConn
			}{{"client", c}, {"server (accepted)", sc}} {
				var info aoInfo
				if err := rawFD(s.c, func(fd int) (err error) { info, err = getAOInfo(fd); return err }); err != nil {
					t.Fatalf("%s: %v", s.who, err)
				}
				t.Logf("%s TCP_AO_INFO: current %d rnext %d good %d bad %d key_not_found %d ao_required %d",
					s.who, info.CurrentKey, info.RNextKey, info.Good, info.Bad, info.KeyNotFound, info.Required)
				if info.Good == 0 || info.Bad != 0 || info.CurrentKey != 1 || info.RNextKey != 1 {
					t.Errorf("%s: want good > 0, bad 0, current 1, rnext 1; got %+v", s.who, info)
				}
			}
			after := counters(t, p.A)
			t.Logf("server namespace TcpExt TCPAOGood +%d", after["TCPAOGood"]-before["TCPAOGood"])
			if after["TCPAOGood"] <= before["TCPAOGood"] {
				t.Errorf("TcpExt TCPAOGood did not grow (%d -> %d)", before["TCPAOGood"], after["TCPAOGood"])
			}

			// Clients that must not get in: their SYN is dropped and the
			// server namespace counts why.
			wrong := cliKey
			wrong.secret = []byte("not the secret!!")
			otherID := cliKey
			otherID.sndID, otherID.rcvID = 7, 7
			for _, bad := range []struct {
				name    string
				key     *aoKey
				counter string
			}{
				{"no key", nil, "TCPAORequired"},
				{"wrong secret", &wrong, "TCPAOBad"},
				{"unknown key id", &otherID, "TCPAOKeyNotFound"},
			} {
				before := counters(t, p.A)
				ctx, cancel := context.WithCancel(context.Background())
				errc := make(chan error, 1)
				go func() {
					c, err := p.dial(ctx, addr, bad.key)
					if err == nil {
						c.Close()
					}
					errc <- err
				}()
				wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
				grew := netns.WaitFor(wctx, func() bool { return counters(t, p.A)[bad.counter] > before[bad.counter] })
				wcancel()
				// Give a wrongly accepted connection time to complete.
				time.Sleep(300 * time.Millisecond)
				cancel()
				err := <-errc
				after := counters(t, p.A)
				if err == nil {
					t.Errorf("client with %s: connected, want its SYN dropped", bad.name)
				}
				if !grew {
					t.Errorf("client with %s: TcpExt %s stayed %d", bad.name, bad.counter, after[bad.counter])
				}
				t.Logf("client with %s: %v; TcpExt %s %d -> %d", bad.name, err, bad.counter, before[bad.counter], after[bad.counter])
			}
		})
	}
}
