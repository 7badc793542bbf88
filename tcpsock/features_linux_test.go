package tcpsock

import (
	"errors"
	"net/netip"
	"os/exec"
	"testing"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
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

// TestVRFScopedKey: a TCP-MD5 key scoped by ifindex to a VRF
// (TCP_MD5SIG_FLAG_IFINDEX) admits a signed peer on a listener in that VRF,
// and keeps an unsigned one out (TCPMD5NotFound); the same key scoped to
// another VRF does not apply there: the signed SYN is dropped as unexpected
// (TCPMD5Unexpected). IPv4 and IPv6. Skipped, naming the feature, on
// kernels without VRF devices.
//
// It used to fail in the VM (issue 28) because of the test, not the kernel
// or tcpsock: its dialer signed with a key for its own address (192.0.2.2)
// instead of the listener's (192.0.2.1), so the SYN went out unsigned and the
// listener, which held the scoped key, dropped it as TCPMD5NotFound. Its
// other-VRF half could not have shown anything either: an unsigned SYN is
// what a listener without a key for the VRF accepts.
func TestVRFScopedKey(t *testing.T) {
	requireVRF(t)
	v := newVRFTopo(t, "vrf", true)
	for i, f := range vrfFamilies {
		t.Run(f.name, func(t *testing.T) {
			dst := ap(f.srv, uint16(portVRF+i))
			l := listenEchoDev(t, v.srv, f.network, ap(f.any(), dst.Port()), "blue")
			rc := l.rawConn(t)
			inBlue := md5auth.Key{Prefix: netip.PrefixFrom(f.cli, f.cli.BitLen()), IfIndex: v.blue, Secret: secretA}
			if err := SetKey(rc, inBlue); err != nil {
				t.Fatalf("set VRF-scoped key: %v", err)
			}
			signed := md5auth.AddrKey(f.srv, secretA) // the dialer keys the listener's address
			dialOK(t, v.cli, f.cli, dst, &signed)
			before := counters(t, v.srv)
			if err := dialFails(v.cli, f.cli, dst, nil); err != nil {
				t.Fatalf("unsigned, with the key scoped to the listener's VRF: %v", err)
			}
			checkRose(t, v.srv, before, "TCPMD5NotFound")
			// The same key scoped to another VRF does not apply here.
			if err := DeleteKey(rc, inBlue); err != nil {
				t.Fatal(err)
			}
			inRed := inBlue
			inRed.IfIndex = v.red
			if err := SetKey(rc, inRed); err != nil {
				t.Fatalf("set key scoped to another VRF: %v", err)
			}
			before = counters(t, v.srv)
			if err := dialFails(v.cli, f.cli, dst, &signed); err != nil {
				t.Fatalf("signed, with the key scoped to another VRF: %v", err)
			}
			checkRose(t, v.srv, before, "TCPMD5Unexpected")
		})
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
