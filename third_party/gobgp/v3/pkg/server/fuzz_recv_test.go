// Fuzzing the receive path of an established session: authbgpd's carried
// copy of GoBGP adds this file (third_party/gobgp/patches/0090, test-only).
//
//	cd third_party/gobgp/v3 && go test -run='^$' -fuzz='^FuzzRecvUpdate$' -parallel 1 -fuzztime=10m ./pkg/server/

package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/osrg/gobgp/v3/internal/pkg/table"
	"github.com/osrg/gobgp/v3/pkg/config/oc"
	"github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
)

// The session word: what the fuzz input picks the session with, beside the
// bytes the peer sends. authbgpd's third_party/gobgp/seeds_test.go has the
// same layout (its capture seeds are written in it).
const (
	fuzzSessAddPathMask  = 0x00ff  // bit i: ADD-PATH receive negotiated for fuzzAddPathFamilies[i]
	fuzzSessIBGP         = 1 << 8  // the peer is in our AS (else eBGP)
	fuzzSessConfed       = 1 << 9  // the peer's AS is a member of our confederation
	fuzzSessFourOctet    = 1 << 10 // both OPENs have the 4-octet AS capability (else the peer is an OLD speaker)
	fuzzSessLoopback     = 1 << 11 // both ends on IPv4 loopback addresses (loopback next hops allowed)
	fuzzSessNoTreatAsWd  = 1 << 12 // RFC 7606 revised error handling off (GoBGP's default: on)
	fuzzSessNarrow       = 1 << 13 // only ipv4-unicast and ipv6-unicast configured (else every family)
	fuzzSessDebugLog     = 1 << 14 // log level debug (GoBGP then formats every update it receives)
	fuzzSessIPv6         = 1 << 15 // the session runs over IPv6
	fuzzMaxMessages      = 64      // messages read from one input at most
	fuzzTimeLimit        = time.Second
	fuzzLocalAS          = 65001
	fuzzPeerAS2          = 65002
	fuzzPeerAS4          = 4200000002
	fuzzConfedIdentifier = 64999
)

// fuzzAddPathFamilies are the families the session word's low bits turn
// ADD-PATH receive on for.
var fuzzAddPathFamilies = [8]bgp.RouteFamily{
	bgp.RF_IPv4_UC, bgp.RF_IPv6_UC, bgp.RF_IPv4_MPLS, bgp.RF_IPv6_MPLS,
	bgp.RF_IPv4_VPN, bgp.RF_IPv6_VPN, bgp.RF_EVPN, bgp.RF_FS_IPv4_UC,
}

// fuzzBounded runs fn on another goroutine and fails t when it panics or has
// not returned within fuzzTimeLimit (an endless loop).
func fuzzBounded(t *testing.T, what string, fn func()) {
	t.Helper()
	type panicked struct {
		v     any
		stack []byte
	}
	done := make(chan *panicked, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- &panicked{r, debug.Stack()}
			}
		}()
		fn()
		done <- nil
	}()
	timer := time.NewTimer(fuzzTimeLimit)
	defer timer.Stop()
	select {
	case p := <-done:
		if p != nil {
			t.Fatalf("%s panicked: %v\n%s", what, p.v, p.stack)
		}
	case <-timer.C:
		t.Fatalf("%s: still running after %v (an endless loop?)", what, fuzzTimeLimit)
	}
}

// fuzzLogger discards what it is given, after formatting the fields of every
// message at an enabled level, as a real logger would (GoBGP logs what it
// received: a String method that panics is a crash too).
type fuzzLogger struct{ level log.LogLevel }

func (l *fuzzLogger) log(level log.LogLevel, msg string, fields log.Fields) {
	if level <= l.level {
		_ = fmt.Sprint(msg, fields)
	}
}
func (l *fuzzLogger) Panic(msg string, fields log.Fields) { panic(fmt.Sprint(msg, fields)) }
func (l *fuzzLogger) Fatal(msg string, fields log.Fields) { panic(fmt.Sprint("fatal: ", msg, fields)) }
func (l *fuzzLogger) Error(msg string, fields log.Fields) { l.log(log.ErrorLevel, msg, fields) }
func (l *fuzzLogger) Warn(msg string, fields log.Fields)  { l.log(log.WarnLevel, msg, fields) }
func (l *fuzzLogger) Info(msg string, fields log.Fields)  { l.log(log.InfoLevel, msg, fields) }
func (l *fuzzLogger) Debug(msg string, fields log.Fields) { l.log(log.DebugLevel, msg, fields) }
func (l *fuzzLogger) SetLevel(level log.LogLevel)         { l.level = level }
func (l *fuzzLogger) GetLevel() log.LogLevel              { return l.level }

