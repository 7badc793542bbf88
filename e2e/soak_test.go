//go:build linux

package e2e

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// TestSoak is the fault soak: one authbgpd router (namespace r) with 25
// keyed BGP sessions (21 [[peers]] entries) from five speaker namespaces,
// each on its own veth link, each daemon holding several sessions from
// several addresses of its interface:
//
//	f1  FRR     7 static peers: password-file, password-env, inline
//	            password, IPv4 and IPv6, and one keychain peer whose FRR
//	            already signs with the chain's future key ([shadow]
//	            follow-peer-rollover = true makes the router follow it)
//	f2  FRR     4 static peers (IPv4, IPv6): killed with SIGKILL, restarted
//	            with a WRONG key, then given the right one
//	f3  FRR     3 static peers (one on a keychain): its link is flapped
//	            (ip link set down/up); one peer is re-keyed in reload bursts
//	g1  gobgpd  4 static peers: three on two keychains with send-from
//	            (the active key is the second), one password-file
//	b1  BIRD    a dynamic range 198.51.100.64/26 (4 sessions dial in; re-keyed
//	            in reload bursts), a static peer 198.51.100.100 INSIDE that
//	            range with a key of its own (re-keyed too), and an IPv6
//	            range 2001:db8:d::1:0/112 (2 sessions) that nothing touches
//
// Until SOAK_SECONDS have passed (default 25: the bounded version `go test
// ./...` runs, one cycle; `make soak` runs 300), it runs cycles of faults,
// each bounded, in a rotating order (the first cycle always runs whole):
//
//   - gRPC: the stock gobgp CLI (neighbor del, neighbor add of a configured
//     address, of an unconfigured one, of one inside a keyed range) and the
//     Go API (UpdatePeer with an empty and with another AuthPassword,
//     DeletePeer of a range session, UpdatePeerGroup with a password,
//     DeletePeerGroup, DeleteDynamicNeighbor of a range, AddDynamicNeighbor
//     of a new range): every one must be refused with FailedPrecondition
//     naming the address (or range) and the config file;
//   - a SYN flood: 200 unsigned SYNs from keyed peer addresses;
//   - a link flap of f3 (3 s, 6 s in odd cycles);
//   - kill -9 of f2's FRR, restart with a wrong key (8 s during which
//     nothing may come up), then the right key;
//   - a reload burst: 30 reloads in 15 s, each changing the key of one of
//     the re-keyed peers (f3's, the static peer inside the range, the
//     range), the speaker following 250 ms later; a second SYN flood at
//     the re-keyed peers' addresses runs in the middle of it.
//
// tcpdump captures everything on the router's side for the whole soak.
// Afterwards: no segment between the router and a keyed peer was accepted
// without a valid signature (verify-pcap and tcpdump -M, see
// checkCapture); the sessions that nothing touched never left Established
// and kept their uptime; after a burst, the router ended each session its
// peer had reset (FRR and BIRD reset on a key change) within 5 s of the
// peer reconnecting with a valid signature, not at its 90 s hold timer;
// every session is Established on both sides again within 60 s of the
// last fault; FDs and goroutines are back near their baseline, RSS stayed
// under 3x its baseline; the log has no panic, and no secret shows in the
// log, /status, /metrics, /healthz or the gobgp CLI. Every figure is
// logged, and again in one summary block at the end.
//
// SOAK_KEEP=DIR keeps the capture, the logs, the router's config and the
// keys in DIR.
func TestSoak(t *testing.T) {
	testenv.RequireRoot(t)
	for _, b := range []string{"tcpdump", "vtysh", "bird", "birdc", "gobgpd", "gobgp"} {
		testenv.RequireBinary(t, b)
	}
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	soakFor := time.Duration(soakDefaultSeconds) * time.Second
	if v := os.Getenv("SOAK_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SOAK_SECONDS=%q: want a positive number of seconds", v)
		}
		soakFor = time.Duration(n) * time.Second
	}
	t0 := time.Now()
	authbgpdBinary(t, "") // built (or taken from the cache) before the clocks start
	built := time.Now()

	s := soakSetup(t)
	s.waitAllUp(90*time.Second, "start-up", true)
	s.fig.setup = time.Since(built)
	time.Sleep(3 * time.Second) // let the last OPEN/KEEPALIVE exchanges settle
	s.takeBaseline()
	s.mon = s.startMonitor(time.Second)

	// ---------------------------------------------------------------- faults
	api := dialPerfAPI(t, s.nsR)
	soakStart := time.Now()
	deadline := soakStart.Add(soakFor)
	faults := []struct {
		name string
		run  func(cycle int)
	}{
		{"reload-burst", func(int) { s.faultReloadBurst(30, 15*time.Second) }},
		{"kill-wrong-key", func(int) { s.faultKillWrongKey(8 * time.Second) }},
		{"grpc", func(int) { s.faultGRPC(api) }},
		{"syn-flood", func(int) { s.faultFlood("round", s.floodTargets(nil), 200) }},
		{"link-flap", func(c int) { s.faultFlap(time.Duration(3+3*(c%2)) * time.Second) }},
	}
	for cycle := 0; cycle == 0 || time.Now().Before(deadline); cycle++ {
		s.fig.cycles++
		for i := range faults {
			f := faults[(i+cycle)%len(faults)]
			if cycle > 0 && !time.Now().Before(deadline) {
				break
			}
			s.cycle = cycle
			f.run(cycle)
		}
	}
	s.fig.soak = time.Since(soakStart)

	// ---------------------------------------------------------------- recovery
	s.fig.recovery = s.waitAllUp(60*time.Second, "after the last fault", false)
	time.Sleep(2 * time.Second) // the last ACKs into the capture
	s.mon.finish()

	// ---------------------------------------------------------------- checks
	checks := time.Now()
	s.checkUptime()
	s.checkResources()
	s.capture.stop(t)
	s.checkStale()
	s.checkCapture()
	s.checkLog()
	s.fig.checks = time.Since(checks)
	s.fig.total = time.Since(t0)
	s.summary()
	s.r.StopClean()
}

