package shadow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/tcpao"
)

// aoLabel writes a Result as the generator labels packets.
func aoLabel(r Result) string {
	if r.Outgoing {
		switch r.Verdict {
		case Valid:
			return "sent:valid"
		case Missing:
			return "sent:unsigned"
		case BadDigest, BadMAC, UnknownKey:
			return "sent:invalid"
		case NoHandshake:
			return "sent:no_handshake"
		}
		return "sent:" + r.Verdict.String()
	}
	v := r.Verdict.String()
	if r.Flipped {
		v += "+flipped"
	}
	if r.WrongMech {
		v += "+wrongmech"
	}
	return v
}

// aoPeers are the peers of the generated captures' config.
func aoPeers(t testing.TB) []Peer {
	t.Helper()
	cfg, err := config.Parse("tcpao.toml", []byte(aoConfig))
	if err != nil {
		t.Fatal(err)
	}
	return PeersOf(peerindex.New(cfg))
}

// feed decodes one generated packet and checks it.
func feed(t testing.TB, c *Checker, p aoPacket) Result {
	t.Helper()
	var tcp frame.TCP
	if err := frame.DecodeTCP(frame.LinkEthernet, p.frame, &tcp); err != nil {
		t.Fatalf("%s: %v", p.desc, err)
	}
	return c.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, p.t)
}

func reportOf(t testing.TB, reps []PeerReport, addr string) PeerReport {
	t.Helper()
	for _, r := range reps {
		if r.Address.String() == addr {
			return r
		}
	}
	t.Fatalf("no report for %s", addr)
	return PeerReport{}
}

func checkDiagnoses(t *testing.T, reps []PeerReport, want []aoScenario) {
	t.Helper()
	if len(reps) != len(want) {
		t.Errorf("%d reports, want %d", len(reps), len(want))
	}
	for _, w := range want {
		r := reportOf(t, reps, w.peer)
		key := -1
		if r.PeerKeyID != nil {
			key = *r.PeerKeyID
		}
		if r.Diagnosis != w.diag || key != w.keyID {
			t.Errorf("%s: diagnosis %s, peer key %d; want %s, %d (%+v)", w.peer, r.Diagnosis, key, w.diag, w.keyID, r.Received)
		}
	}
}

// TestAOGeneratedVerdicts: every segment of the generated captures gets
// the verdict the generator meant, and every peer its diagnosis — TCP-AO
// peers (both algorithms, IPv4 and IPv6, options in and out, a rollover, a
// bad rollover, a wrong key, a wrong KeyID, an options mismatch, TCP-MD5
// for TCP-AO and the reverse, unsigned, unexpected, wrapping sequence
// numbers) beside TCP-MD5 ones; and, in the capture that starts
// mid-connection, no-handshake.
func TestAOGeneratedVerdicts(t *testing.T) {
	mixed, mid := generateAO(t)
	for _, f := range []struct {
		name string
		pkts []aoPacket
		want []aoScenario
	}{{"mixed", mixed, aoWant}, {"midstream", mid, aoWantMid}} {
		t.Run(f.name, func(t *testing.T) {
			c := New(aoPeers(t), Options{IdleAfter: -1})
			for _, p := range f.pkts {
				if got := aoLabel(feed(t, c, p)); got != p.want {
					t.Errorf("%s: %s, want %s", p.desc, got, p.want)
				}
			}
			checkDiagnoses(t, c.Reports(time.Time{}), f.want)
		})
	}
	c := New(aoPeers(t), Options{IdleAfter: -1})
	for _, p := range mixed {
		feed(t, c, p)
	}
	reps := c.Reports(time.Time{})
	// The rollover: the pairs the peer sent, in order, with counts.
	roll := reportOf(t, reps, "192.0.2.12")
	want := []KeyIDCount{{1, 1, 6}, {1, 2, 2}, {2, 2, 3}}
	if fmt.Sprint(roll.KeyIDs) != fmt.Sprint(want) || !roll.TCPAO {
		t.Errorf("rollover key ids %v (TCP-AO %v), want %v", roll.KeyIDs, roll.TCPAO, want)
	}
	if roll.Received.Valid != 11 || roll.Sent.Valid != 9 || roll.Received.BadMAC+roll.Sent.Invalid != 0 {
		t.Errorf("rollover counts %+v %+v", roll.Received, roll.Sent)
	}
	if r := reportOf(t, reps, "192.0.2.14"); r.Received.UnknownKey != 4 || fmt.Sprint(r.KeyIDs) != "[{9 9 4}]" {
		t.Errorf("wrong KeyID: %+v %v", r.Received, r.KeyIDs)
	}
	if r := reportOf(t, reps, "192.0.2.15"); r.Received.BadMAC != 4 {
		t.Errorf("options mismatch counted %+v, want 4 bad_mac", r.Received)
	}
	if r := reportOf(t, reps, "192.0.2.17"); r.TCPAO || r.Received.Missing != 4 || len(r.KeyIDs) != 1 {
		t.Errorf("TCP-AO to a TCP-MD5 peer: %+v", r)
	}
	if r := reportOf(t, reps, "192.0.2.18"); r.TCPAO || r.Received.Valid != 6 || r.Sent.Valid != 4 || len(r.KeyIDs) != 0 {
		t.Errorf("TCP-MD5 peer: %+v", r)
	}
	if r := reportOf(t, reps, "192.0.2.21"); r.Received.Valid != 14 || r.Sent.Valid != 12 {
		t.Errorf("SNE wrap: %+v %+v", r.Received, r.Sent)
	}
	mc := New(aoPeers(t), Options{IdleAfter: -1})
	for _, p := range mid {
		feed(t, mc, p)
	}
	if r := reportOf(t, mc.Reports(time.Time{}), "192.0.2.10"); r.Received.NoHandshake != 3 || r.Sent.NoHandshake != 2 {
		t.Errorf("midstream counts %+v %+v", r.Received, r.Sent)
	}
}