// fuzzConn is the session's connection: what the peer sends is the input;
// what we send is dropped.
type fuzzConn struct {
	r             *bytes.Reader
	local, remote net.Addr
}

func (c *fuzzConn) Read(b []byte) (int, error)         { return c.r.Read(b) }
func (c *fuzzConn) Write(b []byte) (int, error)        { return len(b), nil }
func (c *fuzzConn) Close() error                       { return nil }
func (c *fuzzConn) LocalAddr() net.Addr                { return c.local }
func (c *fuzzConn) RemoteAddr() net.Addr               { return c.remote }
func (c *fuzzConn) SetDeadline(t time.Time) error      { return nil }
func (c *fuzzConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *fuzzConn) SetWriteDeadline(t time.Time) error { return nil }

// fuzzSession is an established session with one peer, as the session word
// picks it: the peer (its FSM, Adj-RIB-In), the handler whose receive
// function reads the peer's messages, the global RIB and routing policy the
// server would send the peer's paths to.
type fuzzSession struct {
	peer     *peer
	h        *fsmHandler
	rib      *table.TableManager
	policy   *table.RoutingPolicy
	families []bgp.RouteFamily
}

func newFuzzSession(t *testing.T, sess uint16, data []byte) *fuzzSession {
	t.Helper()
	logger := &fuzzLogger{level: log.InfoLevel}
	if sess&fuzzSessDebugLog != 0 {
		logger.level = log.DebugLevel
	}
	localAddr, peerAddr := "192.0.2.1", "192.0.2.2"
	switch {
	case sess&fuzzSessLoopback != 0:
		localAddr, peerAddr = "127.0.0.1", "127.0.0.2"
	case sess&fuzzSessIPv6 != 0:
		localAddr, peerAddr = "2001:db8::1", "2001:db8::2"
	}
	peerAS := uint32(fuzzPeerAS2)
	switch {
	case sess&fuzzSessIBGP != 0:
		peerAS = fuzzLocalAS
	case sess&fuzzSessFourOctet != 0:
		peerAS = fuzzPeerAS4
	}
	g := &oc.Global{Config: oc.GlobalConfig{As: fuzzLocalAS, RouterId: "192.0.2.1"}}
	if sess&fuzzSessConfed != 0 {
		g.Confederation.Config = oc.ConfederationConfig{Enabled: true, Identifier: fuzzConfedIdentifier, MemberAsList: []uint32{peerAS}}
	}
	var families []bgp.RouteFamily
	if sess&fuzzSessNarrow != 0 {
		families = []bgp.RouteFamily{bgp.RF_IPv4_UC, bgp.RF_IPv6_UC}
	} else {
		for _, f := range bgp.AddressFamilyValueMap {
			families = append(families, f)
		}
	}
	addPath := func(f bgp.RouteFamily) bool {
		for i, a := range fuzzAddPathFamilies {
			if a == f && sess&(1<<i) != 0 {
				return true
			}
		}
		return false
	}
	n := fuzzNeighbor(t, sess, g, func() *oc.Neighbor {
		n := &oc.Neighbor{
			Config:    oc.NeighborConfig{NeighborAddress: peerAddr, PeerAs: peerAS},
			Transport: oc.Transport{Config: oc.TransportConfig{LocalAddress: localAddr}},
		}
		for _, f := range families {
			a := oc.AfiSafi{Config: oc.AfiSafiConfig{AfiSafiName: oc.AfiSafiType(f.String()), Enabled: true}}
			a.AddPaths.Config.Receive = addPath(f)
			a.AddPaths.State.Receive = addPath(f)
			n.AfiSafis = append(n.AfiSafis, a)
		}
		return n
	})
	n.ErrorHandling.Config.TreatAsWithdraw = sess&fuzzSessNoTreatAsWd == 0
	rib := table.NewTableManager(logger, families)
	policy := table.NewRoutingPolicy(logger)
	// No policies: the global RIB's default import policy, accept (as
	// StartBgp sets it).
	if err := policy.Reset(&oc.RoutingPolicy{}, map[string]oc.ApplyPolicy{table.GLOBAL_RIB_NAME: {}}); err != nil {
		t.Fatal(err)
	}
	p := newPeer(g, n, rib, policy, logger)
	fsm := p.fsm

	// The peer's OPEN, and what the session negotiates from it (opensent's
	// code: open2Cap, the marshalling options).
	caps := []bgp.ParameterCapabilityInterface{bgp.NewCapRouteRefresh()}
	var tuples []*bgp.CapAddPathTuple
	for _, f := range families {
		caps = append(caps, bgp.NewCapMultiProtocol(f))
		if addPath(f) {
			tuples = append(tuples, bgp.NewCapAddPathTuple(f, bgp.BGP_ADD_PATH_SEND))
		}
	}
	if len(tuples) > 0 {
		caps = append(caps, bgp.NewCapAddPath(tuples))
	}
	myAS := uint16(peerAS)
	if sess&fuzzSessFourOctet != 0 {
		caps = append(caps, bgp.NewCapFourOctetASNumber(peerAS))
		if peerAS > 0xffff {
			myAS = bgp.AS_TRANS
		}
	}
	open := bgp.NewBGPOpenMessage(myAS, 90, "192.0.2.2", []bgp.OptionParameterInterface{bgp.NewOptionParameterCapability(caps)})
	body := open.Body.(*bgp.BGPOpen)
	fsm.lock.Lock()
	fsm.recvOpen = open
	fsm.pConf.State.PeerAs = peerAS
	fsm.peerInfo.AS = peerAS
	fsm.peerInfo.ID = body.ID
	fsm.peerInfo.LocalAddress = net.ParseIP(localAddr)
	fsm.capMap, fsm.rfMap = open2Cap(body, fsm.pConf)
	if _, y := fsm.capMap[bgp.BGP_CAP_ADD_PATH]; y {
		fsm.marshallingOptions = &bgp.MarshallingOption{AddPath: fsm.rfMap}
	}
	fsm.lock.Unlock()
	fsm.StateChange(bgp.BGP_FSM_ESTABLISHED)

	h := &fsmHandler{
		fsm: fsm,
		conn: &fuzzConn{
			r:      bytes.NewReader(data),
			local:  &net.TCPAddr{IP: net.ParseIP(localAddr), Port: 179},
			remote: &net.TCPAddr{IP: net.ParseIP(peerAddr), Port: 40000},
		},
		stateReasonCh:    make(chan fsmStateReason, 2),
		holdTimerResetCh: make(chan bool, 2),
	}
	return &fuzzSession{peer: p, h: h, rib: rib, policy: policy, families: families}
}