// soakDefaultSeconds is the soak's length under `go test ./...`.
const soakDefaultSeconds = 25

// ---------------------------------------------------------------- topology

// soakSession is one BGP session of the router.
type soakSession struct {
	addr    netip.Addr // the peer's address, as the router sees it
	remote  netip.Addr // the router's address (the speaker's neighbor)
	speaker string     // which speaker namespace
	peerID  string     // the router's [[peers]] entry (address or prefix)
}

// soakPeer is one [[peers]] entry of the router.
type soakPeer struct {
	id       string       // address or prefix, as /status and verify-pcap name it
	addr     netip.Addr   // static peers
	prefix   netip.Prefix // dynamic ranges
	local    netip.Addr   // static peers: local-address
	asn      uint32
	src, ref string   // password source and its reference (inline secret, file, variable, keychain)
	keys     []string // every key the router was configured to use for this peer, in order
	sessions []soakSession
	role     string // stable, killed, flapped, rekeyed
}

func (p *soakPeer) isRange() bool { return p.prefix.IsValid() }

// toml is the [[peers]] entry with the key given by src and ref.
func (p *soakPeer) toml(src, ref string) string {
	if p.isRange() {
		return abPeer{addr: p.prefix.String(), asn: p.asn, src: src, ref: ref, passive: true}.toml()
	}
	return abPeer{addr: p.addr.String(), asn: p.asn, src: src, ref: ref, local: p.local.String()}.toml()
}

// soakFigures are the measured figures, printed by summary.
type soakFigures struct {
	setup, soak, recovery, checks, total time.Duration
	cycles                               int
	events                               []string

	flaps    int
	flapDown time.Duration

	kills, wrongWindows, wrongEstablished, wrongStale int
	wrongDiagnoses                                    map[string]int
	fixes                                             []time.Time // right key given to f2 after a wrong-key window

	bursts, burstReloads, speakerApplies, speakerUpdateErrs int
	burstTook                                               []time.Duration
	burstEnds                                               []time.Time
	burstChanges                                            []map[netip.Addr][]time.Time // per burst: each re-keyed session's far-end key changes
	burstKeys                                               []map[netip.Addr]string      // per burst: each re-keyed session's last key

	grpcTotal, grpcAccepted, grpcRefusedOK, grpcRefusedOther int
	grpcAcceptedList, grpcOtherList                          []string

	floodRounds, floodSent, floodDropped, floodRefused, floodConnected, floodErrs int
	floodErrList                                                                  []string

	md5NotFound0, md5Failure0 uint64

	base soakProcSample
}

