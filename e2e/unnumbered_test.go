//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/status"
)

// Interface ("unnumbered") peers against real peers (issue 28, item 4):
//
//   - TestUnnumberedFRR: one authbgpd router with two interface peers, eth1
//     and eth2, each to an FRR (zebra and bgpd, `neighbor eth1 interface`)
//     whose end of the link has the SAME link-local address fe80::2, with a
//     different TCP-MD5 key per link. Each comes up with its own key (both
//     ends say Established, tcpdump -M verifies each link's segments with
//     that link's key and with no other), routes arrive both ways; then
//     the second FRR signs with the first link's key: that session must
//     not come up, the first stays up, and the shadow checker diagnoses
//     bad-digest for the second peer only.
//   - TestUnnumberedTwoAuthbgpd: two authbgpd routers on a bare veth (no
//     address configured, nothing else running) find each other by their
//     router advertisements and come up over TCP-MD5.
//   - TestContainerFabric: e2e/clab/fabric.clab.yml (two FRR leaves, one
//     authbgpd spine, unnumbered, TCP-MD5) run as podman containers, as
//     TestContainerLabs runs the other labs; TestClabFabric (clab_test.go)
//     runs the same files on bare namespaces.
//   - TestClabInterfacePasswords: in every lab, an FRR `neighbor IF
//     password PW` and the authbgpd peer on the other end of IF's link hold
//     the same key (checkFRRPasswords only pairs numbered neighbors).

// unLL is the link-local address both FRR ends use in TestUnnumberedFRR.
const unLL = "fe80::2"

// ---------------------------------------------------------------- FRR with zebra