// fuzzNeighbors caches the neighbor configurations of session words with
// GoBGP's defaults set (SetDefaultNeighborConfigValues, which makes a viper
// per family: most of a session's cost): each session gets a copy.
var fuzzNeighbors struct {
	sync.Mutex
	m map[uint16]*oc.Neighbor
}

// fuzzNeighbor is the neighbor configuration of sess, with GoBGP's defaults
// set, a copy of one cached for its word.
func fuzzNeighbor(t *testing.T, sess uint16, g *oc.Global, make func() *oc.Neighbor) *oc.Neighbor {
	t.Helper()
	key := sess &^ fuzzSessDebugLog
	fuzzNeighbors.Lock()
	defer fuzzNeighbors.Unlock()
	n, ok := fuzzNeighbors.m[key]
	if !ok {
		n = make()
		if err := oc.SetDefaultNeighborConfigValues(n, nil, g); err != nil {
			t.Fatal(err)
		}
		if fuzzNeighbors.m == nil || len(fuzzNeighbors.m) >= 4096 {
			fuzzNeighbors.m = map[uint16]*oc.Neighbor{}
		}
		fuzzNeighbors.m[key] = n
	}
	c := *n
	c.AfiSafis = append([]oc.AfiSafi(nil), n.AfiSafis...)
	return &c
}

