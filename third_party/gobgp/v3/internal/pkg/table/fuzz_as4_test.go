// Fuzzing the 4-byte-AS merge (RFC 6793) of received UPDATEs: authbgpd's
// carried copy of GoBGP adds this file (third_party/gobgp/patches/0090,
// test-only).
//
//	cd third_party/gobgp/v3 && go test -run='^$' -fuzz='^Fuzz4ByteAs$' -parallel 1 -fuzztime=10m ./internal/pkg/table/

package table

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
)

// as4Logger discards what it is given, after formatting it.
type as4Logger struct{}

func (as4Logger) Panic(msg string, fields log.Fields) { panic(fmt.Sprint(msg, fields)) }
func (as4Logger) Fatal(msg string, fields log.Fields) { panic(fmt.Sprint("fatal: ", msg, fields)) }
func (as4Logger) Error(msg string, fields log.Fields) { _ = fmt.Sprint(msg, fields) }
func (as4Logger) Warn(msg string, fields log.Fields)  { _ = fmt.Sprint(msg, fields) }
func (as4Logger) Info(msg string, fields log.Fields)  { _ = fmt.Sprint(msg, fields) }
func (as4Logger) Debug(msg string, fields log.Fields) {}
func (as4Logger) SetLevel(level log.LogLevel)         {}
func (as4Logger) GetLevel() log.LogLevel              { return log.InfoLevel }

// as4Bounded runs fn on another goroutine and fails t when it panics or has
// not returned within a second (an endless loop).
func as4Bounded(t *testing.T, what string, fn func()) {
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
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	select {
	case p := <-done:
		if p != nil {
			t.Fatalf("%s panicked: %v\n%s", what, p.v, p.stack)
		}
	case <-timer.C:
		t.Fatalf("%s: still running after 1s (an endless loop?)", what)
	}
}

// asTokens flattens AS path segments: one token per AS of an AS_SEQUENCE,
// one per AS_SET (RFC 4271 9.1.2.2: a set counts as one), and whether any
// is a confederation segment (RFC 5065), empty, or longer than 255.
func asTokens(segs []bgp.AsPathParamInterface) (tokens []string, confed, empty, long bool) {
	for _, s := range segs {
		as := s.GetAS()
		if len(as) == 0 {
			empty = true
		}
		if len(as) > 255 {
			long = true
		}
		switch s.GetType() {
		case bgp.BGP_ASPATH_ATTR_TYPE_SEQ:
			for _, a := range as {
				tokens = append(tokens, strconv.FormatUint(uint64(a), 10))
			}
		case bgp.BGP_ASPATH_ATTR_TYPE_SET:
			if len(as) > 0 {
				tokens = append(tokens, fmt.Sprint(as))
			}
		default:
			confed = true
		}
	}
	return tokens, confed, empty, long
}

// as4Params are an AS4_PATH's segments without the confederation segments
// RFC 6793 section 6 says to discard.
func as4Params(p *bgp.PathAttributeAs4Path) []bgp.AsPathParamInterface {
	var l []bgp.AsPathParamInterface
	for _, s := range p.Value {
		if t := s.GetType(); t != bgp.BGP_ASPATH_ATTR_TYPE_CONFED_SEQ && t != bgp.BGP_ASPATH_ATTR_TYPE_CONFED_SET {
			l = append(l, s)
		}
	}
	return l
}