// startFRRZebra runs FRR's zebra and bgpd in ns, zebra with zebraConf and
// bgpd with bgpdConf (config texts), or, when either is "", both with the
// file conf (zebra without its password lines), and waits for both vty sockets. Interface neighbors need
// zebra: it knows the interfaces and sends and reads the router
// advertisements through which bgpd learns the far end's link-local
// address. bgpd stays root (-S); zebra drops to the frr user, so its
// directory (vty sockets, zserv socket, its own copy of the config) is
// owned by frr, made outside t.TempDir (whose parent frr cannot enter).
func startFRRZebra(t testing.TB, tp *netns.Topology, ns, name, zebraConf, bgpdConf, conf string) *FRR {
	t.Helper()
	zebra := testenv.RequireBinary(t, "zebra", "/usr/lib/frr")
	bgpd := testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "vtysh")
	u, err := user.Lookup("frr")
	if err != nil {
		testenv.Skip(t, "no frr user (Debian's frr package makes it): "+err.Error())
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir, err := os.MkdirTemp("", "abgp-frr-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	zPath, bPath := filepath.Join(dir, "zebra.conf"), filepath.Join(dir, "bgpd.conf")
	if zebraConf == "" || bgpdConf == "" {
		b, err := os.ReadFile(conf)
		if err != nil {
			t.Fatal(err)
		}
		// zebra gets the file without its password lines: it logs every
		// line it does not know (router bgp's), and its log is printed
		// when the test fails.
		zebraConf = frrPasswordLineRE.ReplaceAllString(string(b), "")
		bgpdConf, bPath = "", conf // bgpd (root) reads the file itself
	}
	if err := os.WriteFile(zPath, []byte(zebraConf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(zPath, uid, gid); err != nil {
		t.Fatal(err)
	}
	if bgpdConf != "" {
		if err := os.WriteFile(bPath, []byte(bgpdConf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	zserv := filepath.Join(dir, "zserv.api")
	zd := startDaemon(t, tp, ns, "zebra-"+name, dir, nil, zebra,
		"-f", zPath, "-i", filepath.Join(dir, "zebra.pid"), "-z", zserv,
		"--vty_socket", dir, "-P", "0", "--log", "stdout")
	zd.waitReady(t, "zebra vty socket", func() error {
		if zd.cmd.ProcessState != nil {
			return errors.New("exited")
		}
		_, err := zd.run(context.Background(), "vtysh", "--vty_socket", dir, "-d", "zebra", "-c", "show version")
		return err
	})
	d := startDaemon(t, tp, ns, "frr-"+name, dir, nil, bgpd,
		"-S", "-P", "0", "-z", zserv, "-f", bPath, "-i", filepath.Join(dir, "bgpd.pid"),
		"--vty_socket", dir, "--log", "stdout")
	f := &FRR{daemon: d, Bin: bgpd}
	f.waitVty(t)
	return f
}

var frrPasswordLineRE = regexp.MustCompile(`(?m)^\s*neighbor \S+ password .*\n`)

// unZebraConf is zebra's config for an interface neighbor on ifname:
// router advertisements every 3 s (FRR's bgpd turns them on for interface
// neighbors anyway; this makes the first ones quick).
func unZebraConf(host, ifname string) string {
	return fmt.Sprintf("hostname %s\nlog stdout informational\n!\ninterface %s\n ipv6 nd ra-interval 3\n no ipv6 nd suppress-ra\n!\n", host, ifname)
}

// unBgpdConf is bgpd's config: one interface neighbor on ifname
// (remote-as external) with a TCP-MD5 password, IPv4 and IPv6 unicast,
// announcing nets.
func unBgpdConf(host string, asn uint32, rid, ifname, password string, nets ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "frr defaults datacenter\nhostname %s\nlog stdout informational\n!\n", host)
	fmt.Fprintf(&b, "router bgp %d\n bgp router-id %s\n no bgp ebgp-requires-policy\n no bgp network import-check\n", asn, rid)
	fmt.Fprintf(&b, " neighbor %s interface remote-as external\n neighbor %s password %s\n neighbor %s timers connect %d\n", ifname, ifname, password, ifname, connectRetry)
	for _, fam := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, " address-family %s unicast\n  neighbor %s activate\n", fam, ifname)
		for _, n := range nets {
			if strings.Contains(n, ":") == (fam == "ipv6") {
				fmt.Fprintf(&b, "  network %s\n", n)
			}
		}
		b.WriteString(" exit-address-family\n")
	}
	b.WriteString("!\n")
	return b.String()
}

// ifNeighbor is bgpd's `show bgp neighbors IF json` entry of an interface
// neighbor.
func (f *FRR) ifNeighbor(ifname string) (map[string]any, error) {
	out, err := f.Vtysh(context.Background(), "show bgp neighbors "+ifname+" json")
	if err != nil {
		return nil, err
	}
	var m map[string]map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return nil, fmt.Errorf("%s: show bgp neighbors %s json: %w: %q", f.name, ifname, err, tail(out, 200))
	}
	n, ok := m[ifname]
	if !ok {
		return nil, fmt.Errorf("%s: no neighbor %s in %q", f.name, ifname, tail(out, 200))
	}
	return n, nil
}

// ifState is the session state (lower case) of the interface neighbor and
// the far end's address bgpd learnt ("none" before it has one).
func (f *FRR) ifState(ifname string) (state, addr string, err error) {
	n, err := f.ifNeighbor(ifname)
	if err != nil {
		return "", "", err
	}
	s, _ := n["bgpState"].(string)
	a, _ := n["bgpNeighborAddr"].(string)
	return strings.ToLower(s), a, nil
}

// ifAccepted is the number of prefixes of family afKey ("ipv6Unicast",
// "ipv4Unicast") bgpd accepted from the interface neighbor.
func (f *FRR) ifAccepted(ifname, afKey string) (int, error) {
	n, err := f.ifNeighbor(ifname)
	if err != nil {
		return 0, err
	}
	afs, _ := n["addressFamilyInfo"].(map[string]any)
	af, _ := afs[afKey].(map[string]any)
	c, _ := af["acceptedPrefixCounter"].(float64)
	return int(c), nil
}

var ndCountsRE = regexp.MustCompile(`ND router advertisements sent: (\d+) rcvd: (\d+)`)

// raCounts are zebra's router advertisement counts on ifname: sent, and
// received (from the far end: authbgpd's ndp).
func (f *FRR) raCounts(ifname string) (sent, rcvd int, err error) {
	out, err := f.run(context.Background(), "vtysh", "--vty_socket", f.dir, "-d", "zebra", "-c", "show interface "+ifname)
	if err != nil {
		return 0, 0, err
	}
	m := ndCountsRE.FindStringSubmatch(string(out))
	if m == nil {
		return 0, 0, fmt.Errorf("%s: no ND counts in show interface %s: %q", f.name, ifname, tail(string(out), 300))
	}
	sent, _ = strconv.Atoi(m[1])
	rcvd, _ = strconv.Atoi(m[2])
	return sent, rcvd, nil
}

// debugUpdates turns on bgpd's UPDATE debugging (into its log, printed
// when the test fails): it says why a route is DENIED (a martian next
// hop, ...).
func (f *FRR) debugUpdates(t testing.TB) {
	t.Helper()
	if out, err := f.Vtysh(context.Background(), "debug bgp updates in"); err != nil {
		t.Fatalf("%s: debug bgp updates in: %v: %s", f.name, err, out)
	}
}

// setIfPassword gives bgpd's interface neighbor another TCP-MD5 password
// (FRR resets the session). The commands go through a file, so the secret
// is on no command line and in no error message.
func (f *FRR) setIfPassword(t testing.TB, asn uint32, ifname, password string) {
	t.Helper()
	file := filepath.Join(f.dir, "rekey.vtysh")
	// vtysh -f reads the file as config: it starts in configure mode.
	cmds := fmt.Sprintf("router bgp %d\n neighbor %s password %s\n", asn, ifname, password)
	if err := os.WriteFile(file, []byte(cmds), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(file)
	out, err := f.run(context.Background(), "vtysh", "--vty_socket", f.dir, "-d", "bgpd", "-f", file)
	if err != nil || strings.Contains(string(out), "%") {
		msg := strings.ReplaceAll(fmt.Sprintf("%v: %s", err, out), password, "<password>")
		t.Fatalf("%s: vtysh -f (neighbor %s password): %s", f.name, ifname, msg)
	}
}

// ---------------------------------------------------------------- authbgpd side

// ifPeerTOML is a [[peers]] entry for the interface peer on ifname, its
// TCP-MD5 key from file.
func ifPeerTOML(ifname string, asn uint32, file string) string {
	return fmt.Sprintf("\n[[peers]]\ninterface = %q\nasn = %d\npassword-file = %q\n", ifname, asn, file)
}

// unConfig is an authbgpd config (AS asn, router ID rid, the harness's API
// addresses, the shadow checker on) with the interface peers peers.
func unConfig(asn uint32, rid string, peers ...string) string {
	return abConf{ASN: asn, RouterID: rid, Extra: shadowSection(false), Tail: strings.Join(peers, "")}.String()
}

// ifPeer is the /status entry of the interface peer on ifname (nil when
// absent).
func ifPeer(st *status.Status, ifname string) *status.Peer {
	for i := range st.Peers {
		if st.Peers[i].Interface == ifname {
			return &st.Peers[i]
		}
	}
	return nil
}

// ifPeerString is peerString with the interface and the learnt address.
func ifPeerString(p *status.Peer) string {
	if p == nil {
		return "<absent>"
	}
	s := fmt.Sprintf("interface %q address %q %s", p.Interface, p.Address, peerString(p))
	if p.LastError != nil {
		s += fmt.Sprintf(" last_error %q", p.LastError.Reason)
	}
	return s
}

// waitIfPeer polls a's /status (for up to d) until the interface peer on
// ifname satisfies ok, and returns it; it fails t with the last entry (and
// the router's log) otherwise.
func waitIfPeer(t testing.TB, a *Authbgpd, ifname string, d time.Duration, what string, ok func(*status.Peer) bool) *status.Peer {
	t.Helper()
	var p *status.Peer
	err := poll(d, func() error {
		st, err := a.TryStatus()
		if err != nil {
			return err
		}
		p = ifPeer(st, ifname)
		if p != nil && ok(p) {
			return nil
		}
		return errors.New(ifPeerString(p))
	})
	if err != nil {
		t.Fatalf("/status interface peer %s: not %s within %v; last: %v", ifname, what, d, err)
	}
	return p
}

func ifEstablished(p *status.Peer) bool { return p.State == Established }

// linkLocal is the (one) link-local address of ifname in ns.
func linkLocal(t testing.TB, ns, ifname string) string {
	t.Helper()
	out := netns.Run(t, "ip", "-n", ns, "-6", "-j", "addr", "show", "dev", ifname, "scope", "link")
	var ifs []struct {
		AddrInfo []struct {
			Local string `json:"local"`
		} `json:"addr_info"`
	}
	if err := json.Unmarshal([]byte(out), &ifs); err != nil || len(ifs) != 1 || len(ifs[0].AddrInfo) != 1 {
		t.Fatalf("%s: want one link-local address on %s: %v: %s", ns, ifname, err, out)
	}
	return ifs[0].AddrInfo[0].Local
}

// onlyLinkLocal leaves addr as the only link-local address of ifname in
// ns (the namespace's addr_gen_mode = none already kept the kernel from
// making its EUI-64 one; any left is removed).
func onlyLinkLocal(t testing.TB, ns, ifname, addr string) {
	t.Helper()
	netns.Run(t, "ip", "-n", ns, "-6", "addr", "add", addr+"/64", "dev", ifname, "nodad")
	out := netns.Run(t, "ip", "-n", ns, "-6", "-j", "addr", "show", "dev", ifname, "scope", "link")
	var ifs []struct {
		AddrInfo []struct {
			Local     string `json:"local"`
			PrefixLen int    `json:"prefixlen"`
		} `json:"addr_info"`
	}
	if err := json.Unmarshal([]byte(out), &ifs); err != nil {
		t.Fatal(err)
	}
	for _, i := range ifs {
		for _, a := range i.AddrInfo {
			if a.Local != addr {
				netns.Run(t, "ip", "-n", ns, "-6", "addr", "del", fmt.Sprintf("%s/%d", a.Local, a.PrefixLen), "dev", ifname)
			}
		}
	}
	if got := linkLocal(t, ns, ifname); got != addr {
		t.Fatalf("%s: %s has link-local %s, want %s only", ns, ifname, got, addr)
	}
}

// waitRouterNeighbor waits until ns's neighbor table has addr on ifname as
// a router: what a router advertisement from addr leaves there, and what
// GoBGP's neighbor-interface (and ndp.Resolve) read.
func waitRouterNeighbor(t testing.TB, ns, ifname, addr string, d time.Duration) {
	t.Helper()
	waitFor(t, d, fmt.Sprintf("%s: router advertisement from %s on %s (neighbor table)", ns, addr, ifname), func() error {
		out, err := netns.Exec(ns, "ip", "-6", "neigh", "show", "dev", ifname).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == addr && strings.Contains(l, " router") {
				return nil
			}
		}
		return fmt.Errorf("ip -6 neigh show dev %s: %q", ifname, strings.TrimSpace(string(out)))
	})
}

// statusText is `authbgpd status` (the table) of the router in ns.
func statusText(t testing.TB, ns string, args ...string) string {
	t.Helper()
	argv := append([]string{authbgpdBinary(t, ""), "status", "--api", AuthbgpdHTTP}, args...)
	out, err := netns.Exec(ns, argv...).CombinedOutput()
	if err != nil {
		t.Errorf("authbgpd status %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ribHas reports whether a's global RIB (family fam) has prefix.
func ribHas(a *Authbgpd, fam, prefix string) (bool, error) {
	out, err := cli(a, "global", "rib", "-a", fam, prefix, "-j")
	if err != nil {
		return false, err
	}
	return strings.Contains(out, prefix), nil
}

// ---------------------------------------------------------------- tcpdump -M per link

var tdLengthRE = regexp.MustCompile(`\blength (\d+)`)

// checkLinkMD5 checks one link's capture with tcpdump -M: under the
// link's key (own) every signed segment is valid, in both directions, SYNs
// and BGP messages among them, and no BGP message goes unsigned; under the
// other link's key (other) not one segment is valid. farEnd is the address
// of the far end (its segments are told apart by their source).
func checkLinkMD5(t *testing.T, link, file, farEnd, own, other string) {
	t.Helper()
	type dirCount struct{ valid, invalid, unsigned, unsignedData, data int }
	count := func(key string) map[string]*dirCount {
		c := map[string]*dirCount{"from " + farEnd: {}, "to " + farEnd: {}}
		for _, p := range tcpdumpVerdicts(t, file, key) {
			dir := "to " + farEnd
			if strings.HasPrefix(p.src, farEnd+".") {
				dir = "from " + farEnd
			}
			d := c[dir]
			payload := 0
			if m := tdLengthRE.FindAllStringSubmatch(p.text, -1); m != nil {
				payload, _ = strconv.Atoi(m[len(m)-1][1])
			}
			if p.other != "" {
				t.Errorf("%s: tcpdump could not check a segment %s > %s: %q", link, p.src, p.dst, p.other)
			}
			switch p.verdict {
			case md5auth.Valid:
				d.valid++
				if payload > 0 {
					d.data++
				}
			case md5auth.Invalid:
				d.invalid++
			default:
				d.unsigned++
				if payload > 0 {
					d.unsignedData++
				}
			}
		}
		return c
	}
	mine, theirs := count(own), count(other)
	for dir, d := range mine {
		t.Logf("%s %s: under the link's key %d valid (%d with BGP data), %d invalid, %d unsigned; under the other link's key %d valid",
			link, dir, d.valid, d.data, d.invalid, d.unsigned, theirs[dir].valid)
		switch {
		case d.valid < 3 || d.data < 1:
			t.Errorf("%s %s: %d segments valid under the link's key (%d with BGP data): want >= 3 and >= 1", link, dir, d.valid, d.data)
		case d.invalid != 0:
			t.Errorf("%s %s: %d signed segments do not verify with the link's key", link, dir, d.invalid)
		}
		if d.unsignedData != 0 {
			t.Errorf("%s %s: %d BGP segments without a TCP-MD5 signature", link, dir, d.unsignedData)
		}
		if theirs[dir].valid != 0 {
			t.Errorf("%s %s: %d segments verify with the OTHER link's key", link, dir, theirs[dir].valid)
		}
	}
}

// ---------------------------------------------------------------- TestUnnumberedFRR

// TestUnnumberedFRR: authbgpd (ns r) has interface peers on eth1 and eth2;
// behind each is an FRR (f1, f2) whose end of the link is fe80::2 and
// nothing else, each with its own TCP-MD5 key:
//
//	f1 (AS 65011) eth1 fe80::2 ── eth1 r (authbgpd, AS 65001) eth2 ── fe80::2 eth1 f2 (AS 65012)
//
// Then f2 signs with f1's key (the one key that would verify if authbgpd
// scoped keys by address alone): f2's session stays down, f1's stays up,
// and the shadow checker says bad-digest for the peer on eth2 only.
func TestUnnumberedFRR(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "tcpdump")
	testenv.RequireBinary(t, "gobgp")
	testenv.RequireBinary(t, "zebra", "/usr/lib/frr")
	t.Parallel()
	start := time.Now()
	tp := netns.New(t, "unfrr")
	nsR, nsF1, nsF2 := tp.Add("r"), tp.Add("f1"), tp.Add("f2")
	for _, ns := range []string{nsF1, nsF2} {
		// No EUI-64 link-local address on the FRR ends: fe80::2 only.
		netns.Run(t, "ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.addr_gen_mode=1", "net.ipv6.conf.default.addr_gen_mode=1")
	}
	tp.Link(nsR, "eth1", nil, nsF1, "eth1", nil)
	tp.Link(nsR, "eth2", nil, nsF2, "eth1", nil)
	onlyLinkLocal(t, nsF1, "eth1", unLL)
	onlyLinkLocal(t, nsF2, "eth1", unLL)
	rLL := map[string]string{"eth1": linkLocal(t, nsR, "eth1"), "eth2": linkLocal(t, nsR, "eth2")}
	t.Logf("r: eth1 %s, eth2 %s; f1 and f2: %s", rLL["eth1"], rLL["eth2"], unLL)

	key1, key2 := newSecret("un-eth1"), newSecret("un-eth2")
	dir := t.TempDir()
	cap1 := startTcpdump(t, tp, nsR, filepath.Join(dir, "eth1.pcap"), "-i", "eth1", "--immediate-mode")
	cap2 := startTcpdump(t, tp, nsR, filepath.Join(dir, "eth2.pcap"), "-i", "eth2", "--immediate-mode")

	// FRR first: its router advertisements put fe80::2 into r's neighbor
	// table on both links before authbgpd starts.
	f1 := startFRRZebra(t, tp, nsF1, "f1", unZebraConf("f1", "eth1"),
		unBgpdConf("f1", 65011, "192.0.2.11", "eth1", key1, "203.0.113.0/26", "2001:db8:11::/48"), "")
	f2 := startFRRZebra(t, tp, nsF2, "f2", unZebraConf("f2", "eth1"),
		unBgpdConf("f2", 65012, "192.0.2.12", "eth1", key2, "203.0.113.64/26", "2001:db8:12::/48"), "")
	f1.debugUpdates(t)
	f2.debugUpdates(t)
	waitRouterNeighbor(t, nsR, "eth1", unLL, 15*time.Second)
	waitRouterNeighbor(t, nsR, "eth2", unLL, 15*time.Second)
	t.Logf("FRR up, its router advertisements in r's neighbor table on eth1 and eth2 after %v", time.Since(start).Round(time.Millisecond))

	a := StartAuthbgpd(t, tp, nsR, unConfig(65001, "192.0.2.1",
		ifPeerTOML("eth1", 65011, "eth1.key"), ifPeerTOML("eth2", 65012, "eth2.key")),
		AuthbgpdOptions{Files: map[string]string{"eth1.key": key1 + "\n", "eth2.key": key2 + "\n"}})
	announce(t, a, "2001:db8:100::/48")
	aStart := time.Now()

	frrs := map[string]*FRR{"eth1": f1, "eth2": f2}
	for _, ifname := range []string{"eth1", "eth2"} {
		p := waitIfPeer(t, a, ifname, 60*time.Second, "established", ifEstablished)
		if want := unLL + "%" + ifname; p.Address != want {
			t.Errorf("/status interface peer %s: address %q, want the learnt %q", ifname, p.Address, want)
		}
		requireAuth(t, p, "password-file", true)
	}
	t.Logf("both interface peers established %v after authbgpd started", time.Since(aStart).Round(time.Millisecond))
	for ifname, f := range frrs {
		var state, addr string
		waitFor(t, 15*time.Second, f.name+": neighbor eth1 Established", func() error {
			var err error
			state, addr, err = f.ifState("eth1")
			if err == nil && state != Established {
				err = fmt.Errorf("state %q, neighbor address %q", state, addr)
			}
			return err
		})
		if addr != rLL[ifname] {
			t.Errorf("%s: neighbor eth1's address %q, want authbgpd's link-local %s on %s", f.name, addr, rLL[ifname], ifname)
		}
		if sent, rcvd, err := f.raCounts("eth1"); err != nil {
			t.Error(err)
		} else {
			t.Logf("%s zebra: router advertisements sent %d, received %d (authbgpd's)", f.name, sent, rcvd)
			if rcvd == 0 {
				t.Errorf("%s: zebra received no router advertisement from authbgpd on its link", f.name)
			}
		}
	}

	// Routes: each FRR's arrive at authbgpd, and authbgpd's at both (all
	// polled together, 15 s in all).
	routes := []struct{ fam, prefix, from string }{
		{"ipv6", "2001:db8:11::/48", "f1"}, {"ipv6", "2001:db8:12::/48", "f2"},
		{"ipv4", "203.0.113.0/26", "f1"}, {"ipv4", "203.0.113.64/26", "f2"},
	}
	inRIB := make([]bool, len(routes))
	atFRR := map[string]bool{}
	var lastErr error
	_ = poll(15*time.Second, func() error {
		done := true
		for i, r := range routes {
			if !inRIB[i] {
				inRIB[i], lastErr = ribHas(a, r.fam, r.prefix)
				done = done && inRIB[i]
			}
		}
		for _, f := range frrs {
			if !atFRR[f.name] {
				n, err := f.ifAccepted("eth1", "ipv6Unicast")
				if err != nil {
					lastErr = err
				}
				atFRR[f.name] = n >= 1
				done = done && atFRR[f.name]
			}
		}
		return holds(done)
	})
	for i, r := range routes {
		if !inRIB[i] {
			t.Errorf("authbgpd's RIB: no %s from %s within 15 s (last error: %v)", r.prefix, r.from, lastErr)
		}
	}
	for _, f := range frrs {
		if !atFRR[f.name] {
			t.Errorf("%s: accepted no IPv6 prefix (2001:db8:100::/48) from authbgpd within 15 s (its log says why with the test's failure)", f.name)
		}
	}

	// The shadow checker: each peer verifies with its own key.
	for _, ifname := range []string{"eth1", "eth2"} {
		p := waitIfPeer(t, a, ifname, 15*time.Second, "shadow ok with valid segments", func(p *status.Peer) bool {
			return p.Shadow != nil && p.Shadow.Diagnosis == "ok" && p.Shadow.Segments.Valid > 0
		})
		t.Logf("r /status %s", ifPeerString(p))
	}

	// tcpdump -M: each link's segments verify with that link's key only.
	cap1.stop(t)
	cap2.stop(t)
	checkLinkMD5(t, "eth1", cap1.file, unLL, key1, key2)
	checkLinkMD5(t, "eth2", cap2.file, unLL, key2, key1)
	t.Logf("up phase done after %v", time.Since(start).Round(time.Millisecond))

	// f2 now signs with f1's key. Keys scoped by address alone would
	// take it (same address, a key we hold): it must not come up.
	st := a.Status()
	before := ifPeer(&st, "eth1")
	if before == nil || before.Shadow == nil {
		t.Fatalf("eth1: %s", ifPeerString(before))
	}
	badBefore := before.Shadow.Segments.BadDigest
	wrongAt := time.Now()
	f2.setIfPassword(t, 65012, "eth1", key1)
	waitIfPeer(t, a, "eth2", 20*time.Second, "out of Established after f2's key change", func(p *status.Peer) bool { return p.State != Established })
	window := 12 * time.Second
	for deadline := time.Now().Add(window); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		st, err := a.TryStatus()
		if err != nil {
			t.Fatal(err)
		}
		if p := ifPeer(st, "eth2"); p != nil && p.State == Established {
			t.Errorf("eth2: established %v after f2 switched to eth1's key: the key of one interface let the other's peer in: %s",
				time.Since(wrongAt).Round(time.Millisecond), ifPeerString(p))
			break
		}
		if p := ifPeer(st, "eth1"); p == nil || p.State != Established {
			t.Errorf("eth1: left Established while only f2's key changed: %s", ifPeerString(p))
			break
		}
		if s, _, err := f2.ifState("eth1"); err == nil && s == Established {
			t.Errorf("f2: session Established with eth1's key")
			break
		}
	}
	p2 := waitIfPeer(t, a, "eth2", 20*time.Second, "diagnosis bad-digest", func(p *status.Peer) bool {
		return p.Shadow != nil && p.Shadow.Diagnosis == "bad-digest"
	})
	st = a.Status()
	p1 := ifPeer(&st, "eth1")
	t.Logf("after f2 signs with eth1's key: r /status\n  %s\n  %s", ifPeerString(p1), ifPeerString(p2))
	if p1 == nil || p1.State != Established || p1.Shadow == nil || p1.Shadow.Diagnosis != "ok" {
		t.Errorf("eth1: want established, diagnosis ok: %s", ifPeerString(p1))
	} else {
		if p1.Shadow.Segments.BadDigest != badBefore {
			t.Errorf("eth1: bad_digest %d -> %d: eth2's segments were counted for the eth1 peer", badBefore, p1.Shadow.Segments.BadDigest)
		}
		if el := int64(time.Since(wrongAt).Seconds()); p1.UptimeSeconds < before.UptimeSeconds+el-2 {
			t.Errorf("eth1: uptime %d s, was %d s %d s ago: its session was reset", p1.UptimeSeconds, before.UptimeSeconds, el)
		}
	}
	t.Logf("authbgpd status:\n%s", statusText(t, nsR))
	assertNoSecrets(t, a, key1, key2)
	t.Logf("TestUnnumberedFRR took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- TestUnnumberedTwoAuthbgpd

// TestUnnumberedTwoAuthbgpd: two authbgpd routers on a bare veth, eth1 on
// both, no address configured (the kernel's link-local ones) and nothing
// else running: each learns the other's link-local address from its router
// advertisements, and the session comes up over TCP-MD5; a route announced
// on one arrives at the other.
func TestUnnumberedTwoAuthbgpd(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	t.Parallel()
	start := time.Now()
	tp := netns.New(t, "un2ab")
	nsA, nsB := tp.Add("a"), tp.Add("b")
	tp.Link(nsA, "eth1", nil, nsB, "eth1", nil)
	llA, llB := linkLocal(t, nsA, "eth1"), linkLocal(t, nsB, "eth1")
	key := newSecret("un-ab")
	files := map[string]string{"eth1.key": key + "\n"}
	a := StartAuthbgpd(t, tp, nsA, unConfig(65001, "192.0.2.1", ifPeerTOML("eth1", 65002, "eth1.key")), AuthbgpdOptions{Files: files})
	b := StartAuthbgpd(t, tp, nsB, unConfig(65002, "192.0.2.2", ifPeerTOML("eth1", 65001, "eth1.key")), AuthbgpdOptions{Files: files})
	announce(t, a, "2001:db8:a::/48")
	for _, x := range []struct {
		name string
		r    *Authbgpd
		far  string
	}{{"a", a, llB}, {"b", b, llA}} {
		p := waitIfPeer(t, x.r, "eth1", 60*time.Second, "established", ifEstablished)
		if want := x.far + "%eth1"; p.Address != want {
			t.Errorf("%s /status: address %q, want the far end's %q", x.name, p.Address, want)
		}
		requireAuth(t, p, "password-file", true)
		p = waitIfPeer(t, x.r, "eth1", 15*time.Second, "shadow ok", func(p *status.Peer) bool {
			return p.Shadow != nil && p.Shadow.Diagnosis == "ok" && p.Shadow.Segments.Valid > 0
		})
		t.Logf("%s /status %s", x.name, ifPeerString(p))
	}
	t.Logf("established over TCP-MD5 %v after the link came up", time.Since(start).Round(time.Millisecond))
	// With a's link-local address as its next hop: "::" (what GoBGP's
	// next-hop-self sends when it cannot parse a zoned local address) is
	// a martian FRR drops, and no next hop at all.
	var rib string
	if err := poll(15*time.Second, func() error {
		out, err := cli(b, "global", "rib", "-a", "ipv6", "2001:db8:a::/48", "-j")
		rib = out
		if err != nil {
			return err
		}
		return holds(strings.Contains(out, "2001:db8:a::/48"))
	}); err != nil {
		t.Errorf("b's RIB: no 2001:db8:a::/48 from a: %v", err)
	} else if !strings.Contains(rib, `"nexthop":"`+llA) {
		t.Errorf("b's RIB: 2001:db8:a::/48 from a without a's link-local %s as its next hop: %s", llA, tail(rib, 600))
	}
	t.Logf("a: authbgpd status:\n%s", statusText(t, nsA))
	assertNoSecrets(t, a, key)
	assertNoSecrets(t, b, key)
	t.Logf("TestUnnumberedTwoAuthbgpd took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- the fabric lab

// fabricLeaves are the FRR leaves of e2e/clab/fabric.clab.yml: the prefixes
// each announces, and the spine's interface towards it.
var fabricLeaves = []struct {
	node, spineIf string
	asn           string
	v6, v4        string
	lo6, lo4      string // the leaf's own addresses (frr.conf: interface lo)
}{
	{"leaf1", "eth1", "65101", "2001:db8:a1::/48", "198.51.100.0/25", "2001:db8:a1::1", "198.51.100.1"},
	{"leaf2", "eth2", "65102", "2001:db8:a2::/48", "198.51.100.128/25", "2001:db8:a2::1", "198.51.100.129"},
}

// fabricPing pings each leaf's own addresses from the other's, IPv4 and
// IPv6, through the spine: only its kernel routes (RFC 8950 next hops
// for IPv4) carry them. run runs a command on a node.
func fabricPing(t *testing.T, run func(node string, argv ...string) (string, error)) {
	t.Helper()
	for i, l := range fabricLeaves {
		other := fabricLeaves[1-i]
		for _, p := range [][2]string{{l.lo4, other.lo4}, {l.lo6, other.lo6}} {
			var out string
			err := poll(20*time.Second, func() error {
				var err error
				out, err = run(l.node, "ping", "-c", "1", "-W", "1", "-I", p[0], p[1])
				return err
			})
			if err != nil {
				t.Errorf("%s: ping %s -> %s through the spine: %v\n%s", l.node, p[0], p[1], err, out)
			}
		}
	}
}

// fabricSpineASN is the spine's AS in the fabric lab.
const fabricSpineASN = "65100"

// fabricPathOK reports whether a `show bgp ipv4|ipv6 unicast PREFIX json`
// answer has a path through the spine from the other leaf (AS path
// "65100 <leaf>").
func fabricPathOK(out, fromASN string) (bool, string) {
	var r struct {
		Paths []struct {
			ASPath struct {
				String string `json:"string"`
			} `json:"aspath"`
			Valid bool `json:"valid"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return false, fmt.Sprintf("%v: %q", err, tail(out, 300))
	}
	for _, p := range r.Paths {
		if p.ASPath.String == fabricSpineASN+" "+fromASN {
			return true, fmt.Sprintf("as-path %q valid %v", p.ASPath.String, p.Valid)
		}
	}
	return false, fmt.Sprintf("paths: %+v", r.Paths)
}

// fabricCheck asserts the fabric's control plane through vtysh (a
// function running vtysh -c CMD on a leaf): each leaf's session with the
// spine Established, and each leaf's prefixes at the other leaf with the
// AS path spine, leaf.
func fabricCheck(t *testing.T, vtysh func(node, cmd string) (string, error)) {
	t.Helper()
	for _, l := range fabricLeaves {
		waitFor(t, 60*time.Second, l.node+": neighbor eth1 Established", func() error {
			out, err := vtysh(l.node, "show bgp neighbors eth1 json")
			if err != nil {
				return err
			}
			var m map[string]struct {
				State string `json:"bgpState"`
				Addr  string `json:"bgpNeighborAddr"`
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				return fmt.Errorf("%v: %q", err, tail(out, 200))
			}
			if n := m["eth1"]; n.State != "Established" {
				return fmt.Errorf("state %q neighbor address %q", n.State, n.Addr)
			}
			return nil
		})
	}
	// Each leaf's prefixes at the other, all polled together (30 s in all).
	type want struct{ at, from, fromASN, fam, prefix string }
	var wants []want
	for i, l := range fabricLeaves {
		other := fabricLeaves[1-i]
		wants = append(wants, want{other.node, l.node, l.asn, "ipv6", l.v6}, want{other.node, l.node, l.asn, "ipv4", l.v4})
	}
	got := make([]string, len(wants)) // why the path is there, "" until it is
	last := make([]string, len(wants))
	_ = poll(30*time.Second, func() error {
		missing := 0
		for i, w := range wants {
			if got[i] != "" {
				continue
			}
			out, err := vtysh(w.at, fmt.Sprintf("show bgp %s unicast %s json", w.fam, w.prefix))
			if err != nil {
				last[i], missing = err.Error(), missing+1
				continue
			}
			if ok, why := fabricPathOK(out, w.fromASN); ok {
				got[i] = why
			} else {
				last[i], missing = why, missing+1
			}
		}
		return holds(missing == 0)
	})
	for i, w := range wants {
		if got[i] == "" {
			t.Errorf("%s: no %s from %s through the spine within 30 s (%s)", w.at, w.prefix, w.from, last[i])
		} else {
			t.Logf("%s has %s from %s through the spine: %s", w.at, w.prefix, w.from, got[i])
		}
	}
}

// TestContainerFabric deploys e2e/clab/fabric.clab.yml with podman, as
// TestContainerLabs deploys the other labs (same images, same way): the
// spine's two interface peers Established over TCP-MD5 with the shadow
// checker ok (and the image's health check, uid 179, no secret in the
// logs), the leaves Established, each leaf's routes at the other through
// the spine; the spine's `authbgpd status` goes into the test log.
func TestContainerFabric(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "podman")
	testenv.RequireBinary(t, "nsenter")
	start := time.Now()
	ctrImages(t)
	deployed := time.Now()
	lab := deployCtrLab(t, filepath.Join(clabDir, "fabric.clab.yml"), ctrVariant{name: "privileged"})
	fail := true
	defer func() {
		if fail || t.Failed() {
			lab.dumpLogs(t)
		}
	}()
	checkAuthbgpdContainer(t, lab, "spine")
	st, err := lab.status(t, "spine")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range fabricLeaves {
		p := ifPeer(st, l.spineIf)
		if p == nil || !strings.HasPrefix(p.Address, "fe80:") || !strings.HasSuffix(p.Address, "%"+l.spineIf) {
			t.Errorf("spine /status: interface peer %s (to %s): %s, want a learnt fe80::...%%%s", l.spineIf, l.node, ifPeerString(p), l.spineIf)
		}
	}
	fabricCheck(t, func(node, cmd string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := podman(ctx, "exec", lab.containers[node], "vtysh", "-c", cmd).Output()
		return string(out), err
	})
	fabricPing(t, func(node string, argv ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := podman(ctx, append([]string{"exec", lab.containers[node]}, argv...)...).CombinedOutput()
		return string(out), err
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := podman(ctx, "exec", lab.containers["spine"], "authbgpd", "status").CombinedOutput()
	if err != nil {
		t.Errorf("spine: authbgpd status: %v", err)
	}
	t.Logf("spine: authbgpd status:\n%s", out)
	fail = false
	t.Logf("TestContainerFabric took %v (%v after the images)", time.Since(start).Round(time.Second), time.Since(deployed).Round(time.Second))
}

// startFRRZebraNode runs FRR's zebra and bgpd in node's namespace with the
// node's frr.conf (as the image's frrinit.sh does, without watchfrr).
func (lab *clabLab) startFRRZebraNode(t *testing.T, node string) *FRR {
	t.Helper()
	conf := lab.topo.frrConfig(lab.topo.Topology.Nodes[node])
	if conf == "" {
		t.Fatalf("node %s does not run FRR's bgpd", node)
	}
	conf, err := filepath.Abs(conf)
	if err != nil {
		t.Fatal(err)
	}
	return startFRRZebra(t, lab.tp, lab.ns[node], node, "", "", conf)
}

// runClabFabric is TestClabFabric: the fabric lab on namespaces.
func runClabFabric(t *testing.T, lab *clabLab) {
	t.Helper()
	start := time.Now()
	leaves := map[string]*FRR{}
	for _, l := range fabricLeaves {
		leaves[l.node] = lab.startFRRZebraNode(t, l.node)
		leaves[l.node].debugUpdates(t)
	}
	a := lab.startAuthbgpdNode(t, "spine")
	for _, l := range fabricLeaves {
		p := waitIfPeer(t, a, l.spineIf, 60*time.Second, "established", ifEstablished)
		if p.Auth.Mode != "md5" || !p.Auth.Installed {
			t.Errorf("spine /status %s", ifPeerString(p))
		}
		p = waitIfPeer(t, a, l.spineIf, 15*time.Second, "shadow ok", func(p *status.Peer) bool {
			return p.Shadow != nil && p.Shadow.Diagnosis == "ok" && p.Shadow.Segments.Valid > 0
		})
		t.Logf("spine /status %s", ifPeerString(p))
	}
	fabricCheck(t, func(node, cmd string) (string, error) { return leaves[node].Vtysh(context.Background(), cmd) })
	fabricPing(t, func(node string, argv ...string) (string, error) {
		out, err := exec.Command("ip", append([]string{"netns", "exec", lab.ns[node]}, argv...)...).CombinedOutput()
		return string(out), err
	})
	t.Logf("spine: authbgpd status:\n%s", statusText(t, lab.ns["spine"]))
	t.Logf("fabric on namespaces: checks done in %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- static: interface passwords

var frrIfNeighborRE = regexp.MustCompile(`(?m)^\s*neighbor (\S+) interface\b`)

// TestClabInterfacePasswords: for every FRR interface neighbor with a
// password in a lab, the authbgpd node on the other end of that
// interface's link has an interface peer on its end with the same key.
func TestClabInterfacePasswords(t *testing.T) {
	for _, file := range clabFiles(t) {
		topo := parseClab(t, file)
		// node:if -> node:if of the other end
		peerEnd := map[string]string{}
		for _, l := range topo.Topology.Links {
			if len(l.Endpoints) == 2 {
				peerEnd[l.Endpoints[0]], peerEnd[l.Endpoints[1]] = l.Endpoints[1], l.Endpoints[0]
			}
		}
		for _, name := range topo.nodeNames() {
			conf := topo.frrConfig(topo.Topology.Nodes[name])
			if conf == "" {
				continue
			}
			data, err := os.ReadFile(conf)
			if err != nil {
				t.Errorf("%s: node %s: %v", file, name, err)
				continue
			}
			ifs := map[string]bool{}
			for _, m := range frrIfNeighborRE.FindAllStringSubmatch(string(data), -1) {
				ifs[m[1]] = true
			}
			for _, m := range frrPasswordRE.FindAllStringSubmatch(string(data), -1) {
				if !ifs[m[1]] {
					continue // a numbered neighbor: checkFRRPasswords
				}
				end, ok := peerEnd[name+":"+m[1]]
				if !ok {
					t.Errorf("%s: node %s: interface neighbor %s is on no link", file, name, m[1])
					continue
				}
				node, ifc, _ := strings.Cut(end, ":")
				aconf := topo.authbgpdConfig(topo.Topology.Nodes[node])
				if aconf == "" {
					continue // FRR to FRR
				}
				cfg, err := config.Load(aconf)
				if err != nil {
					t.Errorf("%s: node %s: %v", file, node, err)
					continue
				}
				var p *config.Peer
				for i := range cfg.Peers {
					if cfg.Peers[i].Interface == ifc {
						p = &cfg.Peers[i]
					}
				}
				switch {
				case p == nil:
					t.Errorf("%s: %s's interface neighbor %s ends at %s, which has no interface peer %s", file, name, m[1], end, ifc)
				case string(p.Password) != m[2]:
					t.Errorf("%s: %s's neighbor %s password differs from %s's key for interface peer %s (%s)", file, name, m[1], node, ifc, p.PasswordRef)
				default:
					t.Logf("%s: %s %s <-> %s: one key (%s)", filepath.Base(file), name, m[1], end, filepath.Base(p.PasswordRef))
				}
			}
		}
	}
}