// fuzzExpected is what ProcessMessage must make of an UPDATE: one path per
// NLRI, in its order (NLRI, MP_REACH_NLRI, withdrawn routes,
// MP_UNREACH_NLRI), withdrawals marked as such; or one End-of-RIB path.
func fuzzExpected(u *bgp.BGPUpdate) (nlri []bgp.AddrPrefixInterface, withdraw []bool) {
	var reach *bgp.PathAttributeMpReachNLRI
	var unreach []bgp.AddrPrefixInterface
	for _, a := range u.PathAttributes {
		switch a := a.(type) {
		case *bgp.PathAttributeMpReachNLRI:
			reach = a
		case *bgp.PathAttributeMpUnreachNLRI:
			unreach = append(unreach, a.Value...)
		}
	}
	for _, n := range u.NLRI {
		nlri, withdraw = append(nlri, n), append(withdraw, false)
	}
	if reach != nil {
		for _, n := range reach.Value {
			nlri, withdraw = append(nlri, n), append(withdraw, false)
		}
	}
	for _, n := range u.WithdrawnRoutes {
		nlri, withdraw = append(nlri, n), append(withdraw, true)
	}
	for _, n := range unreach {
		nlri, withdraw = append(nlri, n), append(withdraw, true)
	}
	return nlri, withdraw
}

// fuzzCheckPaths checks an UPDATE as the receive function leaves it (after
// the 4-byte-AS merge) and the paths ProcessMessage made of it.
func fuzzCheckPaths(t *testing.T, u *bgp.BGPUpdate, paths []*table.Path) {
	t.Helper()
	for _, a := range u.PathAttributes {
		switch a := a.(type) {
		case *bgp.PathAttributeAs4Path:
			t.Fatalf("an AS4_PATH is left after the 4-byte-AS merge: %v", a)
		case *bgp.PathAttributeAs4Aggregator:
			t.Fatalf("an AS4_AGGREGATOR is left after the 4-byte-AS merge: %v", a)
		case *bgp.PathAttributeAsPath:
			for _, s := range a.Value {
				if _, ok := s.(*bgp.As4PathParam); !ok {
					t.Fatalf("a 2-byte AS_PATH segment is left after the 4-byte-AS merge: %v", s)
				}
			}
		}
	}
	if eor, f := u.IsEndOfRib(); eor {
		if len(paths) != 1 || !paths[0].IsEOR() || paths[0].GetRouteFamily() != f {
			t.Fatalf("End-of-RIB for %v: %d paths, want one End-of-RIB", f, len(paths))
		}
		return
	}
	nlri, withdraw := fuzzExpected(u)
	if len(paths) != len(nlri) {
		t.Fatalf("%d NLRI, %d paths", len(nlri), len(paths))
	}
	for i, p := range paths {
		if p.GetNlri() != nlri[i] || p.IsWithdraw != withdraw[i] || p.IsEOR() {
			t.Fatalf("path %d is %v (withdrawal %t, End-of-RIB %t), want %v (withdrawal %t)", i, p.GetNlri(), p.IsWithdraw, p.IsEOR(), nlri[i], withdraw[i])
		}
		if f := bgp.AfiSafiToRouteFamily(nlri[i].AFI(), nlri[i].SAFI()); p.GetRouteFamily() != f {
			t.Fatalf("path %d: family %v, its NLRI's %v", i, p.GetRouteFamily(), f)
		}
	}
}

// fuzzKey names a path of the peer as the Adj-RIB-In holds it: family,
// NLRI and path identifier.
func fuzzKey(p *table.Path) string {
	return fmt.Sprintf("%v %s %d", p.GetRouteFamily(), p.GetNlri(), p.GetNlri().PathIdentifier())
}