// Fuzz4ByteAs runs the 4-byte-AS merge of GoBGP's receive path
// (UpdatePathAttrs4ByteAs, UpdatePathAggregator4ByteAs) on received
// UPDATEs, decoded and validated as the session does (fsm.go's
// recvMessageWithError; RFC 7606 error handling on, every family, eBGP).
// The input is a session word (its ADD-PATH bits pick the decoder's
// options, see pkg/server/fuzz_recv_test.go) and a stream of messages (their
// markers pick the order of their attributes, see as4Received).
//
// Properties: no panic, within a second; afterwards no AS4_PATH, nor an
// AS4_AGGREGATOR where there is an AGGREGATOR (without one the merge must
// fail), whose AS the AGGREGATOR then has; every other attribute is where it
// was and unchanged; the AS_PATH is all 4-byte segments, has no empty
// segment it did not have and none longer than 255; without an AS4_PATH it
// says what it said; with one (and no confederation segment in the
// AS_PATH, where RFC 6793's counting is unambiguous), RFC 6793 section
// 4.2.3: if the AS_PATH has fewer ASes than the AS4_PATH, the AS4_PATH is
// ignored, else the result is the leading ASes of the AS_PATH and then the
// AS4_PATH, as many ASes as the AS_PATH had (an AS_SET counts as one).
//
// Seeds: those of FuzzRecvUpdate (authbgpd's captures and crafted inputs,
// third_party/gobgp/testdata/fuzz/FuzzRecvUpdate) and the cases below.
func Fuzz4ByteAs(f *testing.F) {
	for _, s := range as4Seeds(f) {
		f.Add(s.sess, s.data)
	}
	seq := func(as ...uint32) *bgp.As4PathParam { return bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, as) }
	seq2 := func(as ...uint16) *bgp.AsPathParam { return bgp.NewAsPathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, as) }
	set2 := func(as ...uint16) *bgp.AsPathParam { return bgp.NewAsPathParam(bgp.BGP_ASPATH_ATTR_TYPE_SET, as) }
	confed2 := func(as ...uint16) *bgp.AsPathParam {
		return bgp.NewAsPathParam(bgp.BGP_ASPATH_ATTR_TYPE_CONFED_SEQ, as)
	}
	origin := bgp.NewPathAttributeOrigin(0)
	nh := bgp.NewPathAttributeNextHop("192.0.2.2")
	nlri := []*bgp.IPAddrPrefix{bgp.NewIPAddrPrefix(24, "198.51.100.0")}
	trans := uint16(bgp.AS_TRANS)
	for _, attrs := range [][]bgp.PathAttributeInterface{
		{origin, bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{seq2(65002, trans, trans)}), nh,
			bgp.NewPathAttributeAs4Path([]*bgp.As4PathParam{seq(4200000001, 4200000002)})},
		{origin, bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{seq2(65002, trans), set2(65004, trans)}), nh,
			bgp.NewPathAttributeAggregator(trans, "192.0.2.9"), bgp.NewPathAttributeAs4Aggregator(4200000005, "192.0.2.9"),
			bgp.NewPathAttributeAs4Path([]*bgp.As4PathParam{seq(4200000001), bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SET, []uint32{65004, 4200000003})})},
		{origin, bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{confed2(65010), seq2(65002, trans)}), nh,
			bgp.NewPathAttributeAs4Path([]*bgp.As4PathParam{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_CONFED_SEQ, []uint32{65010}), seq(4200000001)})},
		{origin, bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{seq2(65002)}), nh,
			bgp.NewPathAttributeAs4Path([]*bgp.As4PathParam{seq(4200000001, 4200000002, 4200000003)})},
	} {
		b, err := bgp.NewBGPUpdateMessage(nil, attrs, nlri).Serialize()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint16(0), b)
	}
	f.Fuzz(func(t *testing.T, sess uint16, data []byte) {
		var opt *bgp.MarshallingOption
		if sess&0xff != 0 {
			m := map[bgp.RouteFamily]bgp.BGPAddPathMode{}
			for i, f := range []bgp.RouteFamily{bgp.RF_IPv4_UC, bgp.RF_IPv6_UC, bgp.RF_IPv4_MPLS, bgp.RF_IPv6_MPLS,
				bgp.RF_IPv4_VPN, bgp.RF_IPv6_VPN, bgp.RF_EVPN, bgp.RF_FS_IPv4_UC} {
				if sess&(1<<i) != 0 {
					m[f] = bgp.BGP_ADD_PATH_RECEIVE
				}
			}
			opt = &bgp.MarshallingOption{AddPath: m}
		}
		rfs := map[bgp.RouteFamily]bgp.BGPAddPathMode{}
		for _, f := range bgp.AddressFamilyValueMap {
			rfs[f] = bgp.BGP_ADD_PATH_NONE
		}
		for i := 0; i < 64 && len(data) >= bgp.BGP_HEADER_LENGTH; i++ {
			n := int(data[16])<<8 | int(data[17])
			if n < bgp.BGP_HEADER_LENGTH || n > len(data) {
				return
			}
			msg := data[:n]
			data = data[n:]
			if u := as4Received(t, msg, opt, rfs); u != nil {
				checkAs4Merge(t, u)
			}
		}
	})
}

