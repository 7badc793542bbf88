package capture

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
)

// TestHostsLive: with Options.Hosts the kernel hands the ring only the BGP
// segments of those hosts (IPv4 and IPv6), completely; SetHosts changes
// the set on the open sockets (same sockets, same rings, counters going
// on), and an empty set captures every host again. Through one socket for
// all interfaces (any framing) and through one per interface (Ethernet).
func TestHostsLive(t *testing.T) {
	_, a, b := pair(t)
	netns.Run(t, "ip", "-n", b, "addr", "add", "192.0.2.3/24", "dev", "eth0")
	netns.Run(t, "ip", "-n", b, "addr", "add", "2001:db8::3/64", "dev", "eth0", "nodad")
	two := []netip.Addr{netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("2001:db8::2")}
	three := []netip.Addr{netip.MustParseAddr("192.0.2.3"), netip.MustParseAddr("::ffff:192.0.2.3"), netip.MustParseAddr("2001:db8::3")}
	for _, o := range []Options{{}, {Interfaces: []string{"eth0"}}} {
		t.Run(map[bool]string{true: "all interfaces", false: "eth0"}[len(o.Interfaces) == 0], func(t *testing.T) {
			o.Hosts = three
			c := openIn(t, a, o)
			if got := c.Hosts(); !slices.Equal(got, []netip.Addr{three[0], three[2]}) {
				t.Fatalf("Hosts() = %v", got)
			}
			var st unix.Stat_t
			if err := unix.Fstat(c.rings[0].fd, &st); err != nil {
				t.Fatal(err)
			}
			fd, ino := c.rings[0].fd, st.Ino
			k := collect(c)
			seen := 0
			// round exchanges with .2 and .3 over both families and checks
			// that exactly the conversations with hosts were captured.
			round := func(hosts []netip.Addr, seed int64) {
				t.Helper()
				var in, out []conv
				for _, to := range []string{"192.0.2.2:179", "[2001:db8::2]:179", "192.0.2.3:179", "[2001:db8::3]:179"} {
					cv := exchange(t, a, b, "tcp", to, 5, seed, nil)
					seed++
					if len(hosts) == 0 || slices.Contains(hosts, cv.server.Addr()) {
						in = append(in, cv)
					} else {
						out = append(out, cv)
					}
				}
				time.Sleep(10*testTimeout + 100*time.Millisecond)
				all := k.snapshot()
				recs := all[seen:]
				seen = len(all)
				for _, r := range recs {
					if r.err != nil {
						t.Errorf("undecodable frame: %v", r.err)
						continue
					}
					if len(hosts) > 0 && !slices.Contains(hosts, r.seg.Src) && !slices.Contains(hosts, r.seg.Dst) {
						t.Errorf("hosts %v: captured %v→%v", hosts, r.seg.Src, r.seg.Dst)
					}
				}
				for _, cv := range in {
					if n := checkConv(t, recs, cv); n == 0 {
						t.Errorf("hosts %v: nothing of %v", hosts, cv.server)
					}
				}
				for _, cv := range out {
					for _, r := range recs {
						if r.err == nil && (r.seg.SrcPort == cv.client.Port() || r.seg.DstPort == cv.client.Port()) {
							t.Errorf("hosts %v: a segment of the conversation with %v was captured", hosts, cv.server)
							break
						}
					}
				}
				t.Logf("hosts %v: %d frames", hosts, len(recs))
			}
			round([]netip.Addr{three[0], three[2]}, 1)
			s1, err := c.Stats()
			if err != nil || s1.Packets == 0 {
				t.Fatalf("Stats: %+v, %v", s1, err)
			}
			if err := c.SetHosts(two); err != nil {
				t.Fatalf("SetHosts: %v", err)
			}
			round(two, 10)
			if err := c.SetHosts(nil); err != nil {
				t.Fatalf("SetHosts(nil): %v", err)
			}
			round(nil, 20)
			if err := c.SetHosts(make([]netip.Addr, 1)); err == nil {
				t.Error("SetHosts with the zero Addr: no error")
			}
			s2, err := c.Stats()
			if err != nil || s2.Packets <= s1.Packets {
				t.Errorf("Stats went from %+v to %+v (%v)", s1, s2, err)
			}
			if err := unix.Fstat(fd, &st); err != nil || st.Ino != ino || c.rings[0].fd != fd {
				t.Errorf("the socket changed: fd %d inode %d, was %d %d (%v)", c.rings[0].fd, st.Ino, fd, ino, err)
			}
			k.stop(t)
			if err := c.SetHosts(two); !errors.Is(err, ErrClosed) {
				t.Errorf("SetHosts after Close: %v, want ErrClosed", err)
			}
		})
	}
}
