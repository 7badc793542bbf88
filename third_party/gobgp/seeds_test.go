package gobgp_test

// Seeds for the fuzz targets, from real BGP sessions captured in network
// namespaces (testdata/captures/*.pcap, made by testdata/mkcaptures.sh;
// testdata/README.md). The captures are read with authbgpd's own capfile
// and frame packages, each TCP stream is reassembled and cut into BGP
// messages, and each message is tagged with the session it was sent in
// (which families had ADD-PATH, whether the sender spoke 4-octet AS).
//
// The fuzz targets of this package take their seeds from here directly.
// The carried copy's targets (third_party/gobgp/v3, patch 0090) cannot
// import authbgpd's packages, so TestCaptureSeeds writes theirs as corpus
// files in testdata/fuzz/FuzzRecvUpdate/ and fails when those differ from
// what the captures give (go test -run TestCaptureSeeds -update-seeds
// rewrites them).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the capture seed corpus files of the carried copy's fuzz targets (testdata/fuzz/*/capture-*)")

// The session word: what the fuzz targets here and in the carried copy
// take beside the message bytes, to pick the session a message arrives
// in. Both use this layout (the carried copy's fuzz_recv_test.go repeats
// it), so that one corpus file serves both.
const (
	sessAddPathMask = 0x00ff // bit i: ADD-PATH receive negotiated for addPathFamilies[i]
	sessIBGP        = 1 << 8 // the peer is in our AS (else eBGP)
	sessConfed      = 1 << 9 // the peer's AS is a member of our confederation
	sessFourOctet   = 1 << 10
	sessLoopback    = 1 << 11 // both ends on IPv4 loopback addresses (loopback next hops allowed)
	sessNoTreatAsWd = 1 << 12 // RFC 7606 revised error handling (treat-as-withdraw) off (GoBGP's default: on)
	sessNarrow      = 1 << 13 // only ipv4-unicast and ipv6-unicast configured (else every family)
	sessDebugLog    = 1 << 14 // log level debug (GoBGP then formats every update it receives)
	sessIPv6        = 1 << 15 // the session runs over IPv6
)

// addPathFamilies are the families the session word's low bits turn
// ADD-PATH receive on for.
var addPathFamilies = [8]bgp.RouteFamily{
	bgp.RF_IPv4_UC, bgp.RF_IPv6_UC, bgp.RF_IPv4_MPLS, bgp.RF_IPv6_MPLS,
	bgp.RF_IPv4_VPN, bgp.RF_IPv6_VPN, bgp.RF_EVPN, bgp.RF_FS_IPv4_UC,
}

// capMessage is one BGP message of a capture.
type capMessage struct {
	capture string
	from    netip.AddrPort // its sender
	data    []byte         // header included
	// sess is the session word of the direction it was sent in: ADD-PATH
	// where the sender's OPEN offers to send and the receiver's to receive,
	// 4-octet AS when both OPENs have the capability, eBGP, every family.
	sess uint16
}

func (m capMessage) typ() uint8 { return m.data[18] }

var captures struct {
	once sync.Once
	msgs []capMessage
	err  error
}

// captureMessages is every BGP message of every capture in testdata/captures,
// capture by capture (in name order), each stream in order.
func captureMessages(tb testing.TB) []capMessage {
	tb.Helper()
	captures.once.Do(func() {
		files, err := filepath.Glob("testdata/captures/*.pcap")
		if err == nil && len(files) == 0 {
			err = errors.New("testdata/captures: no *.pcap (testdata/mkcaptures.sh makes them)")
		}
		slices.Sort(files)
		for _, f := range files {
			var ms []capMessage
			ms, err = readCapture(f)
			if err != nil {
				break
			}
			captures.msgs = append(captures.msgs, ms...)
		}
		captures.err = err
	})
	if captures.err != nil {
		tb.Fatal(captures.err)
	}
	return captures.msgs
}

type flowKey struct{ src, dst netip.AddrPort }

type segment struct {
	seq  uint32
	data []byte
}

