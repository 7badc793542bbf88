package vmtest

import (
	"bytes"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/status"
)

// cfgAlgKernel maps every name a keychain's algorithm may have to the
// kernel's name of it, written here independently of package tcpao.
var cfgAlgKernel = []struct{ cfg, kernel string }{
	{"hmac-sha-1-96", "hmac(sha1)"}, {"aes-128-cmac-96", "cmac(aes128)"}, {"hmac-sha-1", "hmac(sha1)"}, {"aes-128-cmac", "cmac(aes128)"},
	{"hmac-sha-224", "hmac(sha224)"}, {"hmac-sha-256", "hmac(sha256)"}, {"hmac-sha-384", "hmac(sha384)"}, {"hmac-sha-512", "hmac(sha512)"},
}

// TestStatusTCPAOAlgorithms: the daemon in the guest lists in /status
// (kernel.tcp_ao_algorithms) exactly the config names whose algorithm the
// guest's kernel takes, as this test finds by adding a key of each to a
// throwaway socket itself (the oracle; every one of them with the guest's
// vm/kernel.config), none as missing, and the kernel's release; `authbgpd
// status` prints them; a TCP-AO peer with a key of every algorithm has them
// all installed and is not held down.
func TestStatusTCPAOAlgorithms(t *testing.T) {
	requireVM(t)
	var want []string
	for _, a := range cfgAlgKernel {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = addAOKey(fd, aoKey{peer: netip.MustParseAddr("198.51.100.9"), prefix: 32, alg: a.kernel, sndID: 1, rcvID: 1, secret: []byte("oracle")})
		unix.Close(fd)
		if err == nil {
			want = append(want, a.cfg)
		} else {
			t.Logf("the guest's kernel refuses %s: %v", a.kernel, err)
		}
	}
	if len(want) != len(cfgAlgKernel) {
		t.Errorf("vm/kernel.config builds in HMAC, SHA1, SHA256, SHA512, CMAC and AES: every algorithm, but the kernel takes %v", want)
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	release := string(bytes.TrimRight(u.Release[:], "\x00"))

	tp := netns.NewPair(t, "algs",
		netns.End{NS: "r", If: "eth0", Addrs: []string{rtr4.String() + "/24"}},
		netns.End{NS: "p", If: "eth0", Addrs: []string{peer4.String() + "/24"}})
	var keys []mkt
	from := time.Now().Add(time.Hour)
	for i, a := range []string{"hmac-sha-1", "aes-128-cmac", "hmac-sha-224", "hmac-sha-256", "hmac-sha-384", "hmac-sha-512"} {
		k := mkt{id: i + 1, sendID: i + 1, recvID: i + 1, secret: fmt.Sprintf("algs-key-%d", i+1), cfgAlg: a}
		if i > 0 {
			k.sendFrom = from.Add(time.Duration(i) * time.Hour)
		}
		keys = append(keys, k)
	}
	conf := fmt.Sprintf("[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q]\n\n[api]\ngrpc = \"\"\nhttp = %q\n", asRouter, rtr4, rtr4, routerHTTP) +
		keychainTOML("all", keys...) +
		fmt.Sprintf("\n[[peers]]\naddress = %q\nasn = %d\nkeychain = \"all\"\npassive = true\n", peer4, asPeer)
	r := startRouter(t, tp.Topology, tp.A, conf)

	st, err := r.status()
	if err != nil {
		t.Fatal(err)
	}
	k := st.Kernel
	if k == nil || !slices.Equal(k.TCPAOAlgorithms, want) || k.TCPAOAlgorithmsMissing != nil || k.TCPAOAlgorithmsError != "" || k.Release != release {
		t.Fatalf("/status kernel: %+v; want algorithms %v, release %s", k, want, release)
	}
	t.Logf("/status kernel: release %s, tcp_ao_algorithms %v", k.Release, k.TCPAOAlgorithms)
	p := r.waitPeer(t, peer4.String(), 10*time.Second, "keyed", func(p *status.Peer) bool { return p.Auth.Installed })
	if p.State == "admin-down" || p.Auth.Error != "" {
		t.Errorf("a peer with a key of every algorithm: %s", peerString(p))
	}
	out, err := netns.Exec(tp.A, r.bin, "status", "--api", routerHTTP).CombinedOutput()
	if line := "kernel " + release + " TCP-AO algorithms: " + strings.Join(want, ", "); err != nil || !strings.Contains(string(out), line+"\n") {
		t.Errorf("authbgpd status: %v, want the line %q:\n%s", err, line, out)
	}
	if !strings.Contains(r.log(), "kernel TCP-AO algorithms") {
		t.Error("the start-up log does not say which algorithms the kernel offers")
	}
}