// aoRig is one TCP-AO connection with a peer (a, dialing) and us (b),
// fed segment by segment to a checker, with its OnChange calls.
type aoRig struct {
	t       *testing.T
	c       *Checker
	conn    *aoGenConn
	changes []PeerReport
}

const aoRigPeer = "192.0.2.10"

func newAORig(t *testing.T, peers []Peer) *aoRig {
	r := &aoRig{t: t}
	r.c = New(peers, Options{IdleAfter: -1, OnChange: func(p PeerReport) { r.changes = append(r.changes, p) }})
	g := newAOGen(t)
	k := mkt(tcpao.HMACSHA1, "sha1", 1, 1, true)
	r.conn = g.conn("rig", ap(aoRigPeer, 50110), netip.AddrPortFrom(aoLocal4, 179), 0x0102_0304, 0x0506_0708,
		aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1, ts: true}, aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1, ts: true})
	return r
}

// flush feeds the packets generated since the last flush and checks each
// verdict.
func (r *aoRig) flush() []Result {
	r.t.Helper()
	g := r.conn.g
	var out []Result
	for _, p := range g.pkts {
		res := feed(r.t, r.c, p)
		if got := aoLabel(res); got != p.want {
			r.t.Fatalf("%s: %s, want %s", p.desc, got, p.want)
		}
		out = append(out, res)
	}
	g.pkts = nil
	return out
}

func (r *aoRig) diag() (string, int) {
	rep := reportOf(r.t, r.c.Reports(time.Time{}), aoRigPeer)
	if rep.PeerKeyID != nil {
		return rep.Diagnosis, *rep.PeerKeyID
	}
	return rep.Diagnosis, -1
}

// run has the peer send n keepalives signed by sig, labelled want, and
// requires the diagnosis to stay from for 2 segments and become to (key)
// at the 3rd, with one OnChange.
func (r *aoRig) run(sig aoSigner, n int, want, from, to string, key int) {
	r.t.Helper()
	r.conn.a.sig = sig
	ch0 := len(r.changes)
	for i := 1; i <= n; i++ {
		r.conn.send(true, fPSH|fACK, bgpKeepalive, want)
		r.flush()
		d, k := r.diag()
		switch {
		case i < 3 && (d != from || len(r.changes) != ch0):
			r.t.Fatalf("%s segment %d: diagnosis %s (%d changes), want still %s", want, i, d, len(r.changes)-ch0, from)
		case i >= 3 && (d != to || k != key || len(r.changes) != ch0+1):
			r.t.Fatalf("%s segment %d: diagnosis %s(%d) (%d changes), want %s(%d) with one change", want, i, d, k, len(r.changes)-ch0, to, key)
		}
	}
}

