package tcpsock_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Test encoder for sock_diag replies: the inverse of ParseDiagMessages
// (plus INET_DIAG_MARK, which the kernel sends to CAP_NET_ADMIN callers).

var ne = binary.NativeEndian

func nlmsg(typ, flags uint16, seq uint32, payload []byte) []byte {
	b := make([]byte, 16, 16+len(payload)+3)
	ne.PutUint32(b[0:], uint32(16+len(payload)))
	ne.PutUint16(b[4:], typ)
	ne.PutUint16(b[6:], flags)
	ne.PutUint32(b[8:], seq)
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func rtattr(typ uint16, payload []byte) []byte {
	b := make([]byte, 4, 4+len(payload)+3)
	ne.PutUint16(b[0:], uint16(4+len(payload)))
	ne.PutUint16(b[2:], typ)
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// md5Entry is one struct tcp_diag_md5sig.
func md5Entry(family, prefixlen uint8, addr []byte, key []byte) []byte {
	e := make([]byte, 100)
	e[0], e[1] = family, prefixlen
	ne.PutUint16(e[2:], uint16(len(key)))
	copy(e[4:20], addr)
	copy(e[20:], key)
	return e
}

func keyEntry(k tcpsock.ObservedKey) []byte {
	a := k.Prefix.Addr()
	if a.Is4() {
		return md5Entry(2, uint8(k.Prefix.Bits()), a.AsSlice(), k.Secret)
	}
	return md5Entry(10, uint8(k.Prefix.Bits()), a.AsSlice(), k.Secret)
}

// diagMsg is an inet_diag_msg payload with attributes: a mark and, if s
// has keys, INET_DIAG_MD5SIG.
func diagMsg(s tcpsock.SocketKeys) []byte {
	p := make([]byte, 72)
	p[0] = byte(s.Family)
	p[1] = 1 // TCP_ESTABLISHED
	if s.Listening {
		p[1] = 10
	}
	addr := func(a netip.Addr) []byte {
		if s.Family == 2 {
			b := a.As4()
			return b[:]
		}
		b := a.As16()
		return b[:]
	}
	binary.BigEndian.PutUint16(p[4:], s.Local.Port())
	binary.BigEndian.PutUint16(p[6:], s.Remote.Port())
	copy(p[8:24], addr(s.Local.Addr()))
	if s.Remote.IsValid() {
		copy(p[24:40], addr(s.Remote.Addr()))
	}
	ne.PutUint32(p[44:], uint32(s.Inode)) // cookie: any
	ne.PutUint32(p[68:], uint32(s.Inode))
	p = append(p, rtattr(15, []byte{0, 0, 0, 0})...)
	if len(s.Keys) > 0 {
		var keys []byte
		for _, k := range s.Keys {
			keys = append(keys, keyEntry(k)...)
		}
		p = append(p, rtattr(18, keys)...)
	}
	return p
}

const nlmFMulti = 2

func doneMsg() []byte { return nlmsg(3, nlmFMulti, 1, []byte{0, 0, 0, 0}) }

// encodeDiag encodes socks as a dump reply ending in NLMSG_DONE.
func encodeDiag(socks []tcpsock.SocketKeys) []byte {
	var b []byte
	for _, s := range socks {
		b = append(b, nlmsg(20, nlmFMulti, 1, diagMsg(s))...)
	}
	return append(b, doneMsg()...)
}

func errCode(code int32) []byte { return ne.AppendUint32(nil, uint32(code)) }

func errMsg(code int32) []byte {
	p := make([]byte, 4, 20)
	ne.PutUint32(p, uint32(code))
	p = append(p, make([]byte, 16)...) // the request's header
	return nlmsg(2, 0, 1, p)
}

var (
	testSecret1 = []byte("diag-test-secret-one")
	testSecret2 = []byte("diag-test-secret-two")
	testSecret3 = []byte("diag-test-secret-three")
	maxSecret   = bytes.Repeat([]byte{0xa5}, md5auth.MaxSecretLen)
)

func v4(s string) []byte { a := netip.MustParseAddr(s).As4(); return a[:] }
func v6(s string) []byte { a := netip.MustParseAddr(s).As16(); return a[:] }

func sameSocks(t *testing.T, got, want []tcpsock.SocketKeys) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d sockets, want %d:\ngot  %s\nwant %s", len(got), len(want), describe(got), describe(want))
	}
	for i := range got {
		if d := diffSock(got[i], want[i]); d != "" {
			t.Errorf("socket %d: %s", i, d)
		}
	}
}