type flow struct {
	isn    uint32
	hasSYN bool
	segs   []segment
}

// readCapture reassembles the TCP streams of a capture and cuts them into
// BGP messages. A stream with a hole (a segment the capture lacks) is an
// error: the captures are small and whole.
func readCapture(name string) ([]capMessage, error) {
	flows := map[flowKey]*flow{}
	var order []flowKey
	var tcp frame.TCP
	err := capfile.EachFile(name, func(p capfile.Packet) error {
		if err := frame.DecodeTCP(p.LinkType, p.Data, &tcp); err != nil {
			return nil // not a TCP segment (ARP, neighbor discovery)
		}
		seg := tcp.Segment
		k := flowKey{netip.AddrPortFrom(tcp.Src, tcp.SrcPort), netip.AddrPortFrom(tcp.Dst, tcp.DstPort)}
		fl := flows[k]
		if fl == nil {
			fl = &flow{}
			flows[k] = fl
			order = append(order, k)
		}
		seq := binary.BigEndian.Uint32(seg[4:8])
		flags := seg[13]
		if flags&0x02 != 0 { // SYN
			fl.isn, fl.hasSYN = seq+1, true
		}
		if off := int(seg[12]>>4) * 4; len(seg) > off {
			fl.segs = append(fl.segs, segment{seq, bytes.Clone(seg[off:])})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	base := filepath.Base(name)
	streams := map[flowKey][][]byte{}
	for _, k := range order {
		fl := flows[k]
		if len(fl.segs) == 0 {
			continue
		}
		if !fl.hasSYN {
			return nil, fmt.Errorf("%s: %v -> %v: no SYN: the capture must hold whole sessions", name, k.src, k.dst)
		}
		slices.SortStableFunc(fl.segs, func(a, b segment) int {
			return int(int32(a.seq - fl.isn - (b.seq - fl.isn)))
		})
		var stream []byte
		for _, s := range fl.segs {
			off := s.seq - fl.isn // relative, wraps like TCP
			if off > uint32(len(stream)) {
				return nil, fmt.Errorf("%s: %v -> %v: %d bytes missing at stream offset %d", name, k.src, k.dst, off-uint32(len(stream)), len(stream))
			}
			if end := off + uint32(len(s.data)); end > uint32(len(stream)) {
				stream = append(stream, s.data[uint32(len(stream))-off:]...)
			}
		}
		var msgs [][]byte
		for len(stream) > 0 {
			if len(stream) < bgp.BGP_HEADER_LENGTH {
				return nil, fmt.Errorf("%s: %v -> %v: %d bytes after the last whole message", name, k.src, k.dst, len(stream))
			}
			n := int(binary.BigEndian.Uint16(stream[16:18]))
			if n < bgp.BGP_HEADER_LENGTH || n > len(stream) {
				return nil, fmt.Errorf("%s: %v -> %v: message of length %d with %d bytes left", name, k.src, k.dst, n, len(stream))
			}
			msgs = append(msgs, stream[:n:n])
			stream = stream[n:]
		}
		streams[k] = msgs
	}
	var out []capMessage
	for _, k := range order {
		msgs, ok := streams[k]
		if !ok {
			continue
		}
		sess := sessionOf(firstOpen(msgs), firstOpen(streams[flowKey{k.dst, k.src}]))
		for _, m := range msgs {
			out = append(out, capMessage{capture: base, from: k.src, data: m, sess: sess})
		}
	}
	return out, nil
}

func firstOpen(msgs [][]byte) *bgp.BGPOpen {
	for _, m := range msgs {
		if m[18] == bgp.BGP_MSG_OPEN {
			if o, err := bgp.ParseBGPMessage(m); err == nil {
				return o.Body.(*bgp.BGPOpen)
			}
		}
	}
	return nil
}

func capabilities(o *bgp.BGPOpen) []bgp.ParameterCapabilityInterface {
	if o == nil {
		return nil
	}
	var cs []bgp.ParameterCapabilityInterface
	for _, p := range o.OptParams {
		if c, ok := p.(*bgp.OptionParameterCapability); ok {
			cs = append(cs, c.Capability...)
		}
	}
	return cs
}

// sessionOf is the session word of messages sent by the speaker whose
// OPEN is tx to the one whose OPEN is rx.
func sessionOf(tx, rx *bgp.BGPOpen) uint16 {
	var sess uint16
	modes := func(o *bgp.BGPOpen) (map[bgp.RouteFamily]bgp.BGPAddPathMode, bool) {
		m, as4 := map[bgp.RouteFamily]bgp.BGPAddPathMode{}, false
		for _, c := range capabilities(o) {
			switch c := c.(type) {
			case *bgp.CapAddPath:
				for _, t := range c.Tuples {
					m[t.RouteFamily] |= t.Mode
				}
			case *bgp.CapFourOctetASNumber:
				as4 = true
			}
		}
		return m, as4
	}
	txm, tx4 := modes(tx)
	rxm, rx4 := modes(rx)
	for i, f := range addPathFamilies {
		if txm[f]&bgp.BGP_ADD_PATH_SEND != 0 && rxm[f]&bgp.BGP_ADD_PATH_RECEIVE != 0 {
			sess |= 1 << i
		}
	}
	if tx4 && rx4 {
		sess |= sessFourOctet
	}
	return sess
}

// addPathOptions is the decoder's options for the session word's ADD-PATH
// bits (nil without any, as a session without the capability has).
func addPathOptions(sess uint16) *bgp.MarshallingOption {
	if sess&sessAddPathMask == 0 {
		return nil
	}
	m := map[bgp.RouteFamily]bgp.BGPAddPathMode{}
	for i, f := range addPathFamilies {
		if sess&(1<<i) != 0 {
			m[f] = bgp.BGP_ADD_PATH_RECEIVE
		}
	}
	return &bgp.MarshallingOption{AddPath: m}
}

// updateShape is what tells UPDATEs apart for seeding: which parts they
// have, their attributes' types in order and their MP families. Seeds of
// one shape add little to one another.
func updateShape(m []byte) string {
	b := m[bgp.BGP_HEADER_LENGTH:]
	if len(b) < 4 {
		return "short"
	}
	wl := int(binary.BigEndian.Uint16(b))
	if 2+wl+2 > len(b) {
		return "bad"
	}
	al := int(binary.BigEndian.Uint16(b[2+wl:]))
	attrs := b[4+wl:]
	if al > len(attrs) {
		return "bad"
	}
	nlri := len(attrs) > al
	attrs = attrs[:al]
	var sb strings.Builder
	fmt.Fprintf(&sb, "w%t n%t", wl > 0, nlri)
	for len(attrs) >= 3 {
		flags, typ := attrs[0], bgp.BGPAttrType(attrs[1])
		hl, l := 3, int(attrs[2])
		if flags&0x10 != 0 {
			if len(attrs) < 4 {
				break
			}
			hl, l = 4, int(binary.BigEndian.Uint16(attrs[2:4]))
		}
		if hl+l > len(attrs) {
			break
		}
		fmt.Fprintf(&sb, " %d", typ)
		if (typ == bgp.BGP_ATTR_TYPE_MP_REACH_NLRI || typ == bgp.BGP_ATTR_TYPE_MP_UNREACH_NLRI) && l >= 3 {
			v := attrs[hl:]
			fmt.Fprintf(&sb, "/%d.%d", binary.BigEndian.Uint16(v), v[2])
			if typ == bgp.BGP_ATTR_TYPE_MP_UNREACH_NLRI && l == 3 {
				sb.WriteString("eor")
			}
		}
		attrs = attrs[hl+l:]
	}
	return sb.String()
}

// attributeValues is the value of every path attribute of type typ in the
// UPDATEs of msgs (walked here by hand, not by GoBGP's decoder).
func attributeValues(msgs []capMessage, typ uint8) [][]byte {
	var out [][]byte
	for _, m := range msgs {
		if m.typ() != bgp.BGP_MSG_UPDATE {
			continue
		}
		b := m.data[bgp.BGP_HEADER_LENGTH:]
		wl := int(binary.BigEndian.Uint16(b))
		al := int(binary.BigEndian.Uint16(b[2+wl:]))
		attrs := b[4+wl : 4+wl+al]
		for len(attrs) >= 3 {
			flags, t := attrs[0], attrs[1]
			hl, l := 3, int(attrs[2])
			if flags&0x10 != 0 {
				hl, l = 4, int(binary.BigEndian.Uint16(attrs[2:4]))
			}
			if t == typ {
				out = append(out, bytes.Clone(attrs[hl:hl+l]))
			}
			attrs = attrs[hl+l:]
		}
	}
	return out
}

// A seed of the carried copy's FuzzRecvUpdate: a session word and a
// stream of messages the peer sends, once Established.
type recvSeed struct {
	name string
	sess uint16
	data []byte
}

// maxSeedStream bounds a whole-session seed: the fuzzer mutates long
// inputs slowly.
const maxSeedStream = 8 << 10

// recvSeeds are FuzzRecvUpdate's seeds from the captures: for each
// capture and direction, the shortest UPDATE of each shape alone (in the
// order the shapes first appear), and those UPDATEs (withdrawals included,
// up to maxSeedStream) in one stream; and for the first UPDATE of each
// capture the same message in an iBGP confederation session without RFC
// 7606 error handling and with debug logging.
func recvSeeds(tb testing.TB) []recvSeed {
	type dir struct {
		capture string
		from    netip.AddrPort
	}
	type shaped struct {
		shape string
		msg   capMessage
	}
	var dirs []dir
	byDir := map[dir][]shaped{}
	for _, m := range captureMessages(tb) {
		if m.typ() != bgp.BGP_MSG_UPDATE {
			continue
		}
		d := dir{m.capture, m.from}
		if byDir[d] == nil {
			dirs = append(dirs, d)
		}
		sh := updateShape(m.data)
		i := slices.IndexFunc(byDir[d], func(s shaped) bool { return s.shape == sh })
		switch {
		case i < 0:
			byDir[d] = append(byDir[d], shaped{sh, m})
		case len(m.data) < len(byDir[d][i].msg.data):
			byDir[d][i].msg = m
		}
	}
	var seeds []recvSeed
	add := func(prefix string, sess uint16, data []byte) {
		seeds = append(seeds, recvSeed{fmt.Sprintf("%s-%d", prefix, len(seeds)), sess, data})
	}
	for _, d := range dirs {
		base := "capture-" + strings.TrimSuffix(d.capture, ".pcap")
		var stream []byte
		for i, s := range byDir[d] {
			add(base, s.msg.sess, s.msg.data)
			if i == 0 {
				add(base, s.msg.sess^(sessIBGP|sessConfed|sessNoTreatAsWd|sessDebugLog), s.msg.data)
			}
			if len(stream)+len(s.msg.data) <= maxSeedStream {
				stream = append(stream, s.msg.data...)
			}
		}
		add(base+"-stream", byDir[d][0].msg.sess, stream)
	}
	// The advisories' inputs: each crafted message of package crafted, in
	// the session it was made for (4-octet AS, only IPv4/IPv6 unicast, a
	// confederation where it needs one; the next hop its raw peer's).
	for _, c := range crafted.Cases([4]byte{127, 0, 0, 2}) {
		if c.Injected {
			continue
		}
		sess := uint16(sessFourOctet | sessNarrow | sessLoopback)
		if c.Confed {
			sess |= sessConfed
		}
		seeds = append(seeds, recvSeed{"advisory-" + c.Name, sess, c.Message})
	}
	return seeds
}

// corpusFile is a Go fuzzing corpus file of (uint16, []byte).
func corpusFile(sess uint16, data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\nuint16(%d)\n[]byte(%s)\n", sess, strconv.Quote(string(data)))
}

// TestCaptureSeeds checks that the capture seeds of the carried copy's
// FuzzRecvUpdate (testdata/fuzz/FuzzRecvUpdate/capture-*, advisory-*) are
// what the captures and package crafted give; with -update-seeds it writes
// them.
func TestCaptureSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzRecvUpdate")
	want := map[string][]byte{}
	for _, s := range recvSeeds(t) {
		want[s.name] = corpusFile(s.sess, s.data)
	}
	have, _ := filepath.Glob(filepath.Join(dir, "capture-*"))
	advisories, _ := filepath.Glob(filepath.Join(dir, "advisory-*"))
	have = append(have, advisories...)
	if *updateSeeds {
		for _, f := range have {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range want {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d seed files in %s", len(want), dir)
		return
	}
	for _, f := range have {
		name := filepath.Base(f)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := want[name]; !ok {
			t.Errorf("%s: the captures give no such seed (go test -run TestCaptureSeeds -update-seeds)", f)
		} else if !bytes.Equal(b, w) {
			t.Errorf("%s differs from what the captures give (go test -run TestCaptureSeeds -update-seeds)", f)
		}
		delete(want, name)
	}
	for name := range want {
		t.Errorf("%s is missing (go test -run TestCaptureSeeds -update-seeds)", filepath.Join(dir, name))
	}
}

// TestCaptures checks the reassembly against what each capture is known to
// hold (testdata/README.md): every stream whole, the sessions' options,
// and the NLRI counts GoBGP's decoder finds in them.
func TestCaptures(t *testing.T) {
	type count struct{ opens, updates, notifications, nlri, withdrawn int }
	got := map[string]*count{}
	sess := map[string]uint16{}
	for _, m := range captureMessages(t) {
		c := got[m.capture]
		if c == nil {
			c = &count{}
			got[m.capture] = c
		}
		switch m.typ() {
		case bgp.BGP_MSG_OPEN:
			c.opens++
		case bgp.BGP_MSG_NOTIFICATION:
			c.notifications++
		case bgp.BGP_MSG_UPDATE:
			c.updates++
			sess[m.capture] = m.sess // the senders' direction: theirs are the UPDATEs
			msg, err := bgp.ParseBGPMessage(m.data, addPathOptions(m.sess))
			if err != nil {
				t.Errorf("%s: an UPDATE GoBGP cannot decode: %v", m.capture, err)
				continue
			}
			u := msg.Body.(*bgp.BGPUpdate)
			c.nlri += len(u.NLRI)
			c.withdrawn += len(u.WithdrawnRoutes)
			for _, a := range u.PathAttributes {
				switch a := a.(type) {
				case *bgp.PathAttributeMpReachNLRI:
					c.nlri += len(a.Value)
				case *bgp.PathAttributeMpUnreachNLRI:
					c.withdrawn += len(a.Value)
				}
			}
		}
	}
	for _, w := range []struct {
		capture string
		sess    uint16
		nlri    int // at least
		wdrawn  int // at least
	}{
		{"frr-unicast.pcap", sessFourOctet | 1, 3000, 200}, // ADD-PATH on IPv4 unicast
		{"authbgpd-srpolicy.pcap", sessFourOctet, 3, 1},
		{"gobgp-srv6-mup.pcap", sessFourOctet, 15, 3},
		{"exabgp-as2.pcap", 0, 10, 0}, // no 4-octet AS
	} {
		c := got[w.capture]
		if c == nil {
			t.Errorf("%s: not among the captures", w.capture)
			continue
		}
		t.Logf("%s: %d OPENs, %d UPDATEs (%d NLRI, %d withdrawn), %d NOTIFICATIONs", w.capture, c.opens, c.updates, c.nlri, c.withdrawn, c.notifications)
		if c.opens != 2 || c.nlri < w.nlri || c.withdrawn < w.wdrawn {
			t.Errorf("%s: want 2 OPENs, >= %d NLRI, >= %d withdrawn", w.capture, w.nlri, w.wdrawn)
		}
		if sess[w.capture] != w.sess {
			t.Errorf("%s: the sender's session word is %#x, want %#x", w.capture, sess[w.capture], w.sess)
		}
	}
}