// soak is the running soak.
type soak struct {
	t        *testing.T
	tp       *netns.Topology
	nsR      string
	r        *Authbgpd
	capture  *tdProc
	peers    []*soakPeer
	byID     map[string]*soakPeer
	sessions []soakSession
	speakers map[string]*soakSpeaker
	// extra holds addresses inside the keyed ranges that no speaker uses
	// (SYN flood sources), with the router address they aim at.
	extra     []soakSession
	keychains string
	stable    map[netip.Addr]bool
	secrets   []string // every secret of the soak (the no-leak check)
	injected  []string // keys sent through the gRPC API, never configured
	mon       *soakMonitor
	fig       soakFigures
	cycle     int                  // the fault cycle running (for the timeline)
	baseUp    map[netip.Addr]int64 // stable sessions' uptime at the baseline
	baseAt    time.Time
	env       []string // the router's environment (secrets), for verify-pcap too
	// capDrops0 is what tcpdump counted as dropped when it had just
	// started (libpcap counts frames it flushes while attaching the filter).
	capDrops0 int
	keyLabel  map[string]string // secret → whose it is (diagnostics)
	// speakerKeys is the key each session's speaker starts with.
	speakerKeys map[netip.Addr]string
	// checkLines are the figures of the final checks, for the summary.
	checkLines []string
}

// event adds a line to the timeline (the time is since the baseline, when
// the faults began).
func (s *soak) event(e string) {
	s.fig.events = append(s.fig.events, fmt.Sprintf("%7.1fs cycle %d: %s", time.Since(s.baseAt).Seconds(), s.cycle, e))
}

// addSecret records a secret of the soak; label says whose it is.
func (s *soak) addSecret(k, label string) string {
	s.secrets = append(s.secrets, k)
	if s.keyLabel == nil {
		s.keyLabel = map[string]string{}
	}
	s.keyLabel[k] = label
	return k
}