func diffSock(g, w tcpsock.SocketKeys) string {
	if g.Local != w.Local || g.Remote != w.Remote || g.Listening != w.Listening || g.Family != w.Family || g.Inode != w.Inode {
		return fmt.Sprintf("got %+v, want %+v", g, w)
	}
	if len(g.Keys) != len(w.Keys) {
		return fmt.Sprintf("%d keys, want %d", len(g.Keys), len(w.Keys))
	}
	for j := range g.Keys {
		if g.Keys[j].Prefix != w.Keys[j].Prefix || !bytes.Equal(g.Keys[j].Secret, w.Keys[j].Secret) {
			// The secrets are test values, but compare without printing them.
			return fmt.Sprintf("key %d: prefix %s (want %s), secret equal: %v", j, g.Keys[j].Prefix, w.Keys[j].Prefix,
				bytes.Equal(g.Keys[j].Secret, w.Keys[j].Secret))
		}
	}
	return ""
}

func describe(socks []tcpsock.SocketKeys) string {
	var b strings.Builder
	for _, s := range socks {
		fmt.Fprintf(&b, "[fam %d %s->%s listen=%v ino %d keys", s.Family, s.Local, s.Remote, s.Listening, s.Inode)
		for _, k := range s.Keys {
			fmt.Fprintf(&b, " %s", k.Prefix)
		}
		b.WriteString("] ")
	}
	return b.String()
}

func TestParseDiagMessages(t *testing.T) {
	listener4 := tcpsock.SocketKeys{
		Local: netip.MustParseAddrPort("0.0.0.0:179"), Listening: true, Family: 2, Inode: 1001,
		Keys: []tcpsock.ObservedKey{
			{Prefix: netip.MustParsePrefix("192.0.2.0/24"), Secret: testSecret1},
			{Prefix: netip.MustParsePrefix("192.0.2.2/32"), Secret: maxSecret},
		},
	}
	conn6 := tcpsock.SocketKeys{
		Local: netip.MustParseAddrPort("[2001:db8::1]:179"), Remote: netip.MustParseAddrPort("[2001:db8::2]:40000"),
		Family: 10, Inode: 1002,
		Keys: []tcpsock.ObservedKey{{Prefix: netip.MustParsePrefix("2001:db8::2/128"), Secret: testSecret2}},
	}
	unkeyed := tcpsock.SocketKeys{
		Local: netip.MustParseAddrPort("192.0.2.1:41000"), Remote: netip.MustParseAddrPort("192.0.2.9:179"),
		Family: 2, Inode: 1003,
	}
	all := []tcpsock.SocketKeys{listener4, conn6, unkeyed}
	got, err := tcpsock.ParseDiagMessages(encodeDiag(all))
	if err != nil {
		t.Fatal(err)
	}
	sameSocks(t, got, all)

	t.Run("split datagrams", func(t *testing.T) {
		// Without NLMSG_DONE (an earlier datagram of a dump) is fine.
		b := encodeDiag(all[:2])
		got, err := tcpsock.ParseDiagMessages(b[:len(b)-len(doneMsg())])
		if err != nil {
			t.Fatal(err)
		}
		sameSocks(t, got, all[:2])
	})
	t.Run("empty", func(t *testing.T) {
		for _, b := range [][]byte{nil, doneMsg()} {
			got, err := tcpsock.ParseDiagMessages(b)
			if err != nil || len(got) != 0 {
				t.Errorf("ParseDiagMessages(%x) = %v, %v; want nothing", b, got, err)
			}
		}
	})
	t.Run("done ends", func(t *testing.T) {
		b := append(encodeDiag(all[:1]), []byte("garbage after NLMSG_DONE")...)
		got, err := tcpsock.ParseDiagMessages(b)
		if err != nil {
			t.Fatal(err)
		}
		sameSocks(t, got, all[:1])
	})
	t.Run("noop and ack skipped", func(t *testing.T) {
		b := append(nlmsg(1, 0, 1, nil), errMsg(0)...)
		b = append(b, encodeDiag(all[2:])...)
		got, err := tcpsock.ParseDiagMessages(b)
		if err != nil {
			t.Fatal(err)
		}
		sameSocks(t, got, all[2:])
	})
	t.Run("secrets are copies", func(t *testing.T) {
		b := encodeDiag(all[:1])
		got, err := tcpsock.ParseDiagMessages(b)
		if err != nil {
			t.Fatal(err)
		}
		clear(b)
		sameSocks(t, got, all[:1])
	})
	t.Run("unknown attributes ignored", func(t *testing.T) {
		p := diagMsg(conn6)
		p = append(p, rtattr(2, make([]byte, 232))...)    // INET_DIAG_INFO
		p = append(p, rtattr(0x8000|99, []byte{1, 2})...) // with a flag bit
		got, err := tcpsock.ParseDiagMessages(nlmsg(20, 0, 7, p))
		if err != nil {
			t.Fatal(err)
		}
		sameSocks(t, got, all[1:2])
	})
}

