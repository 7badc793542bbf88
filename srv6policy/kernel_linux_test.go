//go:build linux

package srv6policy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// Privileged tests: the kernel computes SRH HMACs for seg6 encap routes in
// a namespace, tcpdump captures them on the other end of a veth, and our
// code verifies every one.
//
//	sudo go test -run 'Kernel' -v ./srv6policy
//
// SRV6POLICY_WRITE_TESTDATA=1 also writes the capture of TestKernelHMAC to
// testdata/kernel_hmac.pcap (a fuzz seed and the input of
// TestTestdataCaptures).

var (
	srcA = netip.MustParseAddr("2001:db8::1")
)

// twoNodes builds namespaces a (2001:db8::1/64) and b (2001:db8::2/64) on a
// veth (eth0 on both sides) with seg6 enabled; a sends SIDs of fc00::/16 to
// b and uses 2001:db8::1 as its encapsulation source.
func twoNodes(t *testing.T, tag string) (*netns.Topology, string, string) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "ip")
	testenv.RequireBinary(t, "tcpdump")
	if _, err := os.Stat("/proc/sys/net/ipv6/conf/all/seg6_enabled"); err != nil {
		testenv.SkipKernelLacks(t, "IPv6 segment routing", err.Error())
	}
	tp := netns.New(t, tag)
	a, b := tp.Add("a"), tp.Add("b")
	tp.Link(a, "eth0", []string{"2001:db8::1/64"}, b, "eth0", []string{"2001:db8::2/64"})
	for _, ns := range []string{a, b} {
		netns.Run(t, "ip", "netns", "exec", ns, "sysctl", "-qw",
			"net.ipv6.conf.all.seg6_enabled=1", "net.ipv6.conf.eth0.seg6_enabled=1")
	}
	netns.Run(t, "ip", "-n", a, "sr", "tunsrc", "set", srcA.String())
	netns.Run(t, "ip", "-n", a, "-6", "route", "add", "fc00::/16", "via", "2001:db8::2", "dev", "eth0")
	return tp, a, b
}

// ipSRHMACSet programs a key with iproute2, which reads the secret on stdin.
func ipSRHMACSet(t *testing.T, ns string, id uint32, alg Algorithm, secret string) {
	t.Helper()
	cmd := exec.Command("ip", "-n", ns, "sr", "hmac", "set", fmt.Sprint(id), alg.String())
	cmd.Stdin = strings.NewReader(secret + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ip sr hmac set %d: %v\n%s", id, err, out)
	}
}

// encapRoute is one seg6 route of a: traffic to dst goes through segs
// (first hop first) with HMAC key keyID.
type encapRoute struct {
	dst    netip.Addr
	segs   []netip.Addr
	inline bool
	keyID  uint32
}

func (r encapRoute) install(t *testing.T, ns string) {
	mode := "encap"
	if r.inline {
		mode = "inline"
	}
	var segs []string
	for _, s := range r.segs {
		segs = append(segs, s.String())
	}
	netns.Run(t, "ip", "-n", ns, "-6", "route", "add", netip.PrefixFrom(r.dst, 64).Masked().String(),
		"encap", "seg6", "mode", mode, "segs", strings.Join(segs, ","), "hmac", fmt.Sprint(r.keyID), "dev", "eth0")
}

// countSRHs counts the SRHs tcpdump has written so far (a record being
// written may be cut: reading stops there).
func countSRHs(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	r, err := capfile.NewReader(f)
	if err != nil {
		return 0
	}
	n := 0
	for {
		p, err := r.Next()
		if err != nil {
			return n
		}
		var tcp frame.TCP
		if err := frame.DecodeTCP(p.LinkType, p.Data, &tcp); (err == nil || err == frame.ErrNotTCP) && tcp.SRH != nil {
			n++
		}
	}
}

// capture starts tcpdump on eth0 of ns (SRv6 packets only) and returns a
// function that waits (at most 10 s) until it has written want SRHs, stops
// it and returns the capture file.
func capture(t *testing.T, tp *netns.Topology, ns string) func(want int) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "srv6.pcap")
	cmd := netns.Exec(ns, "tcpdump", "-i", "eth0", "-n", "-U", "--immediate-mode", "-w", file, "ip6 proto 43")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	tp.Start(cmd)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				close(ready)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("tcpdump did not start")
	}
	return func(want int) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		netns.WaitFor(ctx, func() bool { return countSRHs(file) >= want })
		time.Sleep(100 * time.Millisecond) // anything more would be seen too
		netns.Stop(cmd)
		return file
	}
}