// as4Received decodes and validates an UPDATE as the receive path does
// before the merge; nil when the session would be reset instead, or it is
// not an UPDATE.
//
// The message's marker (which GoBGP does not check; a real one is all ones)
// reorders the attributes as a peer may send them (GoBGP keeps the order
// received), which a mutation of the attributes' bytes seldom does: they are
// rotated by the first byte's bits that are not set, and reversed unless
// the second byte is 0xff.
func as4Received(t *testing.T, msg []byte, opt *bgp.MarshallingOption, rfs map[bgp.RouteFamily]bgp.BGPAddPathMode) *bgp.BGPUpdate {
	var u *bgp.BGPUpdate
	as4Bounded(t, "decode and validation", func() {
		m, err := bgp.ParseBGPMessage(msg, opt)
		if m == nil || m.Header.Type != bgp.BGP_MSG_UPDATE {
			return
		}
		if a := m.Body.(*bgp.BGPUpdate).PathAttributes; len(a) > 1 {
			k := int(^msg[0]) % len(a)
			a = append(a[k:len(a):len(a)], a[:k]...)
			if msg[1] != 0xff {
				for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
					a[i], a[j] = a[j], a[i]
				}
			}
			m.Body.(*bgp.BGPUpdate).PathAttributes = a
		}
		handling := func(err error) bool {
			me, ok := err.(*bgp.MessageError)
			if !ok {
				return false
			}
			switch me.ErrorHandling {
			case bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW:
				m.Body = bgp.TreatAsWithdraw(m.Body.(*bgp.BGPUpdate))
				return true
			case bgp.ERROR_HANDLING_ATTRIBUTE_DISCARD:
				return true
			}
			return false
		}
		if err != nil && !handling(err) {
			return
		}
		if err == nil && bgp.ValidateBGPMessage(m) != nil {
			return
		}
		if ok, err := bgp.ValidateUpdateMsg(m.Body.(*bgp.BGPUpdate), rfs, true, false, false); !ok && !handling(err) {
			return
		}
		u = m.Body.(*bgp.BGPUpdate)
	})
	return u
}