// TestParseDiagMapped: an AF_INET6 socket with v4-mapped addresses, and
// keys as the kernel stores v4-mapped ones (AF_INET, IPv4 prefix length),
// or as an AF_INET6 entry holding a mapped address, are all unmapped.
func TestParseDiagMapped(t *testing.T) {
	p := make([]byte, 72)
	p[0], p[1] = 10, 1
	binary.BigEndian.PutUint16(p[4:], 179)
	binary.BigEndian.PutUint16(p[6:], 50000)
	copy(p[8:24], v6("::ffff:192.0.2.1"))
	copy(p[24:40], v6("::ffff:192.0.2.2"))
	ne.PutUint32(p[68:], 77)
	keys := append(md5Entry(2, 32, v4("192.0.2.2"), testSecret1), md5Entry(2, 25, v4("192.0.2.0"), testSecret2)...)
	keys = append(keys, md5Entry(10, 120, v6("::ffff:198.51.100.0"), testSecret3)...)
	keys = append(keys, md5Entry(10, 80, v6("::ffff:0:0"), testSecret3)...) // not an IPv4 range: stays IPv6
	p = append(p, rtattr(18, keys)...)
	got, err := tcpsock.ParseDiagMessages(nlmsg(20, 0, 1, p))
	if err != nil {
		t.Fatal(err)
	}
	sameSocks(t, got, []tcpsock.SocketKeys{{
		Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:50000"),
		Family: 10, Inode: 77,
		Keys: []tcpsock.ObservedKey{
			{Prefix: netip.MustParsePrefix("192.0.2.2/32"), Secret: testSecret1},
			{Prefix: netip.MustParsePrefix("192.0.2.0/25"), Secret: testSecret2},
			{Prefix: netip.MustParsePrefix("198.51.100.0/24"), Secret: testSecret3},
			{Prefix: netip.MustParsePrefix("::ffff:0:0/80"), Secret: testSecret3},
		},
	}})
}

