package vmtest

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/status"
)

// Key management as the kernel's key-management selftest does it, between
// two authbgpd routers: a chain of 32 MKTs of every algorithm and several
// MAC lengths, installed on both, the active key rolled through keys of
// different algorithms by reloads, the far end asking for an old key again
// and again (its RNextKeyID flapping back) — the near end's kernel follows
// and /status says which key is really used — and every key but the last
// removed; the session is never reset.

// kmChain is the 32-key chain, a's view: key i sends with KeyID i and
// receives with 100+i; algorithms and MAC lengths cycle.
func kmChain() []mkt {
	algs := []struct {
		cfg, kernel string
		macLens     []int // mac-length; 0: the name's own 12
	}{
		{"hmac-sha-1-96", "hmac(sha1)", []int{0}},
		{"aes-128-cmac-96", "cmac(aes128)", []int{0}},
		{"hmac-sha-1", "hmac(sha1)", []int{4, 20 - 4}},
		{"aes-128-cmac", "cmac(aes128)", []int{16, 8}},
		{"hmac-sha-224", "hmac(sha224)", []int{12, 14}},
		{"hmac-sha-256", "hmac(sha256)", []int{16, 12}},
		{"hmac-sha-384", "hmac(sha384)", []int{10, 16}},
		{"hmac-sha-512", "hmac(sha512)", []int{16, 6}},
	}
	var ks []mkt
	for i := 1; i <= 32; i++ {
		a := algs[(i-1)%len(algs)]
		ks = append(ks, mkt{id: i, sendID: i, recvID: 100 + i, alg: a.kernel, cfgAlg: a.cfg,
			macLen: a.macLens[(i-1)/len(algs)%len(a.macLens)], secret: fmt.Sprintf("key management key %02d", i)})
	}
	return ks
}

// activeAt returns chain with key id active: it has a send-from in the
// past, key 1 none (earlier than any), every other key one in the far
// future.
func activeAt(chain []mkt, id int) []mkt {
	out := append([]mkt(nil), chain...)
	for i := range out {
		switch {
		case out[i].id == id && id != out[0].id:
			out[i].sendFrom = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		case i == 0:
			out[i].sendFrom = time.Time{}
		default:
			out[i].sendFrom = time.Date(2099, 1, 1, out[i].id, 0, 0, 0, time.UTC)
		}
	}
	return out
}

func (k mkt) String() string {
	return fmt.Sprintf("key %d (%s, %d-byte MAC, KeyIDs %d/%d)", k.id, k.configAlg(), map[bool]int{true: 12, false: k.macLen}[k.macLen == 0], k.sendID, k.recvID)
}