// soakSetup builds the topology, starts the capture, the router and the
// speakers.
func soakSetup(t *testing.T) *soak {
	s := &soak{t: t, byID: map[string]*soakPeer{}, speakers: map[string]*soakSpeaker{}, stable: map[netip.Addr]bool{}}
	s.fig.wrongDiagnoses = map[string]int{}
	tp := netns.New(t, "soak")
	s.tp = tp
	s.nsR = tp.Add("r")
	a := netip.MustParseAddr
	pf := netip.MustParsePrefix

	// Keys. kc-a is on key 2 (send-from an hour ago), kc-b on key 6;
	// "follow" is on key 1, key 2 starting in 2099 — but FRR signs with
	// key 2 and follow-peer-rollover makes the router follow it.
	var (
		kca1  = s.addSecret(newSecret("kca1"), "keychain kc-a key 1")
		kca2  = s.addSecret(newSecret("kca2"), "keychain kc-a key 2")
		kca3  = s.addSecret(newSecret("kca3"), "keychain kc-a key 3")
		kcb5  = s.addSecret(newSecret("kcb5"), "keychain kc-b key 5")
		kcb6  = s.addSecret(newSecret("kcb6"), "keychain kc-b key 6")
		fol1  = s.addSecret(newSecret("fol1"), "keychain follow key 1")
		fol2  = s.addSecret(newSecret("fol2"), "keychain follow key 2")
		files = map[string]string{"kca-1.key": kca1 + "\n", "kca-3.key": kca3 + "\n", "kcb-6.key": kcb6 + "\n", "fol-1.key": fol1 + "\n", "fol-2.key": fol2 + "\n"}
		env   = []string{"AUTHBGPD_SOAK_KCA_2=" + kca2}
		now   = time.Now().UTC()
	)
	s.keychains = fmt.Sprintf(`[[keychains]]
name = "kc-a"
  [[keychains.keys]]
  id = 1
  secret-file = "kca-1.key"
  [[keychains.keys]]
  id = 2
  secret-env = "AUTHBGPD_SOAK_KCA_2"
  send-from = %s
  [[keychains.keys]]
  id = 3
  secret-file = "kca-3.key"
  send-from = 2099-01-01T00:00:00Z

[[keychains]]
name = "kc-b"
  [[keychains.keys]]
  id = 5
  secret = %q
  [[keychains.keys]]
  id = 6
  secret-file = "kcb-6.key"
  send-from = %s

[[keychains]]
name = "follow"
  [[keychains.keys]]
  id = 1
  secret-file = "fol-1.key"
  [[keychains.keys]]
  id = 2
  secret-file = "fol-2.key"
  send-from = 2099-01-01T00:00:00Z
`, now.Add(-time.Hour).Format(time.RFC3339), kcb5, now.Add(-10*time.Minute).Format(time.RFC3339))
	// The keys the router uses for each keychain during the soak (what
	// the capture is checked against): the active key; for "follow", key
	// 1 until the router follows FRR to key 2.
	chainKeys := map[string][]string{"kc-a": {kca2}, "kc-b": {kcb6}, "follow": {fol1, fol2}}
	speakerKey := map[string]string{"kc-a": kca2, "kc-b": kcb6, "follow": fol2}

	// static adds a static peer; its key comes from src (a fresh secret,
	// except for keychains).
	static := func(sp string, addr, local string, asn uint32, src, role string) *soakPeer {
		p := &soakPeer{id: addr, addr: a(addr), local: a(local), asn: asn, src: src, role: role}
		var key string
		switch src {
		case "password":
			key = s.addSecret(newSecret("pw"), addr+" key #0")
			p.ref = key
		case "password-file":
			key = s.addSecret(newSecret("pf"), addr+" key #0")
			p.ref = "p-" + strings.NewReplacer(".", "-", ":", "-").Replace(addr) + ".key"
			files[p.ref] = key + "\n"
		case "password-env":
			key = s.addSecret(newSecret("pe"), addr+" key #0")
			p.ref = "AUTHBGPD_SOAK_" + strings.ToUpper(strings.NewReplacer(".", "_", ":", "_").Replace(addr))
			env = append(env, p.ref+"="+key)
		default: // keychain:NAME
			name := strings.TrimPrefix(src, "keychain:")
			p.src, p.ref = "keychain", name
			key = speakerKey[name]
		}
		if p.src == "keychain" {
			p.keys = append([]string(nil), chainKeys[p.ref]...)
		} else {
			p.keys = []string{key}
		}
		p.sessions = []soakSession{{addr: p.addr, remote: p.local, speaker: sp, peerID: p.id}}
		s.addPeer(p, key)
		return p
	}
	dynamic := func(sp, prefix string, asn uint32, src, role string, sessions ...[2]string) *soakPeer {
		p := &soakPeer{id: prefix, prefix: pf(prefix), asn: asn, src: src, role: role}
		key := s.addSecret(newSecret("rg"), prefix+" key #0")
		switch src {
		case "password-file":
			p.ref = "range-" + strings.NewReplacer(".", "-", ":", "-", "/", "_").Replace(prefix) + ".key"
			files[p.ref] = key + "\n"
		case "password-env":
			p.ref = "AUTHBGPD_SOAK_RANGE6"
			env = append(env, p.ref+"="+key)
		default:
			t.Fatalf("soak: range source %q", src)
		}
		p.keys = []string{key}
		for _, x := range sessions {
			p.sessions = append(p.sessions, soakSession{addr: a(x[0]), remote: a(x[1]), speaker: sp, peerID: p.id})
		}
		s.addPeer(p, key)
		return p
	}

	// f1: FRR, untouched (gRPC requests aimed at it must change nothing).
	static("f1", "192.0.2.11", "192.0.2.1", 65011, "password-file", "stable")
	static("f1", "192.0.2.12", "192.0.2.2", 65011, "password-env", "stable")
	static("f1", "192.0.2.13", "192.0.2.3", 65011, "password", "stable")
	static("f1", "192.0.2.14", "192.0.2.4", 65011, "password-file", "stable")
	static("f1", "2001:db8:1::11", "2001:db8:1::1", 65011, "password-file", "stable")
	static("f1", "2001:db8:1::12", "2001:db8:1::2", 65011, "password-env", "stable")
	static("f1", "192.0.2.15", "192.0.2.5", 65011, "keychain:follow", "stable")
	// f2: FRR, killed and restarted with a wrong key.
	static("f2", "192.0.2.43", "192.0.2.33", 65012, "password-file", "killed")
	static("f2", "192.0.2.44", "192.0.2.34", 65012, "password-env", "killed")
	static("f2", "2001:db8:2::11", "2001:db8:2::1", 65012, "password-file", "killed")
	static("f2", "2001:db8:2::12", "2001:db8:2::2", 65012, "password", "killed")
	// f3: FRR, link flapped; 192.0.2.75 re-keyed in the bursts.
	static("f3", "192.0.2.75", "192.0.2.65", 65013, "password-file", "rekeyed")
	static("f3", "192.0.2.76", "192.0.2.66", 65013, "password-file", "flapped")
	static("f3", "192.0.2.77", "192.0.2.67", 65013, "keychain:kc-b", "flapped")
	// g1: gobgpd, untouched.
	static("g1", "203.0.113.11", "203.0.113.1", 65014, "keychain:kc-a", "stable")
	static("g1", "203.0.113.12", "203.0.113.2", 65014, "keychain:kc-a", "stable")
	static("g1", "203.0.113.13", "203.0.113.3", 65014, "keychain:kc-b", "stable")
	static("g1", "203.0.113.14", "203.0.113.4", 65014, "password-file", "stable")
	// b1: BIRD. The v4 range and the static peer inside it are re-keyed;
	// the v6 range is untouched.
	dynamic("b1", "198.51.100.64/26", 65015, "password-file", "rekeyed",
		[2]string{"198.51.100.65", "198.51.100.1"}, [2]string{"198.51.100.66", "198.51.100.2"},
		[2]string{"198.51.100.67", "198.51.100.3"}, [2]string{"198.51.100.68", "198.51.100.4"})
	static("b1", "198.51.100.100", "198.51.100.5", 65015, "password", "rekeyed")
	dynamic("b1", "2001:db8:d::1:0/112", 65015, "password-env", "stable",
		[2]string{"2001:db8:d::1:1", "2001:db8:d::1"}, [2]string{"2001:db8:d::1:2", "2001:db8:d::2"})
	s.extra = []soakSession{
		{addr: a("198.51.100.90"), remote: a("198.51.100.1"), speaker: "b1", peerID: "198.51.100.64/26"},
		{addr: a("2001:db8:d::1:99"), remote: a("2001:db8:d::1"), speaker: "b1", peerID: "2001:db8:d::1:0/112"},
	}
	for _, p := range s.peers {
		if p.role == "stable" {
			for _, ss := range p.sessions {
				s.stable[ss.addr] = true
			}
		}
	}

	// Namespaces and links: the router's interface towards each speaker
	// holds one address per session, as does the speaker's.
	speakerNS := map[string]string{}
	for _, name := range []string{"f1", "f2", "f3", "g1", "b1"} {
		speakerNS[name] = tp.Add(name)
	}
	for _, ns := range append([]string{s.nsR}, mapValues(speakerNS)...) {
		// Link flaps must not take the IPv6 addresses away.
		netns.Run(t, "ip", "netns", "exec", ns, "sysctl", "-qw",
			"net.ipv6.conf.all.keep_addr_on_down=1", "net.ipv6.conf.default.keep_addr_on_down=1")
	}
	masks := map[string]string{"f1": "27", "f2": "27", "f3": "27", "g1": "26", "b1": "24"}
	for i, name := range []string{"f1", "f2", "f3", "g1", "b1"} {
		var rAddrs, spAddrs []string
		seen := map[netip.Addr]bool{}
		add := func(list *[]string, ad netip.Addr) {
			if seen[ad] {
				return
			}
			seen[ad] = true
			m := masks[name]
			if ad.Is6() {
				m = "64"
			}
			*list = append(*list, ad.String()+"/"+m)
		}
		for _, ss := range append(append([]soakSession(nil), s.sessions...), s.extra...) {
			if ss.speaker == name {
				add(&rAddrs, ss.remote)
				add(&spAddrs, ss.addr)
			}
		}
		tp.Link(s.nsR, fmt.Sprintf("eth%d", i+1), rAddrs, speakerNS[name], "eth0", spAddrs)
	}

	// The capture, before anything speaks BGP.
	// Every interface (Linux cooked), BGP segments whole. Not
	// --immediate-mode: libpcap then uses a TPACKET_V2 ring of
	// snaplen-sized frames, about 60 with a 16 MiB buffer, which a SYN flood
	// overruns; TPACKET_V3 packs the frames into blocks.
	s.capture = startTcpdump(t, tp, s.nsR, filepath.Join(t.TempDir(), "soak.pcap"), "-i", "any", "-s", "262144", "-B", "32768")
	c, err := netns.Counters(s.nsR)
	if err != nil {
		t.Fatal(err)
	}
	s.fig.md5NotFound0, s.fig.md5Failure0 = c["TCPMD5NotFound"], c["TCPMD5Failure"]

	s.capDrops0 = soakCaptureDrops(t, s.capture)
	// The router.
	s.env = env
	s.r = StartAuthbgpd(t, tp, s.nsR, s.routerConfig(), AuthbgpdOptions{Files: files, Env: env})
	t.Cleanup(s.keep) // before the topology's cleanup stops the daemons

	// The speakers, with the router's keys.
	asns := map[string]uint32{"f1": 65011, "f2": 65012, "f3": 65013, "g1": 65014, "b1": 65015}
	rids := map[string]string{"f1": "192.0.2.11", "f2": "192.0.2.43", "f3": "192.0.2.75", "g1": "203.0.113.11", "b1": "198.51.100.65"}
	kinds := map[string]string{"f1": "frr", "f2": "frr", "f3": "frr", "g1": "gobgpd", "b1": "bird"}
	for _, name := range []string{"f1", "f2", "f3", "g1", "b1"} {
		sp := &soakSpeaker{ns: speakerNS[name], cfg: soakSpeakerCfg{name: name, kind: kinds[name], asn: asns[name], rid: a(rids[name])}}
		for _, ss := range s.sessions {
			if ss.speaker == name {
				sp.cfg.nbrs = append(sp.cfg.nbrs, soakNbr{remote: ss.remote, local: ss.addr, key: s.speakerKeys[ss.addr]})
			}
		}
		sp.start(t, tp)
		s.speakers[name] = sp
	}
	t.Logf("soak topology: %d [[peers]] entries (%d keyed sessions, %d of them untouched by any fault), %d speakers, capture %s",
		len(s.peers), len(s.sessions), len(s.stable), len(s.speakers), s.capture.file)
	return s
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// addPeer registers p; speakerKey is the key its speaker starts with.
func (s *soak) addPeer(p *soakPeer, speakerKey string) {
	s.peers = append(s.peers, p)
	s.byID[p.id] = p
	s.sessions = append(s.sessions, p.sessions...)
	if s.speakerKeys == nil {
		s.speakerKeys = map[netip.Addr]string{}
	}
	for _, ss := range p.sessions {
		s.speakerKeys[ss.addr] = speakerKey
	}
}

// routerConfig is the router's config as of now.
func (s *soak) routerConfig() string {
	var b strings.Builder
	for _, p := range s.peers {
		b.WriteString(p.toml(p.src, p.ref))
	}
	return abConf{ASN: soakRouterASN, Extra: s.keychains, Tail: b.String() + shadowSection(true)}.String()
}

// soakWriteFile replaces a file atomically (the router may be reading the
// previous version for a reload).
func soakWriteFile(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// reload writes the router's config and sends SIGHUP.
func (s *soak) reload() error {
	if err := soakWriteFile(s.r.Config, s.routerConfig()); err != nil {
		return err
	}
	return s.r.cmd.Process.Signal(unix.SIGHUP)
}

// status fetches /status without failing the test (for polling).
func (s *soak) status() (*status.Status, error) {
	return soakStatus(s.r)
}

// sessionStates maps every session address in /status to its entry.
func soakByAddr(st *status.Status) map[netip.Addr]*status.Peer {
	out := map[netip.Addr]*status.Peer{}
	for i := range st.Peers {
		if ad, err := netip.ParseAddr(st.Peers[i].Address); err == nil {
			out[ad] = &st.Peers[i]
		}
	}
	return out
}

// waitAllUp waits until every session is Established on both sides — in
// the router's /status and for its speaker (the router's view alone may be
// a stale session) — and returns how long that took; otherwise it fails t
// (fatally when fatal) with the sessions still down.
func (s *soak) waitAllUp(bound time.Duration, what string, fatal bool) time.Duration {
	s.t.Helper()
	start := time.Now()
	var down []string
	for {
		down = down[:0]
		st, err := s.status()
		if err != nil {
			down = append(down, err.Error())
		} else {
			by := soakByAddr(st)
			for _, ss := range s.sessions {
				if p := by[ss.addr]; p == nil || p.State != Established {
					down = append(down, "router→"+ss.addr.String()+" "+soakPeerBrief(p))
				}
			}
		}
		if len(down) == 0 {
			for _, name := range []string{"f1", "f2", "f3", "g1", "b1"} {
				states, err := s.speakers[name].bulkStates()
				if err != nil {
					down = append(down, name+": "+err.Error())
					continue
				}
				for _, n := range s.speakers[name].cfg.nbrs {
					if states[n.remote] != Established {
						down = append(down, fmt.Sprintf("%s(%s)→%s %q", name, n.local, n.remote, states[n.remote]))
					}
				}
			}
		}
		if len(down) == 0 || time.Since(start) > bound {
			break
		}
		time.Sleep(time.Second)
	}
	took := time.Since(start)
	if len(down) > 0 {
		msg := fmt.Sprintf("%s: %d sessions not Established on both sides within %v: %s", what, len(down), bound, strings.Join(down, "; "))
		if fatal {
			s.t.Fatal(msg)
		}
		s.t.Error(msg)
		return took
	}
	s.t.Logf("%s: all %d sessions Established on both sides after %v", what, len(s.sessions), took.Round(100*time.Millisecond))
	return took
}

func soakPeerBrief(p *status.Peer) string {
	if p == nil {
		return "(absent)"
	}
	s := p.State
	if p.Shadow != nil {
		s += "/" + p.Shadow.Diagnosis
	}
	if p.Auth.Error != "" {
		s += " auth.error=" + strconv.Quote(p.Auth.Error)
	}
	return s
}

// summary prints every figure in one block.
func (s *soak) summary() {
	f := &s.fig
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("==================== soak summary ====================")
	w("time: soak %v (%d cycles), set-up %v, recovery %v, checks %v, whole test %v",
		f.soak.Round(time.Second), f.cycles, f.setup.Round(100*time.Millisecond), f.recovery.Round(100*time.Millisecond), f.checks.Round(100*time.Millisecond), f.total.Round(time.Second))
	w("topology: %d [[peers]] entries, %d keyed sessions (FRR %d, BIRD %d, gobgpd %d), %d untouched by faults",
		len(s.peers), len(s.sessions), s.countKind("frr"), s.countKind("bird"), s.countKind("gobgpd"), len(s.stable))
	w("link flaps: %d (%v down in all)", f.flaps, f.flapDown)
	w("kill -9 + restart with a wrong key: %d kills, %d wrong-key windows; sessions established during them: %d (stale sessions of before the kill: %d); f2 diagnoses seen in them (per session): %v",
		f.kills, f.wrongWindows, f.wrongEstablished, f.wrongStale, f.wrongDiagnoses)
	w("reload bursts: %d, %d reloads (each a new key for one peer), applied at the far end in %d updates (%d errors); the reloads of each burst took %v",
		f.bursts, f.burstReloads, f.speakerApplies, f.speakerUpdateErrs, f.burstTook)
	w("gRPC requests: %d: %d ACCEPTED, %d refused with FailedPrecondition naming the target and the config, %d refused otherwise",
		f.grpcTotal, f.grpcAccepted, f.grpcRefusedOK, f.grpcRefusedOther)
	for _, r := range f.grpcAcceptedList {
		w("  accepted: %s", r)
	}
	for _, r := range f.grpcOtherList {
		w("  refused otherwise: %s", r)
	}
	w("SYN floods: %d rounds, %d unsigned SYNs sent: %d dropped, %d refused (RST), %d handshakes COMPLETED, %d errors %v",
		f.floodRounds, f.floodSent, f.floodDropped, f.floodRefused, f.floodConnected, f.floodErrs, f.floodErrList)
	for _, l := range s.mon.summaryLines() {
		w("%s", l)
	}
	for _, l := range s.checkLines {
		w("%s", l)
	}
	w("timeline (seconds since the baseline, each fault when it ended):")
	for _, e := range f.events {
		w("  %s", e)
	}
	w("======================================================")
	s.t.Log("\n" + b.String())
}

func (s *soak) countKind(kind string) int {
	n := 0
	for _, ss := range s.sessions {
		if s.speakers[ss.speaker].cfg.kind == kind {
			n++
		}
	}
	return n
}