// TestParseDiagListenerAndTimeWait: a listener has no remote address even
// if the message has one; a TIME_WAIT entry is a socket without keys.
func TestParseDiagListenerAndTimeWait(t *testing.T) {
	p := diagMsg(tcpsock.SocketKeys{Local: netip.MustParseAddrPort("[::]:179"), Listening: true, Family: 10})
	copy(p[24:40], v6("2001:db8::9"))
	binary.BigEndian.PutUint16(p[6:], 9)
	tw := diagMsg(tcpsock.SocketKeys{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:4000"), Family: 2})
	tw[1] = 6
	tw = tw[:72]
	got, err := tcpsock.ParseDiagMessages(append(nlmsg(20, 2, 1, p), nlmsg(20, 2, 1, tw)...))
	if err != nil {
		t.Fatal(err)
	}
	sameSocks(t, got, []tcpsock.SocketKeys{
		{Local: netip.MustParseAddrPort("[::]:179"), Listening: true, Family: 10},
		{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:4000"), Family: 2},
	})
}

// TestParseDiagManyKeys: a listener with more than 655 keys gets an
// INET_DIAG_MD5SIG whose 16-bit length the kernel wrapped (rtattr wraps it
// the same way); every key is still read, also when another attribute
// follows, and a partial key array is still refused.
func TestParseDiagManyKeys(t *testing.T) {
	listener := func(n int) tcpsock.SocketKeys {
		s := tcpsock.SocketKeys{Local: netip.MustParseAddrPort("[::]:179"), Listening: true, Family: 10, Inode: 7}
		for i := range n {
			a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 13: byte(i >> 16), 14: byte(i >> 8), 15: byte(i)})
			s.Keys = append(s.Keys, tcpsock.ObservedKey{Prefix: netip.PrefixFrom(a, 128), Secret: testSecret1})
		}
		return s
	}
	for _, n := range []int{654, 655, 656, 1001, 2000, 15000} {
		want := []tcpsock.SocketKeys{listener(n)}
		b := encodeDiag(want)
		got, err := tcpsock.ParseDiagMessages(b)
		if err != nil {
			t.Fatalf("%d keys: %v", n, err)
		}
		sameSocks(t, got, want)
		// Another attribute after the keys (INET_DIAG_ULP_INFO, say).
		msg := append(diagMsg(want[0]), rtattr(22, []byte{1, 2, 3, 4})...)
		got, err = tcpsock.ParseDiagMessages(append(nlmsg(20, nlmFMulti, 1, msg), doneMsg()...))
		if err != nil {
			t.Fatalf("%d keys and an attribute after them: %v", n, err)
		}
		sameSocks(t, got, want)
	}
	// A wrapped array one byte short is no whole number of keys for any
	// wrap count.
	msg := diagMsg(listener(1001))
	short := 1001*100 - 1
	msg = msg[:len(msg)-1]
	ne.PutUint16(msg[len(msg)-short-4:], uint16(4+short))
	if _, err := tcpsock.ParseDiagMessages(append(nlmsg(20, nlmFMulti, 1, msg), doneMsg()...)); err == nil {
		t.Fatal("a partial key array of a wrapped attribute parsed")
	}
}

func TestParseDiagMalformed(t *testing.T) {
	good := diagMsg(tcpsock.SocketKeys{Local: netip.MustParseAddrPort("192.0.2.1:179"), Family: 2, Listening: true})
	withKeys := func(entries ...[]byte) []byte {
		return nlmsg(20, 0, 1, append(append([]byte(nil), good...), rtattr(18, bytes.Join(entries, nil))...))
	}
	setLen := func(b []byte, n uint32) []byte { ne.PutUint32(b, n); return b }
	badFamily := append([]byte(nil), good...)
	badFamily[0] = 1 // AF_UNIX
	attrTooLong := append(append([]byte(nil), good...), 0xff, 0, 18, 0)
	attrTooShort := append(append([]byte(nil), good...), 2, 0, 18, 0)
	stray := append(append([]byte(nil), good...), 1, 2)
	key := md5Entry(2, 32, v4("192.0.2.2"), testSecret1)
	for _, tc := range []struct {
		name string
		b    []byte
		want error // matched with errors.Is, when not nil
	}{
		{"short header", []byte{20, 0, 0, 0, 20, 0}, nil},
		{"length below header", setLen(nlmsg(20, 0, 1, good), 8), nil},
		{"length past buffer", setLen(nlmsg(20, 0, 1, good), 1000), nil},
		{"short inet_diag_msg", nlmsg(20, 0, 1, good[:71]), nil},
		{"bad family", nlmsg(20, 0, 1, badFamily), nil},
		{"attribute past message", nlmsg(20, 0, 1, attrTooLong), nil},
		{"attribute below header", nlmsg(20, 0, 1, attrTooShort), nil},
		{"stray attribute bytes", nlmsg(20, 0, 1, stray), nil},
		{"partial key entry", withKeys(key[:99]), nil},
		{"key array with a partial entry", withKeys(key, key[:50]), nil},
		{"empty secret", withKeys(md5Entry(2, 32, v4("192.0.2.2"), nil)), nil},
		{"secret too long", withKeys(func() []byte { e := append([]byte(nil), key...); ne.PutUint16(e[2:], 81); return e }()), nil},
		{"IPv4 prefix 33", withKeys(md5Entry(2, 33, v4("192.0.2.2"), testSecret1)), nil},
		{"IPv6 prefix 129", withKeys(md5Entry(10, 129, v6("2001:db8::2"), testSecret1)), nil},
		{"key family 0", withKeys(md5Entry(0, 0, nil, testSecret1)), nil},
		{"unexpected message type", nlmsg(16, 0, 1, good), nil},
		{"overrun", nlmsg(4, 0, 1, nil), nil},
		{"short NLMSG_ERROR", nlmsg(2, 0, 1, []byte{1}), nil},
		{"NLMSG_ERROR", errMsg(-int32(syscall.EPERM)), syscall.EPERM},
		{"NLMSG_DONE with an error", nlmsg(3, 2, 1, errCode(-int32(syscall.EINVAL))), syscall.EINVAL},
		{"dump interrupted", nlmsg(20, 2|0x10, 1, good), nil},
		{"error after sockets", append(nlmsg(20, 2, 1, good), errMsg(-int32(syscall.ENOBUFS))...), syscall.ENOBUFS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tcpsock.ParseDiagMessages(tc.b)
			if err == nil {
				t.Fatalf("no error; parsed %s", describe(got))
			}
			if got != nil {
				t.Errorf("sockets returned with the error: %s", describe(got))
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %q does not match %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "tcpsock: parse sock_diag messages: ") {
				t.Errorf("error %q lacks the package context", err)
			}
			if strings.Contains(err.Error(), string(testSecret1)) {
				t.Errorf("error leaks a secret: %q", err)
			}
			t.Log(err)
		})
	}
}