func TestBGPTCPAOKeyManagement(t *testing.T) {
	requireVM(t)
	tp := netns.NewPair(t, "akm",
		netns.End{NS: "a", If: "eth0", Addrs: []string{rtr4.String() + "/24", rtr6.String() + "/64"}},
		netns.End{NS: "b", If: "eth0", Addrs: []string{peer4.String() + "/24", peer6.String() + "/64"}})
	p := &r2rPair{tp: tp, dir: t.TempDir()}
	chain := kmChain()
	v6 := r2r6[:1]
	byID := map[int]mkt{}
	for _, k := range chain {
		byID[k.id] = k
	}
	confs := func(aKey, bKey int) (string, string) {
		return r2rConf(sideA, activeAt(chain, aKey), v6, false), r2rConf(sideB, activeAt(chain, bKey), v6, false)
	}
	ca, cb := confs(1, 1)
	start := p.both(t, ca, cb)
	up := p.waitSession(t, peer4, rtr4, 90*time.Second, "up on key 1 with 32 keys in the chain", keyIs(byID[1]))
	p.oneSession(t, up)
	t.Logf("up on %s with 32 MKTs on both ends %v after the start: %s", byID[1], time.Since(start).Round(10*time.Millisecond), up)
	verified := func(s session) error {
		for _, x := range []*status.Peer{s.a, s.b} {
			if !x.Auth.Installed || x.Auth.Verified != "kernel" {
				return fmt.Errorf("%s: keys installed %v, verified %q (want read back from the kernel)", x.Address, x.Auth.Installed, x.Auth.Verified)
			}
		}
		return nil
	}
	if err := verified(up); err != nil {
		t.Error(err)
	}
	for _, x := range []struct {
		r   *router
		far netip.Addr
	}{{p.a, peer4}, {p.b, rtr4}} {
		if keys := aoKeysOfConn(t, x.r, x.far); keys != 32 {
			t.Errorf("router %s: the session's socket holds %d MKTs, want the chain's 32", x.r.ns, keys)
		}
	}
	marks := []int{len(p.a.log()), len(p.b.log())}

	// Rolled through keys of other algorithms and MAC lengths, both ends
	// reloaded, the same connection throughout.
	for _, id := range []int{6, 13, 24, 32} {
		k := byID[id]
		at := time.Now()
		ca, cb := confs(id, id)
		p.a.reload(t, ca)
		p.b.reload(t, cb)
		now := p.waitSession(t, peer4, rtr4, 40*time.Second, "on "+k.String(), keyIs(k))
		sameSession(t, up, now)
		t.Logf("rolled to %s: both ends on it %v after the reloads, same connection", k, time.Since(at).Round(10*time.Millisecond))
		up = now
	}

	// b asks for an old key again, and back, and again: a's kernel sends
	// with what b asks for while a's own choice (its RNextKeyID, what b
	// sends with) stays; /status says so.
	last := byID[32]
	for i, id := range []int{24, 32, 6, 32} {
		k := byID[id]
		_, cb := confs(1, id)
		p.b.reload(t, cb)
		now := p.waitSession(t, peer4, rtr4, 40*time.Second, fmt.Sprintf("with b asking for %s (flap %d)", k, i+1), func(s session) bool {
			// a: sends with k (b's RNextKeyID), asks for key 32.
			return intIs(s.a.Auth.SendID, k.sendID) && intIs(s.a.Auth.PeerRNextKeyID, k.sendID) && intIs(s.a.Auth.RecvID, last.recvID) &&
				intIs(s.b.Auth.SendID, last.recvID) && intIs(s.b.Auth.RecvID, k.sendID) && intIs(s.b.Auth.KeyID, k.id)
		})
		sameSession(t, up, now)
		t.Logf("b asks for %s: a's kernel sends with KeyID %d (/status send_id %d, peer_rnext_key_id %d), a still asks for KeyID %d; same connection",
			k, k.sendID, *now.a.Auth.SendID, *now.a.Auth.PeerRNextKeyID, *now.a.Auth.RecvID)
		up = now
	}

	// Every key but 32 removed on both; the kernel lets go of them and
	// the session stays.
	only := []mkt{last}
	p.a.reload(t, r2rConf(sideA, only, v6, false))
	p.b.reload(t, r2rConf(sideB, only, v6, false))
	good := func(x *status.Peer) uint64 { return x.Auth.Kernel.Good }
	ga, gb := good(up.a), good(up.b)
	now := p.waitSession(t, peer4, rtr4, 3*holdTime*time.Second, "on key 32 alone", func(s session) bool {
		return keyIs(last)(s) && good(s.a) >= ga+2 && good(s.b) >= gb+2 && verified(s) == nil
	})
	sameSession(t, up, now)
	p.oneSession(t, now)
	for _, x := range []struct {
		r   *router
		far netip.Addr
	}{{p.a, peer4}, {p.b, rtr4}} {
		if keys := aoKeysOfConn(t, x.r, x.far); keys != 1 {
			t.Errorf("router %s: the session's socket holds %d MKTs after 31 were removed, want 1", x.r.ns, keys)
		}
	}
	for j, r := range []*router{p.a, p.b} {
		since := r.log()[marks[j]:]
		for _, bad := range []string{"could not set", "Neighbor reset", "ending it", "Peer Down"} {
			if w := linesWith(since, bad); len(w) > 0 {
				t.Errorf("router %s logged %q during the key changes:\n%s", r.ns, bad, strings.Join(w, "\n"))
			}
		}
	}
	t.Logf("31 keys removed: the session's sockets hold one MKT, same connection %d-%d, uptime %d s", now.a.LocalPort, now.a.RemotePort, now.a.UptimeSeconds)
}

// aoKeysOfConn counts the MKTs on router r's established BGP socket with
// far (its file descriptor borrowed through pidfd_getfd, the keys counted
// with TCP_AO_GET_KEYS get_all); -1 when there is no such socket.
func aoKeysOfConn(t *testing.T, r *router, far netip.Addr) int {
	t.Helper()
	pid := r.cmd.Process.Pid
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(pidfd)
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
		if !strings.HasPrefix(link, "socket:") {
			continue
		}
		var target int
		fmt.Sscan(e.Name(), &target)
		fd, err := unix.PidfdGetfd(pidfd, target, 0)
		if err != nil {
			continue
		}
		n := func() int {
			defer unix.Close(fd)
			sa, err := unix.Getpeername(fd)
			if err != nil {
				return -1
			}
			var peer netip.AddrPort
			switch a := sa.(type) {
			case *unix.SockaddrInet4:
				peer = netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port))
			case *unix.SockaddrInet6:
				peer = netip.AddrPortFrom(netip.AddrFrom16(a.Addr).Unmap(), uint16(a.Port))
			}
			if peer.Addr() != far {
				return -1
			}
			const getLen, room = 304, 64 // struct tcp_ao_getsockopt
			buf := make([]byte, getLen*room)
			defer clear(buf)
			buf[276] = 4 // get_all
			binary.NativeEndian.PutUint32(buf[272:], room)
			// optlen is one struct: it is the kernel's stride between the keys it writes.
			l := uint32(getLen)
			_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, 41, // TCP_AO_GET_KEYS
				uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&l)), 0)
			if e != 0 {
				t.Errorf("TCP_AO_GET_KEYS on %s's socket with %s: %v", r.ns, peer, e)
				return -1
			}
			return int(binary.NativeEndian.Uint32(buf[272:]))
		}()
		if n >= 0 {
			return n
		}
	}
	return -1
}