// fuzzTables feeds a message's paths to the peer and the server's tables as
// handleFSMMessage does (handleUpdate: loop checks and the Adj-RIB-In;
// propagateUpdate: the import policy and the global RIB, whose destinations
// select their best paths) and converts every best path to the API's type
// as ListPath does. model is what the Adj-RIB-In must hold after it.
func fuzzTables(t *testing.T, s *fuzzSession, fmsg *fsmMsg, model map[string]bool) {
	t.Helper()
	fuzzBounded(t, "handleUpdate, the import policy, the global RIB", func() {
		paths, _, notification := s.peer.handleUpdate(fmsg)
		if notification != nil {
			return
		}
		s.peer.fsm.lock.RLock()
		info := s.peer.fsm.peerInfo
		s.peer.fsm.lock.RUnlock()
		for _, p := range paths {
			if q := s.policy.ApplyPolicy(table.GLOBAL_RIB_NAME, table.POLICY_DIRECTION_IMPORT, p, &table.PolicyOptions{Info: info}); q != nil {
				p = q
			} else {
				p = p.Clone(true)
			}
			s.rib.Update(p)
		}
		for _, p := range s.rib.GetBestPathList(table.GLOBAL_RIB_NAME, 0, s.families) {
			_ = toPathApi(p, nil, false, true, true)
		}
	})
	for _, p := range fmsg.PathList {
		if p.IsEOR() {
			continue
		}
		if p.IsWithdraw {
			delete(model, fuzzKey(p))
		} else {
			model[fuzzKey(p)] = true
		}
	}
	adj := s.peer.adjRibIn
	held := adj.PathList(s.families, false)
	if len(held) != len(model) {
		t.Fatalf("the Adj-RIB-In holds %d paths, %d announced and not withdrawn", len(held), len(model))
	}
	accepted := 0
	for _, p := range held {
		if p.IsWithdraw {
			t.Fatalf("the Adj-RIB-In holds a withdrawal: %v", p.GetNlri())
		}
		if !model[fuzzKey(p)] {
			t.Fatalf("the Adj-RIB-In holds %s, which is not announced", fuzzKey(p))
		}
		if !p.IsRejected() {
			accepted++
		}
	}
	if n := adj.Accepted(s.families); n != accepted {
		t.Fatalf("the Adj-RIB-In counts %d paths accepted, holds %d", n, accepted)
	}
	for _, p := range s.rib.GetBestPathList(table.GLOBAL_RIB_NAME, 0, s.families) {
		if p.IsWithdraw {
			t.Fatalf("a withdrawal is the best path for %v", p.GetNlri())
		}
	}
}

// FuzzRecvUpdate feeds what a peer sends to the real receive function of an
// established session (fsmHandler.recvMessageWithError: decode with the
// session's marshalling options, validation, the 4-byte-AS merge,
// table.ProcessMessage), then gives the paths to the peer's Adj-RIB-In and
// the global RIB as the server does, message by message, until the input
// ends or the session would be reset. The session word (see the constants)
// picks the session: eBGP or iBGP, confederation, 4-octet AS or an OLD
// peer, ADD-PATH per family, the families configured, loopback addresses,
// IPv6, RFC 7606 error handling, debug logging. The messages' markers pick
// the order of their attributes (fuzzReorder).
//
// Properties: no panic, and each message's handling (receive, tables)
// within fuzzTimeLimit; after the merge no AS4_PATH or AS4_AGGREGATOR is
// left and the AS_PATH is all 4-byte; ProcessMessage makes one path per
// NLRI in order, withdrawals marked, or one End-of-RIB; the Adj-RIB-In
// holds exactly what was announced and not withdrawn (by family, NLRI,
// path identifier), no withdrawals, and its accepted counter matches what
// it holds; no withdrawal is a best path.
//
// Seeds: authbgpd's captures of real sessions and crafted inputs, from its
// third_party/gobgp/testdata/fuzz/FuzzRecvUpdate (fuzzSeeds).
func FuzzRecvUpdate(f *testing.F) {
	for _, s := range fuzzSeeds(f, "FuzzRecvUpdate") {
		f.Add(s.sess, s.data)
	}
	f.Fuzz(func(t *testing.T, sess uint16, data []byte) {
		s := newFuzzSession(t, sess, fuzzReorder(data))
		model := map[string]bool{}
		for i := 0; i < fuzzMaxMessages; i++ {
			var fmsg *fsmMsg
			var err error
			fuzzBounded(t, "recvMessageWithError", func() { fmsg, err = s.h.recvMessageWithError() })
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return // the input is all read
			}
			if err != nil {
				return // the session is reset: a NOTIFICATION, the connection closed
			}
			if fmsg == nil {
				continue // a KEEPALIVE, or a NOTIFICATION that ends the session
			}
			m, ok := fmsg.MsgData.(*bgp.BGPMessage)
			if !ok || fmsg.MsgType != fsmMsgBGPMessage || m.Header.Type != bgp.BGP_MSG_UPDATE {
				continue
			}
			if fmsg.PathList == nil {
				// RFC 7606 AFI/SAFI disable: the family is off for the
				// session and the message dropped before the merge and
				// ProcessMessage (which always makes a list).
				continue
			}
			u := m.Body.(*bgp.BGPUpdate)
			fuzzCheckPaths(t, u, fmsg.PathList)
			fuzzTables(t, s, fmsg, model)
		}
	})
}