// TestAOHysteresis walks one TCP-AO connection through every diagnosis a
// received segment can give, each taking effect at exactly its 3rd
// consecutive segment: ok, bad-mac, unknown-key (naming the KeyID),
// options-mismatch, wrong-mechanism, missing, and back to ok. A rollover
// to another key of the chain stays ok.
func TestAOHysteresis(t *testing.T) {
	r := newAORig(t, aoPeers(t))
	r.conn.session(true, "valid")
	r.flush()
	if d, _ := r.diag(); d != DiagOK || len(r.changes) != 1 {
		t.Fatalf("after the session's start: %s, %d changes", d, len(r.changes))
	}
	good := r.conn.a.sig
	sha1 := tcpao.HMACSHA1
	r.run(aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "peerwrong", 1, 1, true)}, rnext: 1, ts: true}, 4, "bad_mac", DiagOK, DiagBadMAC, -1)
	r.run(aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "sha1", 9, 9, true)}, rnext: 1, ts: true}, 3, "unknown_key", DiagBadMAC, DiagUnknownKey, 9)
	r.run(aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "sha1", 8, 8, true)}, rnext: 1, ts: true}, 3, "unknown_key", DiagUnknownKey, DiagUnknownKey, 8)
	r.run(aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "sha1", 1, 1, false)}, rnext: 1, ts: true}, 3, "bad_mac+flipped", DiagUnknownKey, DiagOptionsMismatch, -1)
	r.run(aoSigner{md5: []byte("some-md5-key"), ts: true}, 3, "missing+wrongmech", DiagOptionsMismatch, DiagWrongMechanism, -1)
	r.run(aoSigner{ts: true}, 3, "missing", DiagWrongMechanism, DiagMissing, -1)
	r.run(good, 3, "valid", DiagMissing, DiagOK, -1)
	// Interleaved: bad bad ok bad bad never changes ok.
	bad := aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "peerwrong", 1, 1, true)}, rnext: 1, ts: true}
	ch := len(r.changes)
	for _, s := range []aoSigner{bad, bad, good, bad, bad, good} {
		r.conn.a.sig = s
		want := "bad_mac"
		if s.mkts[0].Secret[0] == good.mkts[0].Secret[0] && string(s.mkts[0].Secret) == string(good.mkts[0].Secret) {
			want = "valid"
		}
		r.conn.send(true, fPSH|fACK, bgpKeepalive, want)
		r.flush()
	}
	if d, _ := r.diag(); d != DiagOK || len(r.changes) != ch {
		t.Fatalf("interleaved: %s, %d changes", d, len(r.changes)-ch)
	}
}

// TestAORolloverIsOK: a peer moving between the keys of its chain within
// a connection stays ok at every segment, and our own segments under
// either key are valid.
func TestAORolloverIsOK(t *testing.T) {
	mixed, _ := generateAO(t)
	c := New(aoPeers(t), Options{IdleAfter: -1, OnChange: func(r PeerReport) {
		if r.Address.String() == "192.0.2.12" && r.Diagnosis != DiagOK {
			t.Errorf("rollover peer's diagnosis became %s", r.Diagnosis)
		}
	}})
	for _, p := range mixed {
		if strings.HasPrefix(p.desc, "rollover ") {
			if res := feed(t, c, p); res.Verdict != Valid {
				t.Fatalf("%s: %v", p.desc, res.Verdict)
			}
		}
	}
}

// TestAONoHandshakeRecovers: a session begun before the capture is
// no-handshake; the peer's next connection (a handshake seen) is ok, and
// no-handshake segments of the standing session never prove it stale.
func TestAONoHandshakeRecovers(t *testing.T) {
	var stale int
	peers := aoPeers(t)
	c := New(peers, Options{IdleAfter: -1, OnStale: func(string, netip.Addr, uint16) { stale++ }})
	_, mid := generateAO(t)
	c.SetSession(netip.MustParseAddr(aoRigPeer), 50110)
	for _, p := range mid {
		feed(t, c, p)
	}
	if d := reportOf(t, c.Reports(time.Time{}), aoRigPeer).Diagnosis; d != DiagNoHandshake {
		t.Fatalf("midstream: %s", d)
	}
	// The session is replaced by a new connection (another port).
	c.SetSession(netip.MustParseAddr(aoRigPeer), 0)
	r := newAORig(t, peers)
	r.c = c
	r.conn.a.ap = ap(aoRigPeer, 50999)
	r.conn.session(true, "valid")
	r.flush()
	if d := reportOf(t, c.Reports(time.Time{}), aoRigPeer).Diagnosis; d != DiagOK || stale != 0 {
		t.Fatalf("after a new connection: %s (stale calls %d)", d, stale)
	}
}