func TestKeyFor(t *testing.T) {
	pfx := netip.MustParsePrefix
	s := tcpsock.SocketKeys{Keys: []tcpsock.ObservedKey{
		{Prefix: pfx("192.0.2.0/24"), Secret: []byte("k24")},
		{Prefix: pfx("192.0.2.0/25"), Secret: []byte("k25")},
		{Prefix: pfx("192.0.2.9/24"), Secret: []byte("k24-unmasked")}, // same range, later: loses ties
		{Prefix: pfx("192.0.2.2/32"), Secret: []byte("k32")},
		{Prefix: pfx("0.0.0.0/0"), Secret: []byte("k0")},
		{Prefix: pfx("2001:db8::/32"), Secret: []byte("k6-32")},
		{Prefix: pfx("fe80::1/128"), Secret: []byte("k-ll")},
	}}
	for _, tc := range []struct {
		addr, want string // want: secret, "" for none
	}{
		{"192.0.2.2", "k32"},
		{"::ffff:192.0.2.2", "k32"},
		{"192.0.2.3", "k25"},
		{"192.0.2.200", "k24"},
		{"198.51.100.1", "k0"},
		{"2001:db8::5", "k6-32"},
		{"2001:db9::5", ""},
		{"fe80::1%eth0", "k-ll"},
	} {
		k, ok := s.KeyFor(netip.MustParseAddr(tc.addr))
		if got := string(k.Secret); ok != (tc.want != "") || got != tc.want {
			t.Errorf("KeyFor(%s) = %s %q, %v; want %q", tc.addr, k.Prefix, got, ok, tc.want)
		}
	}
	if _, ok := (tcpsock.SocketKeys{}).KeyFor(netip.MustParseAddr("192.0.2.2")); ok {
		t.Error("KeyFor on a socket without keys found one")
	}
	if _, ok := s.KeyFor(netip.Addr{}); ok {
		t.Error("KeyFor(zero Addr) found a key")
	}
}