// fuzzReorder reorders the path attributes of each UPDATE in a stream as a
// peer may send them (GoBGP keeps the order received), which a mutation of
// their bytes seldom does. The marker says how (GoBGP does not check it; a
// real one is all ones): the attributes are rotated by the first byte's bits
// that are not set, and reversed unless the second byte is 0xff. The result
// has all-ones markers. A stream it cannot walk is left as it is from there.
func fuzzReorder(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for len(data) >= bgp.BGP_HEADER_LENGTH {
		n := int(data[16])<<8 | int(data[17])
		if n < bgp.BGP_HEADER_LENGTH || n > len(data) {
			break
		}
		msg := append([]byte(nil), data[:n]...)
		rot, rev := int(^msg[0]), msg[1] != 0xff
		data = data[n:]
		for i := 0; i < 16; i++ {
			msg[i] = 0xff
		}
		if msg[18] == bgp.BGP_MSG_UPDATE && (rot != 0 || rev) {
			msg = fuzzReorderUpdate(msg, rot, rev)
		}
		out = append(out, msg...)
	}
	return append(out, data...)
}

func fuzzReorderUpdate(msg []byte, rot int, rev bool) []byte {
	b := msg[bgp.BGP_HEADER_LENGTH:]
	if len(b) < 4 {
		return msg
	}
	wl := int(b[0])<<8 | int(b[1])
	if 2+wl+2 > len(b) {
		return msg
	}
	al := int(b[2+wl])<<8 | int(b[3+wl])
	start := bgp.BGP_HEADER_LENGTH + 4 + wl
	if start+al > len(msg) {
		return msg
	}
	var attrs [][]byte
	for a := msg[start : start+al]; len(a) > 0; {
		if len(a) < 3 {
			return msg
		}
		hl, l := 3, int(a[2])
		if a[0]&0x10 != 0 {
			if len(a) < 4 {
				return msg
			}
			hl, l = 4, int(a[2])<<8|int(a[3])
		}
		if hl+l > len(a) {
			return msg
		}
		attrs, a = append(attrs, a[:hl+l]), a[hl+l:]
	}
	if len(attrs) < 2 {
		return msg
	}
	k := rot % len(attrs)
	attrs = append(attrs[k:len(attrs):len(attrs)], attrs[:k]...)
	if rev {
		for i, j := 0, len(attrs)-1; i < j; i, j = i+1, j-1 {
			attrs[i], attrs[j] = attrs[j], attrs[i]
		}
	}
	out := append([]byte(nil), msg[:start]...)
	for _, a := range attrs {
		out = append(out, a...)
	}
	return append(out, msg[start+al:]...)
}

// fuzzSeed is a corpus entry of (session word, bytes).
type fuzzSeed struct {
	sess uint16
	data []byte
}

var fuzzSeedCache sync.Map