// TestAOStaleSession: the session's segments stop verifying (a key
// mismatch) and the peer opens a new connection whose SYN verifies: the
// session is stale, as for TCP-MD5.
func TestAOStaleSession(t *testing.T) {
	var stale []uint16
	c := New(aoPeers(t), Options{IdleAfter: -1, OnStale: func(_ string, _ netip.Addr, port uint16) { stale = append(stale, port) }})
	r := newAORig(t, nil)
	r.c = c
	r.conn.session(true, "valid")
	r.flush()
	c.SetSession(netip.MustParseAddr(aoRigPeer), 50110)
	good := r.conn.a.sig
	r.conn.a.sig = aoSigner{mkts: []tcpao.MasterKey{mkt(tcpao.HMACSHA1, "peerwrong", 1, 1, true)}, rnext: 1, ts: true}
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "bad_mac")
	r.flush()
	n := newAORig(t, nil)
	n.c = c
	n.conn.a.ap, n.conn.a.sig = ap(aoRigPeer, 50111), good
	n.conn.send(true, fSYN, nil, "valid")
	n.flush()
	if len(stale) != 1 || stale[0] != 50110 {
		t.Fatalf("OnStale calls %v, want one for port 50110", stale)
	}
}

// TestAOReload: SetPeers derives the traffic keys of standing connections
// again from the new keys: a changed secret turns valid into bad_mac, and
// back.
func TestAOReload(t *testing.T) {
	peers := aoPeers(t)
	r := newAORig(t, peers)
	r.conn.session(true, "valid")
	r.flush()
	changed := make([]Peer, len(peers))
	copy(changed, peers)
	for i := range changed {
		if changed[i].ID == aoRigPeer {
			changed[i].Keys = []Key{changed[i].Keys[0]}
			changed[i].Keys[0].Secret = []byte("another-secret")
		}
	}
	r.c.SetPeers(changed)
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "bad_mac")
	r.conn.send(false, fPSH|fACK, bgpKeepalive, "sent:invalid")
	r.flush()
	r.c.SetPeers(peers)
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "valid")
	r.conn.send(false, fPSH|fACK, bgpKeepalive, "sent:valid")
	r.flush()
}

// TestAOConnectionsBounded: a peer opening many connections (a SYN flood
// from its address) is followed on at most maxAOConns of them; the one
// heard from last survives.
func TestAOConnectionsBounded(t *testing.T) {
	peers := aoPeers(t)
	r := newAORig(t, peers)
	r.conn.session(true, "valid")
	r.flush()
	for i := range 3 * maxAOConns {
		n := newAORig(t, nil)
		n.c = r.c
		n.conn.a.ap = ap(aoRigPeer, uint16(51000+i))
		n.conn.send(true, fSYN, nil, "valid")
		n.flush()
		// The session keeps talking.
		r.conn.send(true, fPSH|fACK, bgpKeepalive, "valid")
		r.flush()
	}
	st := r.c.state[netip.MustParseAddr(aoRigPeer)]
	if len(st.ao) != maxAOConns {
		t.Fatalf("%d connections followed, want %d", len(st.ao), maxAOConns)
	}
}

// TestAOSessionSurvivesSYNFlood: the established session's connection
// (SetSession) is never the one a flood of SYNs from the peer's address
// pushes out, even when the session is the least recently heard from:
// its segments still verify afterwards (they read no-handshake when its
// ISNs were lost).
func TestAOSessionSurvivesSYNFlood(t *testing.T) {
	for _, told := range []bool{false, true} {
		t.Run(fmt.Sprintf("session-told-%v", told), func(t *testing.T) { aoSYNFlood(t, told) })
	}
	t.Run("ended-connections", aoEndedConnections)
	t.Run("forged-resets", aoForgedResets)
}

