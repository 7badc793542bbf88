package vmtest

import (
	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/tcpsock"
)

// TestTCPAOKeysReadBack: what tcpsock reads back from the kernel
// (TCP_AO_GET_KEYS) matches the MKTs it installed, for both algorithms,
// an AES-128-CMAC secret of 16 bytes and one of another length (the kernel
// keeps the key RFC 5926 derives from it), and the exclude-options flag;
// so syncing the same set again changes nothing on the listener (a key
// deleted and added again would move in the kernel's list, and would leave
// the scope keyless in between).
func TestTCPAOKeysReadBack(t *testing.T) {
	requireVM(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	scope := netip.MustParsePrefix("198.51.100.0/24")
	set := tcpsock.AOSet{Prefix: scope, Current: -1, RNext: -1, Keys: []tcpsock.AOKey{
		{Prefix: scope, Alg: tcpsock.AOAlgAESCMAC, Secret: keys.Secret("0123456789abcdef"), SendID: 1, RecvID: 1},
		{Prefix: scope, Alg: tcpsock.AOAlgAESCMAC, Secret: keys.Secret("a twenty byte secret"), SendID: 2, RecvID: 2},
		{Prefix: scope, Alg: tcpsock.AOAlgHMACSHA1, Secret: keys.Secret("hmac-sha-1-96 secret"), SendID: 3, RecvID: 30},
		{Prefix: scope, Alg: tcpsock.AOAlgHMACSHA1, Secret: keys.Secret("no options"), SendID: 4, RecvID: 40, ExcludeOptions: true},
	}}
	var ps tcpsock.ProcessSockets
	observe := func() []tcpsock.ObservedAOKey {
		t.Helper()
		socks, err := ps.Scan(port).ObserveAO()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range socks {
			if s.Listening && s.Local.Port() == port {
				return s.KeysFor(scope)
			}
		}
		t.Fatalf("ObserveAO(%d): no listener with keys for %s in %d sockets", port, scope, len(socks))
		return nil
	}
	order := func(keys []tcpsock.ObservedAOKey) string {
		var s string
		for _, k := range keys {
			s += fmt.Sprintf("%d/%d ", k.SendID, k.RecvID)
		}
		return s
	}
	if n, err := ps.Scan(port).SetListenerAO(set); err != nil || n != 1 {
		t.Fatalf("SetListenerAO: %d listeners, %v", n, err)
	}
	first := observe()
	if len(first) != len(set.Keys) {
		t.Fatalf("the listener holds %d keys for %s, want %d", len(first), scope, len(set.Keys))
	}
	for _, k := range set.Keys {
		found := false
		for _, o := range first {
			if o.SendID == k.SendID {
				found = true
				t.Logf("%s: the kernel reports %q, %d-byte key, exclude-options %v", k, o.Alg, len(o.Secret), o.ExcludeOptions)
				if !o.Matches(k) {
					t.Errorf("%s: the key read back does not match the key installed (algorithm %q, want %q)", k, o.Alg, k.Alg)
				}
			}
		}
		if !found {
			t.Errorf("%s: not on the listener", k)
		}
	}
	for i := 0; i < 2; i++ {
		if _, err := ps.Scan(port).SetListenerAO(set); err != nil {
			t.Fatalf("SetListenerAO again: %v", err)
		}
	}
	if a, b := order(first), order(observe()); a != b {
		t.Errorf("syncing the same keys again changed the listener's keys: %s-> %s(keys deleted and added again)", a, b)
	}
}

// TestTCPAOKeysReadBackMany: a listener holding more MKTs than tcpsock's
// first read has room for (64: every key of every peer is on it) is read
// back whole — a list cut short would look to the reconciler like keys
// missing, and it would install them again on every pass.
func TestTCPAOKeysReadBackMany(t *testing.T) {
	requireVM(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	var ps tcpsock.ProcessSockets
	const peers, perPeer = 50, 3
	for i := 1; i <= peers; i++ {
		scope := netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 51, 100, byte(i)}), 32)
		set := tcpsock.AOSet{Prefix: scope, Current: -1, RNext: -1}
		for k := 1; k <= perPeer; k++ {
			set.Keys = append(set.Keys, tcpsock.AOKey{Prefix: scope, Alg: tcpsock.AOAlgHMACSHA1,
				Secret: keys.Secret(fmt.Sprintf("peer %d key %d", i, k)), SendID: uint8(k), RecvID: uint8(k)})
		}
		if _, err := ps.Scan(port).SetListenerAO(set); err != nil {
			t.Fatalf("SetListenerAO %s: %v", scope, err)
		}
	}
	socks, err := ps.Scan(port).ObserveAO()
	if err != nil {
		t.Fatal(err)
	}
	defer tcpsock.WipeAO(socks)
	for _, s := range socks {
		if s.Listening && s.Local.Port() == port {
			if len(s.Keys) != peers*perPeer {
				t.Fatalf("read back %d MKTs from the listener, want %d", len(s.Keys), peers*perPeer)
			}
			t.Logf("read back all %d MKTs of %d peers from one listener", len(s.Keys), peers)
			return
		}
	}
	t.Fatal("no listener with keys")
}