// fuzzSeeds reads the corpus files (go test fuzz v1, of (uint16, []byte))
// in the directory testdata/fuzz/<target> of the carry around this module:
// authbgpd's third_party/gobgp, found as the nearest parent directory with
// a PRISTINE file, or GOBGP_FUZZ_SEEDS. Outside such a carry there are
// none.
func fuzzSeeds(tb testing.TB, target string) []fuzzSeed {
	tb.Helper()
	if v, ok := fuzzSeedCache.Load(target); ok {
		return v.([]fuzzSeed)
	}
	dir := os.Getenv("GOBGP_FUZZ_SEEDS")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			tb.Fatal(err)
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "PRISTINE")); err == nil {
				dir = filepath.Join(d, "testdata", "fuzz")
				break
			}
			if filepath.Dir(d) == d {
				tb.Logf("no PRISTINE above %s: no seeds but go test's own corpus", wd)
				return nil
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, target, "*"))
	if err != nil {
		tb.Fatal(err)
	}
	var seeds []fuzzSeed
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		s, err := fuzzParseCorpusFile(b)
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		seeds = append(seeds, s)
	}
	fuzzSeedCache.Store(target, seeds)
	return seeds
}

// fuzzParseCorpusFile reads a go test fuzz v1 file of (uint16, []byte).
func fuzzParseCorpusFile(b []byte) (fuzzSeed, error) {
	bad := errors.New("not a go test fuzz v1 file of (uint16, []byte)")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || lines[0] != "go test fuzz v1" {
		return fuzzSeed{}, bad
	}
	num, ok1 := strings.CutPrefix(lines[1], "uint16(")
	str, ok2 := strings.CutPrefix(lines[2], "[]byte(")
	num, ok3 := strings.CutSuffix(num, ")")
	str, ok4 := strings.CutSuffix(str, ")")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return fuzzSeed{}, bad
	}
	n, err := strconv.ParseUint(num, 0, 16)
	if err != nil {
		return fuzzSeed{}, err
	}
	s, err := strconv.Unquote(str)
	if err != nil {
		return fuzzSeed{}, err
	}
	return fuzzSeed{uint16(n), []byte(s)}, nil
}

// TestFuzzSessionOptions checks that the sessions FuzzRecvUpdate builds are
// what the session word says: the options a receive decodes with, eBGP or
// iBGP, confederation, 4-octet AS.
func TestFuzzSessionOptions(t *testing.T) {
	for _, tc := range []struct {
		sess                 uint16
		ebgp, confed, twoAS  bool
		addPath, noAddPathOn bgp.RouteFamily
	}{
		{sess: fuzzSessFourOctet | 1, ebgp: true, addPath: bgp.RF_IPv4_UC, noAddPathOn: bgp.RF_IPv6_UC},
		{sess: fuzzSessIBGP | fuzzSessConfed | 1<<6, confed: true, twoAS: true, addPath: bgp.RF_EVPN, noAddPathOn: bgp.RF_IPv4_UC},
		{sess: fuzzSessNarrow | 1<<2, ebgp: true, twoAS: true, noAddPathOn: bgp.RF_IPv4_MPLS},
	} {
		s := newFuzzSession(t, tc.sess, nil)
		fsm := s.h.fsm
		if got := fsm.pConf.IsEBGPPeer(fsm.gConf); got != tc.ebgp {
			t.Errorf("%#x: eBGP %t, want %t", tc.sess, got, tc.ebgp)
		}
		if got := fsm.pConf.IsConfederationMember(fsm.gConf); got != tc.confed {
			t.Errorf("%#x: confederation member %t, want %t", tc.sess, got, tc.confed)
		}
		if fsm.twoByteAsTrans != tc.twoAS {
			t.Errorf("%#x: twoByteAsTrans %t, want %t", tc.sess, fsm.twoByteAsTrans, tc.twoAS)
		}
		if tc.addPath != 0 && !bgp.IsAddPathEnabled(true, tc.addPath, []*bgp.MarshallingOption{fsm.marshallingOptions}) {
			t.Errorf("%#x: no ADD-PATH receive for %v", tc.sess, tc.addPath)
		}
		if bgp.IsAddPathEnabled(true, tc.noAddPathOn, []*bgp.MarshallingOption{fsm.marshallingOptions}) {
			t.Errorf("%#x: ADD-PATH receive for %v", tc.sess, tc.noAddPathOn)
		}
	}
}