// aoForgedResets: RSTs forged into the live session (unsigned, or signed
// with another secret: the kernel drops both) do not end it in the
// checker's eyes, so other live connections of the peer's address that
// were heard from less recently give way before it.
func aoForgedResets(t *testing.T) {
	r := newAORig(t, aoPeers(t))
	r.conn.session(true, "valid")
	r.flush()
	real := r.conn.a.sig
	r.conn.a.sig = aoSigner{ts: true}
	r.conn.send(true, fRST|fACK, nil, "missing")
	wrong := tcpao.MasterKey{Alg: tcpao.HMACSHA1, Secret: []byte("not the secret"), SendID: 1, RecvID: 1, IncludeOptions: true}
	r.conn.a.sig = aoSigner{mkts: []tcpao.MasterKey{wrong}, rnext: 1, ts: true}
	r.conn.send(true, fRST|fACK, nil, "bad_mac")
	r.conn.a.sig = real
	r.flush()
	for i := range 2 * maxAOConns {
		n := newAORig(t, nil)
		n.c = r.c
		n.conn.a.ap = ap(aoRigPeer, uint16(55000+i))
		n.conn.session(true, "valid")
		n.flush()
		r.conn.send(true, fPSH|fACK, bgpKeepalive, "valid")
		r.conn.send(false, fPSH|fACK, bgpKeepalive, "sent:valid")
		r.flush()
	}
}

// aoEndedConnections: connections that ended (a FIN seen: GoBGP refusing
// connections of a peer it holds idle, old sessions) are pushed out
// before the live session, even when they were heard from after it.
func aoEndedConnections(t *testing.T) {
	r := newAORig(t, aoPeers(t))
	r.conn.session(true, "valid")
	r.flush()
	for i := range 2 * maxAOConns {
		n := newAORig(t, nil)
		n.c = r.c
		n.conn.a.ap = ap(aoRigPeer, uint16(54000+i))
		n.conn.session(true, "valid")
		n.conn.send(true, fFIN|fACK, nil, "valid")
		n.flush()
	}
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "valid")
	r.conn.send(false, fPSH|fACK, bgpKeepalive, "sent:valid")
	r.flush()
}

// aoSYNFlood: without SetSession (told false) half-open connections are
// pushed out before the session; with it, complete ones are too.
func aoSYNFlood(t *testing.T, told bool) {
	peers := aoPeers(t)
	r := newAORig(t, peers)
	r.conn.session(true, "valid")
	r.flush()
	for i := range 4 * maxAOConns {
		n := newAORig(t, nil)
		n.c = r.c
		n.conn.a.ap = ap(aoRigPeer, uint16(52000+i))
		if told {
			// Complete connections, each heard from after the session.
			r.c.SetSession(netip.MustParseAddr(aoRigPeer), r.conn.a.ap.Port())
			n.conn.session(true, "valid")
		} else {
			// Half-open ones: SYNs never answered.
			n.conn.send(true, fSYN, nil, "valid")
		}
		n.flush()
	}
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "valid")
	r.conn.send(false, fPSH|fACK, bgpKeepalive, "sent:valid")
	r.flush()
}