// checkAs4Merge merges u's 4-byte-AS attributes and checks the result.
func checkAs4Merge(t *testing.T, u *bgp.BGPUpdate) {
	t.Helper()
	var asPath, as4Path []bgp.AsPathParamInterface
	var hasAsPath, hasAs4Path, hasAgg, hasAgg4 bool
	var agg4AS uint32
	type attr struct {
		a    bgp.PathAttributeInterface
		repr string
	}
	var others []attr
	for _, a := range u.PathAttributes {
		switch a := a.(type) {
		case *bgp.PathAttributeAsPath:
			if !hasAsPath {
				hasAsPath = true
				for _, s := range a.Value {
					as := s.GetAS()
					asPath = append(asPath, bgp.NewAs4PathParam(s.GetType(), append([]uint32(nil), as...)))
				}
			}
		case *bgp.PathAttributeAs4Path:
			hasAs4Path = true
			as4Path = as4Params(a)
		case *bgp.PathAttributeAggregator:
			hasAgg = true
		case *bgp.PathAttributeAs4Aggregator:
			hasAgg4, agg4AS = true, a.Value.AS
		default:
			others = append(others, attr{a, fmt.Sprintf("%#v", a)})
		}
	}
	var err1, err2 error
	as4Bounded(t, "UpdatePathAttrs4ByteAs, UpdatePathAggregator4ByteAs", func() {
		err1 = UpdatePathAttrs4ByteAs(as4Logger{}, u)
		err2 = UpdatePathAggregator4ByteAs(u)
	})
	if err1 != nil {
		t.Fatalf("UpdatePathAttrs4ByteAs: %v", err1)
	}
	if err2 != nil && !(hasAgg4 && !hasAgg) {
		t.Fatalf("UpdatePathAggregator4ByteAs: %v", err2)
	}
	if err2 == nil && hasAgg4 && !hasAgg {
		t.Fatal("an AS4_AGGREGATOR without an AGGREGATOR was accepted")
	}
	var merged []bgp.AsPathParamInterface
	i, nAsPath := 0, 0
	for _, a := range u.PathAttributes {
		switch a := a.(type) {
		case *bgp.PathAttributeAsPath:
			nAsPath++
			merged = a.Value
		case *bgp.PathAttributeAs4Path:
			t.Fatalf("an AS4_PATH is left after the merge: %v", a)
		case *bgp.PathAttributeAs4Aggregator:
			if err2 == nil {
				t.Fatalf("an AS4_AGGREGATOR is left after the merge: %v", a)
			}
		case *bgp.PathAttributeAggregator:
			if hasAgg4 && a.Value.AS != agg4AS {
				t.Fatalf("AGGREGATOR AS %d, the AS4_AGGREGATOR's is %d", a.Value.AS, agg4AS)
			}
		default:
			if i >= len(others) || a != others[i].a || fmt.Sprintf("%#v", a) != others[i].repr {
				t.Fatalf("the merge changed, moved or added attribute %d (%v)", i, a)
			}
			i++
		}
	}
	if i != len(others) {
		t.Fatalf("the merge dropped an attribute: %d of %d are left", i, len(others))
	}
	if hasAsPath != (nAsPath == 1) {
		t.Fatalf("%d AS_PATHs after the merge, had one: %t", nAsPath, hasAsPath)
	}
	if !hasAsPath {
		return
	}
	for _, s := range merged {
		if _, ok := s.(*bgp.As4PathParam); !ok {
			t.Fatalf("a 2-byte AS_PATH segment after the merge: %v", s)
		}
	}
	before, confed, empty, _ := asTokens(asPath)
	after, _, emptyAfter, long := asTokens(merged)
	if emptyAfter && !empty {
		t.Fatalf("the merge made an empty AS_PATH segment: %v from AS_PATH %v and AS4_PATH %v", merged, asPath, as4Path)
	}
	if long {
		t.Fatalf("the merge made an AS_PATH segment of more than 255 ASes")
	}
	want := before
	if hasAs4Path {
		if confed {
			return // RFC 6793 does not say how confederation segments count
		}
		if tokens4, _, _, _ := asTokens(as4Path); len(before) >= len(tokens4) {
			want = append(append([]string(nil), before[:len(before)-len(tokens4)]...), tokens4...)
		}
	}
	if !reflect.DeepEqual(after, want) && (len(after) > 0 || len(want) > 0) {
		t.Fatalf("merged AS path %v, want %v (AS_PATH %v, AS4_PATH %v)", after, want, asPath, as4Path)
	}
}

// as4Seeds reads the corpus files of FuzzRecvUpdate (go test fuzz v1, of
// (uint16, []byte)) from the carry around this module: authbgpd's
// third_party/gobgp/testdata/fuzz/FuzzRecvUpdate, found as the nearest parent
// directory with a PRISTINE file, or GOBGP_FUZZ_SEEDS/FuzzRecvUpdate.
func as4Seeds(tb testing.TB) []struct {
	sess uint16
	data []byte
} {
	tb.Helper()
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
				return nil
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "FuzzRecvUpdate", "*"))
	if err != nil {
		tb.Fatal(err)
	}
	var seeds []struct {
		sess uint16
		data []byte
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		err = errors.New("not a go test fuzz v1 file of (uint16, []byte)")
		if len(lines) == 3 && lines[0] == "go test fuzz v1" && strings.HasPrefix(lines[1], "uint16(") && strings.HasPrefix(lines[2], "[]byte(") {
			var n uint64
			var s string
			if n, err = strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(lines[1], "uint16("), ")"), 0, 16); err == nil {
				if s, err = strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "[]byte("), ")")); err == nil {
					seeds = append(seeds, struct {
						sess uint16
						data []byte
					}{uint16(n), []byte(s)})
				}
			}
		}
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
	}
	return seeds
}
