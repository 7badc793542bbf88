package md5auth

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// TestKernelFeatureProbes checks the probes against iproute2's view: a VRF
// device can be created in a namespace exactly when CheckVRF says so.
func TestKernelFeatureProbes(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "feat")
	ns := tp.Add("a")
	out, ipErr := exec.Command("ip", "-n", ns, "link", "add", "vrf-probe", "type", "vrf", "table", "10").CombinedOutput()
	vrfErr := CheckVRF()
	if (ipErr == nil) != (vrfErr == nil) {
		t.Fatalf("CheckVRF = %v, but ip link add type vrf: %v %s", vrfErr, ipErr, out)
	}
	if vrfErr != nil && !errors.Is(vrfErr, ErrNoVRF) {
		t.Fatalf("CheckVRF: %v, want ErrNoVRF", vrfErr)
	}
	t.Logf("VRF devices: %v; TCP-AO: %v", vrfErr, CheckTCPAO())
}

// TestKernelFeatures: the start-up summary says what each probe says:
// "yes" when it passes, "no" when it reports the feature missing.
func TestKernelFeatures(t *testing.T) {
	testenv.RequireRoot(t) // the VRF probe makes a namespace
	f := KernelFeatures()
	for name, err := range map[string]error{"tcp_md5": CheckKernelMD5(), "tcp_ao": CheckTCPAO(), "vrf": CheckVRF()} {
		want := "yes"
		if err != nil {
			want = "no"
		}
		if f[name] != want {
			t.Errorf("KernelFeatures()[%q] = %q, want %q (probe: %v)", name, f[name], want, err)
		}
	}
	if len(f) != 3 {
		t.Errorf("KernelFeatures() = %v, want tcp_md5, tcp_ao and vrf", f)
	}
}

// TestVRFScopedKey: a key scoped by ifindex to a VRF (TCP_MD5SIG_FLAG_IFINDEX)
// admits a signed peer on a listener in that VRF, and a key scoped to
// another VRF does not. Skipped, naming the feature, on kernels without VRF
// devices.
func TestVRFScopedKey(t *testing.T) {
	testenv.RequireRoot(t)
	if err := CheckVRF(); err != nil {
		testenv.SkipKernelLacks(t, "VRF devices (CONFIG_NET_VRF)", err.Error())
	}
	tp := newTopo(t, "vrf")
	for _, c := range [][]string{
		{"link", "add", "blue", "type", "vrf", "table", "10"},
		{"link", "add", "red", "type", "vrf", "table", "20"},
		{"link", "set", "blue", "up"},
		{"link", "set", "red", "up"},
		{"link", "set", "eth0", "master", "blue"},
	} {
		netns.Run(t, "ip", append([]string{"-n", tp.srv}, c...)...)
	}
	var blue, red int
	var l net.Listener
	err := netns.Do(tp.srv, func() error {
		b, err := net.InterfaceByName("blue")
		if err != nil {
			return err
		}
		r, err := net.InterfaceByName("red")
		if err != nil {
			return err
		}
		blue, red = b.Index, r.Index
		lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
			var serr error
			if err := c.Control(func(fd uintptr) { serr = unix.BindToDevice(int(fd), "blue") }); err != nil {
				return err
			}
			return serr
		}}
		lc.SetMultipathTCP(false)
		l, err = lc.Listen(context.Background(), "tcp4", "0.0.0.0:1790")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	rc, err := l.(*net.TCPListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	peer := netip.MustParseAddr("192.0.2.2")
	secret := []byte("vrf-scoped-key")
	inBlue := Key{Prefix: netip.PrefixFrom(peer, 32), IfIndex: blue, Secret: secret}
	if err := SetKey(rc, inBlue); err != nil {
		t.Fatalf("set VRF-scoped key: %v", err)
	}
	dst := netip.MustParseAddrPort("192.0.2.1:1790")
	signed := AddrKey(peer, secret)
	dialOK(t, tp.cli, peer, dst, &signed)
	// The same key scoped to another VRF does not apply here.
	if err := DeleteKey(rc, inBlue); err != nil {
		t.Fatal(err)
	}
	inRed := inBlue
	inRed.IfIndex = red
	if err := SetKey(rc, inRed); err != nil {
		t.Fatalf("set key scoped to another VRF: %v", err)
	}
	if err := dialFails(tp.cli, peer, dst, &signed); err != nil {
		t.Fatal(err)
	}
}

// TestTCPAOProbe: TCP-AO is reported, never assumed.
func TestTCPAOProbe(t *testing.T) {
	if err := CheckTCPAO(); err != nil {
		if !errors.Is(err, ErrNoTCPAO) {
			t.Fatalf("CheckTCPAO: %v", err)
		}
		testenv.SkipKernelLacks(t, "TCP-AO (CONFIG_TCP_AO)", err.Error())
	}
}