// TestAOMergeAndStatus: the TCP-AO counters and KeyID pairs of reports
// from two checkers add up, and the /status shape gains bad_mac,
// unknown_key, no_handshake and key_ids for TCP-AO peers only.
func TestAOMergeAndStatus(t *testing.T) {
	a := PeerReport{Address: netip.MustParseAddr("192.0.2.10"), TCPAO: true, Diagnosis: DiagOK, Last: time.Unix(10, 0),
		Received: Counts{Valid: 3, BadMAC: 1, UnknownKey: 2, NoHandshake: 4}, Sent: Sent{Valid: 2, NoHandshake: 1},
		KeyIDs: []KeyIDCount{{1, 1, 5}, {1, 2, 1}}}
	b := PeerReport{Address: a.Address, TCPAO: true, Diagnosis: DiagBadMAC, Last: time.Unix(20, 0),
		Received: Counts{Valid: 1, BadMAC: 3}, KeyIDs: []KeyIDCount{{1, 2, 2}, {2, 2, 7}}}
	m := MergeReports([]PeerReport{a}, []PeerReport{b})
	if len(m) != 1 {
		t.Fatalf("%+v", m)
	}
	got := m[0]
	if got.Diagnosis != DiagBadMAC || got.Received != (Counts{Valid: 4, BadMAC: 4, UnknownKey: 2, NoHandshake: 4}) ||
		got.Sent != (Sent{Valid: 2, NoHandshake: 1}) || fmt.Sprint(got.KeyIDs) != "[{1 1 5} {1 2 3} {2 2 7}]" {
		t.Fatalf("merged %+v", got)
	}
	js, _ := json.Marshal(StatusOf(got))
	want := `{"diagnosis":"bad-mac","peer_key_id":null,"segments":{"valid":4,"bad_digest":0,"missing":0,"unexpected":0,"bad_mac":4,"unknown_key":2,"no_handshake":4},` +
		`"key_ids":[{"key_id":1,"rnext_key_id":1,"segments":5},{"key_id":1,"rnext_key_id":2,"segments":3},{"key_id":2,"rnext_key_id":2,"segments":7}],` +
		`"sent":{"valid":2,"invalid":0,"unsigned":0,"no_handshake":1}}`
	if string(js) != want {
		t.Errorf("status:\n%s\nwant\n%s", js, want)
	}
	// A TCP-MD5 peer's shadow keeps its shape.
	md5 := StatusOf(PeerReport{Diagnosis: DiagOK, Received: Counts{Valid: 1}})
	js, _ = json.Marshal(md5)
	if want := `{"diagnosis":"ok","peer_key_id":null,"segments":{"valid":1,"bad_digest":0,"missing":0,"unexpected":0},"sent":{"valid":0,"invalid":0,"unsigned":0}}`; string(js) != want {
		t.Errorf("TCP-MD5 status changed shape:\n%s\nwant\n%s", js, want)
	}
}

// TestAOZeroAllocs: once a connection's handshake is seen, checking its
// segments allocates nothing, whatever the verdict.
func TestAOZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	r := newAORig(t, aoPeers(t))
	r.conn.session(true, "valid")
	r.flush()
	sha1 := tcpao.HMACSHA1
	good := r.conn.a.sig
	r.conn.send(true, fPSH|fACK, bgpUpdate, "valid")
	r.conn.send(false, fPSH|fACK, bgpUpdate, "sent:valid")
	r.conn.a.sig = aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "peerwrong", 1, 1, true)}, rnext: 1, ts: true}
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "bad_mac")
	r.conn.a.sig = aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "sha1", 1, 1, false)}, rnext: 1, ts: true}
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "bad_mac+flipped")
	r.conn.a.sig = aoSigner{mkts: []tcpao.MasterKey{mkt(sha1, "sha1", 9, 9, true)}, rnext: 1, ts: true}
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "unknown_key")
	r.conn.a.sig = aoSigner{ts: true}
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "missing")
	r.conn.a.sig = good
	pkts := r.conn.g.pkts
	_, mid := generateAO(t)
	pkts = append(pkts, mid...) // no_handshake
	var segs []frame.TCP
	for _, p := range pkts {
		var tcp frame.TCP
		if err := frame.DecodeTCP(frame.LinkEthernet, bytes.Clone(p.frame), &tcp); err != nil {
			t.Fatal(err)
		}
		segs = append(segs, tcp)
	}
	now := pkts[0].t
	for _, s := range segs { // the state of every address exists
		r.c.Check(s.Src, s.Dst, s.SrcPort, s.DstPort, s.Segment, now)
	}
	for i, s := range segs {
		if n := testing.AllocsPerRun(100, func() { r.c.Check(s.Src, s.Dst, s.SrcPort, s.DstPort, s.Segment, now) }); n != 0 {
			t.Errorf("%s (%s): %v allocations per segment, want 0", pkts[i].desc, pkts[i].want, n)
		}
	}
}