// sendUDP sends n small datagrams from ns to each destination.
func sendUDP(t *testing.T, ns string, dsts []netip.Addr, n int) {
	t.Helper()
	err := netns.Do(ns, func() error {
		c, err := net.ListenUDP("udp6", &net.UDPAddr{IP: net.ParseIP(srcA.String())})
		if err != nil {
			return err
		}
		defer c.Close()
		for i := 0; i < n; i++ {
			for _, d := range dsts {
				if _, err := c.WriteToUDPAddrPort([]byte("authbgpd srv6 hmac test"), netip.AddrPortFrom(d, 9)); err != nil {
					return fmt.Errorf("send to %s: %w", d, err)
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkCapture verifies every SRH of file against routes and keys, and
// returns how many packets each route got.
func checkCapture(t *testing.T, file string, routes []encapRoute, keys map[uint32]*Key) map[int]int {
	t.Helper()
	got := map[int]int{}
	for _, c := range captureSRHs(t, file) {
		s, err := DecodeSRH(c.srh)
		if err != nil {
			t.Errorf("#%d: decode: %v (%x)", c.n, err, c.srh)
			continue
		}
		if enc, err := s.Encode(); err != nil || !bytes.Equal(enc, c.srh) {
			t.Errorf("#%d: re-encode: %v", c.n, err)
		}
		ri := -1
		for i, r := range routes {
			fh := s.FirstHopFirst()
			if r.inline {
				if len(fh) > 0 && fh[len(fh)-1] == r.dst && reflect.DeepEqual(fh[:len(fh)-1], r.segs) {
					ri = i
				}
			} else if reflect.DeepEqual(fh, r.segs) {
				ri = i
			}
		}
		if ri < 0 {
			t.Errorf("#%d: SRH of no route: %+v", c.n, s)
			continue
		}
		r := routes[ri]
		got[ri]++
		// The SRH is the one we predict, with what the kernel fills in.
		var want *SRH
		if r.inline {
			want, err = InlineSRH(r.segs, r.keyID)
		} else {
			want, err = EncapSRH(r.segs, r.keyID)
		}
		if err != nil {
			t.Fatal(err)
		}
		h, ok := s.HMAC()
		if !ok {
			t.Errorf("#%d: no HMAC TLV", c.n)
			continue
		}
		want.NextHeader = s.NextHeader
		want.Segments[0] = s.Segments[0]
		want.TLVs[len(want.TLVs)-1] = HMACTLV{KeyID: r.keyID, HMAC: h.HMAC}.TLV()
		if wb, _ := want.Encode(); !bytes.Equal(wb, c.srh) {
			t.Errorf("#%d: kernel SRH\n%x\nwe predict\n%x", c.n, c.srh, wb)
		}
		if nh := map[bool]uint8{false: 41, true: 17}[r.inline]; s.NextHeader != nh {
			t.Errorf("#%d: next header %d, want %d", c.n, s.NextHeader, nh)
		}
		if c.src != srcA {
			t.Errorf("#%d: outer source %s", c.n, c.src)
		}
		if v, id := VerifySRH(keys, c.src, c.srh); v != VerdictValid || id != r.keyID {
			t.Errorf("#%d: VerifySRH = %v, key %d; want valid, key %d", c.n, v, id, r.keyID)
		}
		k := keys[r.keyID]
		if mac := k.Sum(nil, c.src, s.LastEntry(), s.Flags, s.Segments); !bytes.Equal(mac, h.HMAC[:]) {
			t.Errorf("#%d: Sum %x, kernel %x", c.n, mac, h.HMAC)
		}
		if k.Algorithm() == SHA1 && !bytes.Equal(h.HMAC[20:], make([]byte, 12)) {
			t.Errorf("#%d: SHA-1 HMAC not zero padded: %x", c.n, h.HMAC)
		}
	}
	return got
}

// TestKernelHMAC: keys set with `ip sr hmac set`, seg6 routes in encap and
// inline modes with 1..5 segments for HMAC-SHA1 and HMAC-SHA256; every
// HMAC the kernel puts on the wire verifies with our code.
func TestKernelHMAC(t *testing.T) {
	testenv.RequireSRv6HMAC(t)
	tp, a, b := twoNodes(t, "srv6h")
	keys := map[uint32]*Key{}
	var routes []encapRoute
	for _, tk := range testdataKeys[1:] {
		ipSRHMACSet(t, a, tk.id, tk.alg, tk.secret)
		keys[tk.id] = mustKey(t, tk.id, tk.alg, []byte(tk.secret))
		for n := 1; n <= 5; n++ {
			for _, inline := range []bool{false, true} {
				i := len(routes) + 1
				r := encapRoute{dst: netip.MustParseAddr(fmt.Sprintf("2001:db8:9:%x::1", i)), inline: inline, keyID: tk.id}
				for j := 1; j <= n; j++ {
					r.segs = append(r.segs, netip.MustParseAddr(fmt.Sprintf("fc00:%x:%x::1", i, j)))
				}
				r.install(t, a)
				routes = append(routes, r)
			}
		}
	}
	stop := capture(t, tp, b)
	var dsts []netip.Addr
	for _, r := range routes {
		dsts = append(dsts, r.dst)
	}
	sendUDP(t, a, dsts, 2)
	file := stop(2 * len(dsts))
	got := checkCapture(t, file, routes, keys)
	for i, r := range routes {
		if got[i] == 0 {
			t.Errorf("route %d (%d segments, inline %v, key %d): no packet captured", i, len(r.segs), r.inline, r.keyID)
		}
	}
	t.Logf("%d routes, %d SRHs verified", len(routes), len(captureSRHs(t, file)))
	if os.Getenv("SRV6POLICY_WRITE_TESTDATA") == "1" {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/kernel_hmac.pcap", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKernelKeys: our SEG6 generic netlink client against the kernel of a
// fresh namespace, cross-checked with iproute2 and with the HMACs the
// kernel computes with the keys it programmed.
func TestKernelKeys(t *testing.T) {
	testenv.RequireSRv6HMAC(t)
	tp, a, b := twoNodes(t, "srv6k")
	var kk *KernelKeys
	if err := netns.Do(a, func() (err error) { kk, err = OpenKernelKeys(); return err }); err != nil {
		if errors.Is(err, ErrNoKernelSupport) {
			testenv.SkipKernelLacks(t, "SRv6 HMAC (genetlink SEG6)", err.Error())
		}
		t.Fatal(err)
	}
	defer kk.Close()

	dump := func() map[uint32]KernelKey {
		t.Helper()
		keys, err := kk.Dump()
		if err != nil {
			t.Fatal(err)
		}
		m := map[uint32]KernelKey{}
		for _, k := range keys {
			m[k.ID] = k
		}
		return m
	}
	ipShow := func() string {
		return netns.Run(t, "ip", "-n", a, "sr", "hmac", "show")
	}
	if m := dump(); len(m) != 0 {
		t.Fatalf("fresh namespace has keys %v", m)
	}

	bin := make([]byte, 64)
	for i := range bin {
		bin[i] = byte(255 - i)
	}
	if err := kk.Set(7, SHA256, []byte("first-secret")); err != nil {
		t.Fatal(err)
	}
	if err := kk.Set(8, SHA1, bin); err != nil {
		t.Fatal(err)
	}
	if err := kk.Set(4294967295, SHA1, []byte("x")); err != nil {
		t.Fatal(err)
	}
	m := dump()
	if len(m) != 3 || m[7].Algorithm != SHA256 || string(m[7].Secret) != "first-secret" ||
		m[8].Algorithm != SHA1 || !bytes.Equal(m[8].Secret, bin) || string(m[4294967295].Secret) != "x" {
		t.Fatalf("dump %+v", m)
	}
	if out := fmt.Sprint(m); strings.Contains(out, "first-secret") {
		t.Fatalf("printing the dump shows a secret: %s", out)
	}
	if out := ipShow(); !regexp.MustCompile(`hmac 7 algo sha256 secret "first-secret"`).MatchString(out) ||
		!strings.Contains(out, "hmac 8 algo sha1") || !strings.Contains(out, "hmac 4294967295 algo sha1") {
		t.Fatalf("ip sr hmac show:\n%s", out)
	}

	// Re-setting an ID replaces its key.
	if err := kk.Set(7, SHA1, []byte("second-secret")); err != nil {
		t.Fatal(err)
	}
	if m := dump(); len(m) != 3 || m[7].Algorithm != SHA1 || string(m[7].Secret) != "second-secret" {
		t.Fatalf("after re-set: %+v", m)
	}
	if out := ipShow(); strings.Count(out, "hmac 7 ") != 1 || !strings.Contains(out, `hmac 7 algo sha1 secret "second-secret"`) {
		t.Fatalf("ip sr hmac show after re-set:\n%s", out)
	}

	// The kernel uses the keys we programmed.
	routes := []encapRoute{
		{dst: netip.MustParseAddr("2001:db8:9:1::1"), segs: []netip.Addr{netip.MustParseAddr("fc00:1:1::1"), netip.MustParseAddr("fc00:1:2::1")}, keyID: 7},
		{dst: netip.MustParseAddr("2001:db8:9:2::1"), segs: []netip.Addr{netip.MustParseAddr("fc00:2:1::1")}, keyID: 8, inline: true},
	}
	for _, r := range routes {
		r.install(t, a)
	}
	stop := capture(t, tp, b)
	sendUDP(t, a, []netip.Addr{routes[0].dst, routes[1].dst}, 2)
	got := checkCapture(t, stop(4), routes, map[uint32]*Key{
		7: mustKey(t, 7, SHA1, []byte("second-secret")),
		8: mustKey(t, 8, SHA1, bin),
	})
	if got[0] == 0 || got[1] == 0 {
		t.Fatalf("captured per route: %v", got)
	}

	// Delete.
	if err := kk.Delete(7); err != nil {
		t.Fatal(err)
	}
	if m := dump(); len(m) != 2 || m[7].ID != 0 {
		t.Fatalf("after delete: %+v", m)
	}
	if out := ipShow(); strings.Contains(out, "hmac 7 ") {
		t.Fatalf("ip sr hmac show after delete:\n%s", out)
	}
	if err := kk.Delete(7); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("delete again: %v", err)
	}

	// Argument errors, before anything reaches the kernel.
	for _, c := range []struct {
		id     uint32
		alg    Algorithm
		secret []byte
		want   error
	}{
		{0, SHA256, []byte("s"), ErrKeyIDZero},
		{9, 0, []byte("s"), ErrBadAlgorithm},
		{9, 3, []byte("s"), ErrBadAlgorithm},
		{9, SHA1, nil, ErrEmptySecret},
		{9, SHA1, bytes.Repeat([]byte("Z"), 65), ErrSecretTooLong},
	} {
		if err := kk.Set(c.id, c.alg, c.secret); !errors.Is(err, c.want) || strings.Contains(err.Error(), "ZZ") {
			t.Errorf("Set(%d, %d, %d bytes) = %v, want %v", c.id, c.alg, len(c.secret), err, c.want)
		}
	}
	if err := kk.Delete(0); !errors.Is(err, ErrKeyIDZero) {
		t.Errorf("Delete(0) = %v", err)
	}

	// Keys are per namespace: b has none.
	if out := netns.Run(t, "ip", "-n", b, "sr", "hmac", "show"); strings.Contains(out, "hmac") {
		t.Fatalf("namespace b sees keys:\n%s", out)
	}

	if err := kk.Close(); err != nil {
		t.Fatal(err)
	}
	if err := kk.Set(9, SHA1, []byte("s")); err == nil {
		t.Fatal("Set after Close succeeded")
	}
}

// TestKernelKeysNoCapNetAdmin: without CAP_NET_ADMIN the kernel refuses,
// and the error says so. Capabilities are per thread: the one netns.Do
// runs on drops CAP_NET_ADMIN and is discarded afterwards.
func TestKernelKeysNoCapNetAdmin(t *testing.T) {
	testenv.RequireSRv6HMAC(t)
	testenv.RequireRoot(t)
	tp := netns.New(t, "srv6p")
	ns := tp.Add("a")
	var setErr, dumpErr error
	err := netns.Do(ns, func() error {
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			return err
		}
		data[unix.CAP_NET_ADMIN/32].Effective &^= 1 << (unix.CAP_NET_ADMIN % 32)
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return err
		}
		kk, err := OpenKernelKeys()
		if err != nil {
			return err
		}
		defer kk.Close()
		setErr = kk.Set(5, SHA256, []byte("secret-not-in-errors"))
		_, dumpErr = kk.Dump()
		return nil
	})
	if errors.Is(err, ErrNoKernelSupport) {
		testenv.SkipKernelLacks(t, "SRv6 HMAC (genetlink SEG6)", err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(setErr, ErrPermission) || !errors.Is(setErr, unix.EPERM) || !errors.Is(setErr, os.ErrPermission) {
		t.Fatalf("Set without CAP_NET_ADMIN: %v", setErr)
	}
	if strings.Contains(setErr.Error(), "secret-not-in-errors") {
		t.Fatalf("error shows the secret: %v", setErr)
	}
	t.Logf("Set: %v; Dump: %v", setErr, dumpErr)
	if dumpErr != nil && !errors.Is(dumpErr, ErrPermission) {
		t.Fatalf("Dump without CAP_NET_ADMIN: %v", dumpErr)
	}
	if out := netns.Run(t, "ip", "-n", ns, "sr", "hmac", "show"); strings.Contains(out, "hmac 5") {
		t.Fatalf("the key was set anyway:\n%s", out)
	}
}

// TestResolveUnknownFamily: a missing generic netlink family is
// ErrNoKernelSupport (what a kernel without SEG6 answers for "SEG6").
func TestResolveUnknownFamily(t *testing.T) {
	kk, err := OpenKernelKeys()
	if errors.Is(err, ErrNoKernelSupport) {
		testenv.SkipKernelLacks(t, "SRv6 (genetlink SEG6)", err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer kk.Close()
	if _, err := kk.resolveFamily("AUTHBGPD_NOPE"); !errors.Is(err, ErrNoKernelSupport) {
		t.Fatalf("unknown family: %v", err)
	}
}