// checkParsed checks what every successful parse must satisfy.
func checkParsed(t *testing.T, socks []tcpsock.SocketKeys) {
	t.Helper()
	for i, s := range socks {
		if s.Family != 2 && s.Family != 10 {
			t.Fatalf("socket %d: family %d", i, s.Family)
		}
		for _, ap := range []netip.AddrPort{s.Local, s.Remote} {
			if !ap.IsValid() {
				continue
			}
			a := ap.Addr()
			if a.Is4In6() || a.Zone() != "" || (s.Family == 2 && !a.Is4()) {
				t.Fatalf("socket %d: address %s on a family %d socket", i, a, s.Family)
			}
		}
		if !s.Local.IsValid() || (s.Listening && s.Remote.IsValid()) {
			t.Fatalf("socket %d: %s -> %s, listening %v", i, s.Local, s.Remote, s.Listening)
		}
		for j, k := range s.Keys {
			p := k.Prefix
			if n := len(k.Secret); n < 1 || n > md5auth.MaxSecretLen {
				t.Fatalf("socket %d key %d: secret of %d bytes", i, j, n)
			}
			if !p.IsValid() || p.Bits() > p.Addr().BitLen() || p.Addr().Zone() != "" ||
				(p.Addr().Is4In6() && p.Bits() >= 96) || (!p.Addr().Is4() && !p.Addr().Is6()) {
				t.Fatalf("socket %d key %d: prefix %s", i, j, p)
			}
			if (p.Addr().Is4() && p.Bits() > 32) || (p.Addr().Is6() && p.Bits() > 128) {
				t.Fatalf("socket %d key %d: prefix %s has more bits than its family", i, j, p)
			}
		}
	}
}

// FuzzParseDiag: never panics; what parses is well formed, and parsing
// its re-encoding gives the same result. The seed corpus
// (testdata/fuzz/FuzzParseDiag) holds real replies of this machine's
// kernel: keyed dumps of listeners and connections (IPv4, IPv6, dual stack
// with v4-mapped keys), keyless dumps, an unprivileged dump, exact replies
// and an error.
func FuzzParseDiag(f *testing.F) {
	f.Add(encodeDiag([]tcpsock.SocketKeys{{
		Local: netip.MustParseAddrPort("[::]:179"), Listening: true, Family: 10, Inode: 9,
		Keys: []tcpsock.ObservedKey{{Prefix: netip.MustParsePrefix("192.0.2.0/24"), Secret: testSecret1}},
	}}))
	f.Add(errMsg(-1))
	f.Fuzz(func(t *testing.T, b []byte) {
		socks, err := tcpsock.ParseDiagMessages(b)
		if err != nil {
			if socks != nil {
				t.Fatal("sockets returned with an error")
			}
			return
		}
		checkParsed(t, socks)
		again, err := tcpsock.ParseDiagMessages(encodeDiag(socks))
		if err != nil {
			t.Fatalf("re-encoded %s does not parse: %v", describe(socks), err)
		}
		sameSocks(t, again, socks)
	})
}

func ExampleSocketKeys_KeyFor() {
	s := tcpsock.SocketKeys{Keys: []tcpsock.ObservedKey{
		{Prefix: netip.MustParsePrefix("192.0.2.0/24"), Secret: keys.Secret("s3cret-range")},
		{Prefix: netip.MustParsePrefix("192.0.2.7/32"), Secret: keys.Secret("s3cret-peer")},
	}}
	// A v4-mapped peer address (from an AF_INET6 socket) is looked up unmapped.
	k, ok := s.KeyFor(netip.MustParseAddr("::ffff:192.0.2.7"))
	fmt.Println(k.Prefix, ok, k.Secret)
	k, ok = s.KeyFor(netip.MustParseAddr("192.0.2.8"))
	fmt.Println(k.Prefix, ok, k.Secret)
	_, ok = s.KeyFor(netip.MustParseAddr("198.51.100.1"))
	fmt.Println(ok)
	// Output:
	// 192.0.2.7/32 true <redacted>
	// 192.0.2.0/24 true <redacted>
	// false
}

// Report which key the kernel holds for a peer on each BGP listener.
func ExampleDumpSocketKeys() {
	peer := netip.MustParseAddr("192.0.2.2")
	socks, keysVisible, err := tcpsock.DumpSocketKeys(179)
	if err != nil {
		log.Print(err) // never contains a secret
		return
	}
	for _, s := range socks {
		if !s.Listening {
			continue
		}
		k, ok := s.KeyFor(peer)
		switch {
		case ok:
			fmt.Printf("listener %s: key for %s (%s)\n", s.Local, peer, k.Prefix)
		case !keysVisible:
			fmt.Printf("listener %s: keys unknown (no CAP_NET_ADMIN)\n", s.Local)
		default:
			fmt.Printf("listener %s: no key for %s\n", s.Local, peer)
		}
	}
}