// BenchmarkAOVerifyPath measures the per-segment live path of a TCP-AO
// peer (frame decode, peer and connection lookup, option parse, SNE, MAC,
// counters; the checker's lock once per block of 4096 as the Runner takes
// it) on a received data segment of each payload size, against bare
// tcpao.TrafficKey.Verify of the same segment with the same traffic key,
// timed in interleaved chunks of the same run: "x-tcpao" is the ratio.
func BenchmarkAOVerifyPath(b *testing.B) {
	for _, alg := range []tcpao.Algorithm{tcpao.HMACSHA1, tcpao.AESCMAC} {
		for _, payload := range []int{19, 140, 1440} {
			b.Run(fmt.Sprintf("%s/%d", alg, payload), func(b *testing.B) {
				g := newAOGen(b)
				k := tcpao.MasterKey{Alg: alg, Secret: []byte("benchmark-secret"), SendID: 1, RecvID: 1, IncludeOptions: true}
				peer := Peer{ID: "192.0.2.10", Prefix: netip.MustParsePrefix("192.0.2.10/32"), Pinned: -1, TCPAO: true,
					Keys: []Key{{ID: 1, Secret: k.Secret, Alg: alg, SendID: 1, RecvID: 1, IncludeOptions: true}}}
				conn := g.conn("bench", ap("192.0.2.10", 50110), netip.AddrPortFrom(aoLocal4, 179), 11, 22,
					aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1, ts: true}, aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1, ts: true})
				conn.send(true, fSYN, nil, "valid")
				conn.send(false, fSYN|fACK, nil, "sent:valid")
				conn.send(true, fPSH|fACK, bytes.Repeat([]byte{0xff}, payload), "valid")
				c := New([]Peer{peer}, Options{})
				var tcp frame.TCP
				for _, p := range g.pkts {
					feed(b, c, p)
				}
				frm := g.pkts[2].frame
				if err := frame.DecodeTCP(frame.LinkEthernet, frm, &tcp); err != nil {
					b.Fatal(err)
				}
				seg := tcpao.Segment{Src: tcp.Src, Dst: tcp.Dst, TCP: tcp.Segment}
				ks, err := k.Keys(tcpao.Connection{Local: netip.AddrPortFrom(aoLocal4, 179), Remote: ap("192.0.2.10", 50110), LocalISN: 22, RemoteISN: 11})
				if err != nil {
					b.Fatal(err)
				}
				floorKey := ks.Select(tcpao.Receive, fACK)
				if ok, err := floorKey.Verify(0, seg); !ok || err != nil {
					b.Fatal("floor key does not verify", err)
				}
				now := time.Now()
				b.ReportAllocs()
				b.SetBytes(int64(len(tcp.Segment)))
				var el, floor time.Duration
				for done := 0; done < b.N; {
					n := min(4096, b.N-done)
					t0 := time.Now()
					c.Begin()
					for range n {
						if err := frame.DecodeTCP(frame.LinkEthernet, frm, &tcp); err != nil {
							b.Fatal(err)
						}
						if r := c.CheckHeld(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, now); r.Verdict != Valid {
							b.Fatalf("verdict %v", r.Verdict)
						}
					}
					c.End()
					t1 := time.Now()
					b.StopTimer() // it reads the memory statistics: in neither interval
					f0 := time.Now()
					for range n {
						aoSink, _ = floorKey.Verify(0, seg)
					}
					t2 := time.Now()
					b.StartTimer()
					el += t1.Sub(t0)
					floor += t2.Sub(f0)
					done += n
				}
				b.ReportMetric(float64(el)/float64(floor), "x-tcpao")
			})
		}
	}
}

var aoSink bool

// TestAOTooBigIsMalformed: a TCP-AO segment longer than 65535 bytes (an
// offload super-packet captured before segmentation) on an established
// connection cannot be checked: malformed, never a MAC verdict, on the
// per-segment path as in checkAO, both directions; the segment at its size
// still verifies.
func TestAOTooBigIsMalformed(t *testing.T) {
	r := newAORig(t, aoPeers(t))
	r.conn.session(true, "valid")
	r.conn.send(true, fPSH|fACK, bgpKeepalive, "valid")
	r.conn.send(false, fPSH|fACK, bgpKeepalive, "sent:valid")
	pkts := r.conn.g.pkts
	r.flush()
	for _, p := range pkts[len(pkts)-2:] {
		var tcp frame.TCP
		if err := frame.DecodeTCP(frame.LinkEthernet, bytes.Clone(p.frame), &tcp); err != nil {
			t.Fatal(err)
		}
		big := append(bytes.Clone(tcp.Segment), make([]byte, 0x10000)...)
		if res := r.c.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, big, p.t); res.Verdict != Malformed {
			t.Errorf("%s, %d bytes: %+v, want malformed", p.desc, len(big), res)
		}
		if res := r.c.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, p.t); res.Verdict != Valid {
			t.Errorf("%s: %+v, want valid", p.desc, res)
		}
	}
}
