package capfile

//go:generate sh testdata/golden.sh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// ownPacket is a Packet whose Data the test owns.
type ownPacket struct {
	Packet
}

// readAll reads every packet of b, copying the data. It returns the
// packets and the error that ended the read (io.EOF at a clean end).
func readAll(t testing.TB, b []byte) (string, []ownPacket, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return "", nil, err
	}
	return r.Format(), drain(r), r.err
}

func drain(r *Reader) []ownPacket {
	var pkts []ownPacket
	for {
		p, err := r.Next()
		if err != nil {
			return pkts
		}
		p.Data = bytes.Clone(p.Data)
		pkts = append(pkts, ownPacket{p})
	}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func captures(t testing.TB) []string {
	t.Helper()
	var names []string
	for _, pat := range []string{"*.pcap", "*.pcapng"} {
		m, err := filepath.Glob(filepath.Join("testdata", pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			names = append(names, filepath.Base(f))
		}
	}
	if len(names) < 5 {
		t.Fatalf("found only %d captures in testdata", len(names))
	}
	return names
}

// golden is one line of a FILE.golden written by testdata/golden.sh.
type golden struct {
	number, section, iface, encap, capLen, origLen string
	epoch                                          string
}

func readGolden(t testing.TB, name string) []golden {
	t.Helper()
	b := readTestdata(t, name)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	want := "frame.number\tframe.section_number\tframe.interface_id\tframe.encap_type\tframe.time_epoch\tframe.cap_len\tframe.len"
	if lines[0] != want {
		t.Fatalf("%s: header %q, want %q", name, lines[0], want)
	}
	var g []golden
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 7 {
			t.Fatalf("%s: bad line %q", name, l)
		}
		g = append(g, golden{number: f[0], section: f[1], iface: f[2], encap: f[3], epoch: f[4], capLen: f[5], origLen: f[6]})
	}
	return g
}

// wtapEncap maps Wireshark's WTAP_ENCAP_ numbers (frame.encap_type) to
// LINKTYPE_ values.
var wtapEncap = map[string]uint32{"1": 1, "7": 101, "25": 113, "210": 276, "129": 228, "130": 229}

func checkGolden(t *testing.T, name string, pkts []ownPacket, g []golden) {
	t.Helper()
	if len(pkts) != len(g) {
		t.Fatalf("%s: %d packets, tshark saw %d", name, len(pkts), len(g))
	}
	for i, p := range pkts {
		w := g[i]
		epoch := fmt.Sprintf("%d.%09d", p.Time.Unix(), p.Time.Nanosecond())
		got := golden{
			number:  strconv.Itoa(i + 1),
			capLen:  strconv.Itoa(len(p.Data)),
			origLen: strconv.Itoa(p.OrigLen),
			epoch:   epoch,
			encap:   w.encap,
			section: w.section,
			iface:   w.iface,
		}
		if w.section != "" { // pcapng
			got.section = strconv.Itoa(p.Section + 1)
			got.iface = strconv.Itoa(p.Interface)
		} else if p.Section != 0 || p.Interface != 0 {
			t.Errorf("%s frame %d: pcap packet with section %d interface %d", name, i+1, p.Section, p.Interface)
		}
		if lt, ok := wtapEncap[w.encap]; !ok {
			t.Errorf("%s frame %d: unknown WTAP encapsulation %s", name, i+1, w.encap)
		} else if lt != p.LinkType {
			t.Errorf("%s frame %d: link type %d, tshark says WTAP encap %s (link type %d)", name, i+1, p.LinkType, w.encap, lt)
		}
		if got != w {
			t.Errorf("%s frame %d:\n got %+v\nwant %+v", name, i+1, got, w)
		}
	}
}

// TestGolden checks every real capture against what tshark read in it.
func TestGolden(t *testing.T) {
	for _, name := range captures(t) {
		t.Run(name, func(t *testing.T) {
			format, pkts, err := readAll(t, readTestdata(t, name))
			if err != io.EOF {
				t.Fatalf("read: %v", err)
			}
			if want := strings.TrimPrefix(filepath.Ext(name), "."); format != want {
				t.Errorf("Format() = %q, want %q", format, want)
			}
			checkGolden(t, name, pkts, readGolden(t, name+".golden"))
		})
	}
}

// TestSections reads two pcapng files concatenated: a file with two
// sections, the second with different interfaces.
func TestSections(t *testing.T) {
	b := append(readTestdata(t, "basic_nsec.pcapng"), readTestdata(t, "two_linktypes.pcapng")...)
	_, pkts, err := readAll(t, b)
	if err != io.EOF {
		t.Fatalf("read: %v", err)
	}
	checkGolden(t, "sections", pkts, readGolden(t, "sections.pcapng.golden"))
	if pkts[len(pkts)-1].Section != 1 {
		t.Errorf("last packet in section %d, want 1", pkts[len(pkts)-1].Section)
	}
}

// TestPcapVsPcapng: editcap converted basic_nsec.pcap to pcapng; both must
// read the same.
func TestPcapVsPcapng(t *testing.T) {
	_, a, err := readAll(t, readTestdata(t, "basic_nsec.pcap"))
	if err != io.EOF {
		t.Fatal(err)
	}
	_, b, err := readAll(t, readTestdata(t, "basic_nsec.pcapng"))
	if err != io.EOF {
		t.Fatal(err)
	}
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d vs %d packets", len(a), len(b))
	}
	for i := range a {
		if !samePacket(a[i].Packet, b[i].Packet) {
			t.Errorf("packet %d: pcap %+v, pcapng %+v", i, a[i], b[i])
		}
		if len(a[i].Data) >= a[i].OrigLen && a[i].OrigLen > 96 {
			t.Errorf("packet %d: snaplen 96 not applied", i)
		}
	}
}

func samePacket(a, b Packet) bool {
	return a.LinkType == b.LinkType && a.Time.Equal(b.Time) && bytes.Equal(a.Data, b.Data) &&
		a.OrigLen == b.OrigLen && a.Interface == b.Interface && a.InterfaceName == b.InterfaceName && a.Direction == b.Direction
}

// --- writers used by the tests ---

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func encodePcap(order byteOrder, nano bool, link uint32, pkts []ownPacket) []byte {
	var b []byte
	magic := uint32(pcapMagicMicro)
	if nano {
		magic = pcapMagicNano
	}
	b = order.AppendUint32(b, magic)
	b = order.AppendUint16(b, 2)
	b = order.AppendUint16(b, 4)
	b = order.AppendUint32(b, 0)
	b = order.AppendUint32(b, 0)
	b = order.AppendUint32(b, 262144)
	b = order.AppendUint32(b, link)
	for _, p := range pkts {
		frac := uint32(p.Time.Nanosecond())
		if !nano {
			frac /= 1000
		}
		b = order.AppendUint32(b, uint32(p.Time.Unix()))
		b = order.AppendUint32(b, frac)
		b = order.AppendUint32(b, uint32(len(p.Data)))
		b = order.AppendUint32(b, uint32(p.OrigLen))
		b = append(b, p.Data...)
	}
	return b
}

type testIface struct {
	link    uint16
	snapLen uint32
	resol   uint8  // raw if_tsresol byte; 0 = no option (microseconds)
	offset  int64  // if_tsoffset; 0 = no option
	name    string // if_name; "" = no option
}

func appendBlock(b []byte, order byteOrder, typ uint32, body []byte) []byte {
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	n := uint32(12 + len(body))
	b = order.AppendUint32(b, typ)
	b = order.AppendUint32(b, n)
	b = append(b, body...)
	return order.AppendUint32(b, n)
}

func appendOption(b []byte, order byteOrder, code uint16, v []byte) []byte {
	b = order.AppendUint16(b, code)
	b = order.AppendUint16(b, uint16(len(v)))
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func appendSHB(b []byte, order byteOrder) []byte {
	var body []byte
	body = order.AppendUint32(body, ngByteOrder)
	body = order.AppendUint16(body, 1)
	body = order.AppendUint16(body, 0)
	body = order.AppendUint64(body, ^uint64(0))
	return appendBlock(b, order, ngBlockSHB, body)
}

func appendIDB(b []byte, order byteOrder, ifc testIface) []byte {
	var body []byte
	body = order.AppendUint16(body, ifc.link)
	body = order.AppendUint16(body, 0)
	body = order.AppendUint32(body, ifc.snapLen)
	if ifc.resol != 0 {
		body = appendOption(body, order, optTSResol, []byte{ifc.resol})
	}
	if ifc.offset != 0 {
		body = appendOption(body, order, optTSOffset, order.AppendUint64(nil, uint64(ifc.offset)))
	}
	if ifc.name != "" {
		body = appendOption(body, order, optIfName, []byte(ifc.name))
	}
	if ifc.resol != 0 || ifc.offset != 0 || ifc.name != "" {
		body = appendOption(body, order, optEndOfOpt, nil)
	}
	return appendBlock(b, order, ngBlockIDB, body)
}

// units converts t to a timestamp in units of the interface's resolution
// (floor). It needs t after 1970.
func (ifc testIface) units(t time.Time) uint64 {
	if ifc.resol == 9 && ifc.offset == 0 { // the fuzz target's fast path
		return uint64(t.Unix())*1e9 + uint64(t.Nanosecond())
	}
	ns := new(big.Int).Mul(big.NewInt(t.Unix()-ifc.offset), big.NewInt(1e9))
	ns.Add(ns, big.NewInt(int64(t.Nanosecond())))
	r := ifc.resol
	if r == 0 {
		r = 6
	}
	var perSec *big.Int
	if r&0x80 != 0 {
		perSec = new(big.Int).Lsh(big.NewInt(1), uint(r&0x7f))
	} else {
		perSec = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(r)), nil)
	}
	u := ns.Mul(ns, perSec)
	u.Quo(u, big.NewInt(1e9))
	return u.Uint64()
}

func appendEPB(b []byte, order byteOrder, ifcs []testIface, p Packet) []byte {
	ts := ifcs[p.Interface].units(p.Time)
	var body []byte
	body = order.AppendUint32(body, uint32(p.Interface))
	body = order.AppendUint32(body, uint32(ts>>32))
	body = order.AppendUint32(body, uint32(ts))
	body = order.AppendUint32(body, uint32(len(p.Data)))
	body = order.AppendUint32(body, uint32(p.OrigLen))
	body = append(body, p.Data...)
	if p.Direction != DirUnknown {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		body = appendOption(body, order, optEPBFlags, order.AppendUint32(nil, uint32(p.Direction)))
		body = appendOption(body, order, optEndOfOpt, nil)
	}
	return appendBlock(b, order, ngBlockEPB, body)
}

func encodePcapng(order byteOrder, ifcs []testIface, pkts []ownPacket) []byte {
	b := appendSHB(nil, order)
	for _, ifc := range ifcs {
		b = appendIDB(b, order, ifc)
	}
	for _, p := range pkts {
		b = appendEPB(b, order, ifcs, p.Packet)
	}
	return b
}

// TestReencode writes the packets of real captures in both pcap byte
// orders and precisions and as pcapng in both byte orders with several
// timestamp resolutions, then reads them back.
func TestReencode(t *testing.T) {
	for _, name := range []string{"basic_usec.pcap", "basic_nsec.pcap", "two_linktypes.pcapng"} {
		_, pkts, err := readAll(t, readTestdata(t, name))
		if err != io.EOF {
			t.Fatal(err)
		}
		for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
			if name != "two_linktypes.pcapng" {
				for _, nano := range []bool{false, true} {
					b := encodePcap(order, nano, pkts[0].LinkType, pkts)
					format, got, err := readAll(t, b)
					if err != io.EOF || format != "pcap" {
						t.Fatalf("%s %v nano=%v: %v %q", name, order, nano, err, format)
					}
					for i := range pkts {
						want := pkts[i].Packet
						want.InterfaceName, want.Direction = "", DirUnknown // pcap has neither
						if !nano {
							want.Time = want.Time.Truncate(time.Microsecond)
						}
						if !samePacket(got[i].Packet, want) {
							t.Errorf("%s %v nano=%v packet %d: got %+v want %+v", name, order, nano, i, got[i], want)
						}
					}
				}
			}
			for _, resol := range []uint8{0, 3, 6, 9, 0x80 | 10, 0x80 | 20, 0x80 | 30} {
				for _, offset := range []int64{0, 1000, -3600} {
					nIf := 1
					for _, p := range pkts {
						nIf = max(nIf, p.Interface+1)
					}
					ifcs := make([]testIface, nIf)
					for i := range ifcs {
						ifcs[i] = testIface{link: uint16(linkOf(pkts, i)), resol: resol, offset: offset, name: nameOf(pkts, i)}
					}
					b := encodePcapng(order, ifcs, pkts)
					format, got, err := readAll(t, b)
					if err != io.EOF || format != "pcapng" {
						t.Fatalf("%s %v resol %#x: %v %q", name, order, resol, err, format)
					}
					if len(got) != len(pkts) {
						t.Fatalf("%s %v resol %#x: %d packets, want %d", name, order, resol, len(got), len(pkts))
					}
					for i := range pkts {
						want := pkts[i].Packet
						g := got[i].Packet
						// Units coarser than a nanosecond lose precision.
						res := resolution(resol)
						if d := want.Time.Sub(g.Time); d < 0 || d > res {
							t.Errorf("%s %v resol %#x packet %d: time %v, want %v (resolution %v)", name, order, resol, i, g.Time, want.Time, res)
						}
						g.Time = want.Time
						if !samePacket(g, want) {
							t.Errorf("%s %v resol %#x packet %d: got %+v want %+v", name, order, resol, i, g, want)
						}
					}
				}
			}
		}
	}
}

func linkOf(pkts []ownPacket, iface int) uint32 {
	for _, p := range pkts {
		if p.Interface == iface {
			return p.LinkType
		}
	}
	return 1
}

// nameOf is the interface name of the first packet on interface iface.
func nameOf(pkts []ownPacket, iface int) string {
	for _, p := range pkts {
		if p.Interface == iface {
			return p.InterfaceName
		}
	}
	return ""
}

func resolution(resol uint8) time.Duration {
	if resol == 0 {
		return time.Microsecond
	}
	if resol&0x80 != 0 {
		return time.Second>>(resol&0x7f) + 1
	}
	d := time.Second
	for i := uint8(0); i < resol; i++ {
		d /= 10
	}
	return d
}

// TestSplitTS checks the timestamp conversion for every resolution against
// exact rational arithmetic.
func TestSplitTS(t *testing.T) {
	tss := []uint64{0, 1, 999, 1e6, 1e9 - 1, 1e9, 1796030451011444670, 1<<63 - 1, 1 << 63, ^uint64(0), 0x0123456789abcdef}
	for _, pow2 := range []bool{false, true} {
		for resol := 0; resol < 128; resol++ {
			for _, ts := range tss {
				sec, nsec := splitTS(ts, uint8(resol), pow2)
				var perSec *big.Int
				if pow2 {
					perSec = new(big.Int).Lsh(big.NewInt(1), uint(resol))
				} else {
					perSec = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(resol)), nil)
				}
				bts := new(big.Int).SetUint64(ts)
				wantSec, rem := new(big.Int).QuoRem(bts, perSec, new(big.Int))
				wantNsec := rem.Mul(rem, big.NewInt(1e9))
				wantNsec.Quo(wantNsec, perSec)
				if wantSec.Uint64() != sec || wantNsec.Uint64() != nsec {
					t.Fatalf("splitTS(%d, %d, pow2=%v) = %d, %d; want %s, %s", ts, resol, pow2, sec, nsec, wantSec, wantNsec)
				}
			}
		}
	}
}

// TestSkipsUnknownBlocks puts name resolution, interface statistics,
// decryption secrets, custom and unknown blocks between packets, and uses
// simple and obsolete packet blocks.
func TestSkipsUnknownBlocks(t *testing.T) {
	o := binary.LittleEndian
	data := []byte("0123456789abcdefghij")
	b := appendSHB(nil, o)
	b = appendBlock(b, o, 4, []byte{1, 0, 8, 0, 192, 0, 2, 1, 'a', '.', 'e', 'x', 0, 0, 0, 0}) // NRB
	b = appendIDB(b, o, testIface{link: 101, snapLen: 8, resol: 9})                            // interface 0
	b = appendIDB(b, o, testIface{link: 1, resol: 0x80 | 1})                                   // interface 1
	b = appendBlock(b, o, 5, make([]byte, 12))                                                 // ISB
	b = appendBlock(b, o, 0x0a, []byte{0x4b, 0x53, 0x4c, 0x4b, 0, 0, 0, 0})                    // DSB
	b = appendBlock(b, o, 0x00000bad, []byte{1, 2, 3, 4})                                      // custom
	b = appendBlock(b, o, 0x40000bad, nil)                                                     // custom, empty
	b = appendBlock(b, o, 0x12345678, make([]byte, 100))                                       // unknown
	b = appendBlock(b, o, ngBlockSPB, append(o.AppendUint32(nil, uint32(len(data))), data...)) // SPB, cut at snaplen 8
	var opb []byte
	opb = o.AppendUint16(opb, 1) // interface 1
	opb = o.AppendUint16(opb, 7) // drops
	opb = o.AppendUint32(opb, 0)
	opb = o.AppendUint32(opb, 5) // 2.5 s at 2^-1
	opb = o.AppendUint32(opb, 4)
	opb = o.AppendUint32(opb, 40)
	opb = append(opb, "abcd"...)
	b = appendBlock(b, o, ngBlockOPB, opb)
	b = appendBlock(b, o, 5, make([]byte, 12)) // ISB at the end
	format, pkts, err := readAll(t, b)
	if err != io.EOF || format != "pcapng" {
		t.Fatalf("%v %q", err, format)
	}
	if len(pkts) != 2 {
		t.Fatalf("%d packets, want 2", len(pkts))
	}
	if p := pkts[0]; p.LinkType != 101 || string(p.Data) != "01234567" || p.OrigLen != 20 || !p.Time.IsZero() && p.Time != time.Unix(0, 0).UTC() {
		t.Errorf("SPB: %+v", p)
	}
	if p := pkts[1]; p.LinkType != 1 || string(p.Data) != "abcd" || p.OrigLen != 40 || p.Interface != 1 || !p.Time.Equal(time.Unix(2, 5e8)) {
		t.Errorf("OPB: %+v", p)
	}
}

// blockBoundaries returns the offsets where records end: pcap packet
// records, or pcapng blocks.
func blockBoundaries(t *testing.T, b []byte) []int {
	t.Helper()
	var ends []int
	if binary.BigEndian.Uint32(b) == ngBlockSHB {
		var o binary.ByteOrder = binary.LittleEndian
		for off := 0; off < len(b); {
			if binary.BigEndian.Uint32(b[off:]) == ngBlockSHB {
				if binary.BigEndian.Uint32(b[off+8:]) == ngByteOrder {
					o = binary.BigEndian
				} else {
					o = binary.LittleEndian
				}
			}
			off += int(o.Uint32(b[off+4:]))
			ends = append(ends, off)
		}
		return ends
	}
	o := binary.ByteOrder(binary.LittleEndian)
	if binary.BigEndian.Uint32(b) == pcapMagicMicro || binary.BigEndian.Uint32(b) == pcapMagicNano {
		o = binary.BigEndian
	}
	ends = append(ends, 24)
	for off := 24; off < len(b); {
		off += 16 + int(o.Uint32(b[off+8:]))
		ends = append(ends, off)
	}
	return ends
}

// TestTruncated cuts every real capture (and big-endian copies) at every
// byte offset: a cut at a record boundary is a clean end after the packets
// before it; any other cut is an error wrapping io.ErrUnexpectedEOF that
// names a record and an offset, after the same packets.
func TestTruncated(t *testing.T) {
	files := map[string][]byte{}
	for _, name := range captures(t) {
		files[name] = readTestdata(t, name)
	}
	_, pkts, _ := readAll(t, files["two_linktypes.pcapng"])
	files["be.pcapng"] = encodePcapng(binary.BigEndian, []testIface{{link: 1}, {link: 101, resol: 9}}, pkts)
	_, pkts, _ = readAll(t, files["basic_usec.pcap"])
	files["be.pcap"] = encodePcap(binary.BigEndian, true, 1, pkts)

	for name, full := range files {
		_, all, err := readAll(t, full)
		if err != io.EOF {
			t.Fatalf("%s: %v", name, err)
		}
		ends := map[int]bool{}
		for _, e := range blockBoundaries(t, full) {
			ends[e] = true
		}
		if !ends[len(full)] {
			t.Fatalf("%s: block walk does not end at the file end", name)
		}
		ngHeader := 0
		if binary.BigEndian.Uint32(full) == ngBlockSHB {
			ngHeader = int(binary.LittleEndian.Uint32(full[4:]))
			if binary.BigEndian.Uint32(full[8:]) == ngByteOrder {
				ngHeader = int(binary.BigEndian.Uint32(full[4:]))
			}
		}
		for n := 0; n < len(full); n++ {
			r, err := NewReader(bytes.NewReader(full[:n]))
			if err != nil {
				if n >= 24 && ngHeader == 0 || ngHeader != 0 && n >= ngHeader {
					t.Fatalf("%s cut at %d: NewReader: %v", name, n, err)
				}
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("%s cut at %d: NewReader error %v does not wrap io.ErrUnexpectedEOF", name, n, err)
				}
				continue
			}
			got := drain(r)
			_, err = r.Next()
			if len(got) > len(all) {
				t.Fatalf("%s cut at %d: %d packets, more than the %d in the file", name, n, len(got), len(all))
			}
			for i := range got {
				if !samePacket(got[i].Packet, all[i].Packet) {
					t.Fatalf("%s cut at %d: packet %d differs", name, n, i)
				}
			}
			if ends[n] {
				if err != io.EOF {
					t.Fatalf("%s cut at boundary %d: %v, want io.EOF", name, n, err)
				}
				continue
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%s cut at %d: error %v does not wrap io.ErrUnexpectedEOF", name, n, err)
			}
			if !strings.Contains(err.Error(), "at offset") || !(strings.Contains(err.Error(), "packet ") || strings.Contains(err.Error(), "block ")) {
				t.Fatalf("%s cut at %d: error %q names no record and offset", name, n, err)
			}
		}
	}
}

// TestOneByteReader reads through readers that return one byte at a time
// and data with the final error: same packets.
func TestOneByteReader(t *testing.T) {
	for _, name := range captures(t) {
		full := readTestdata(t, name)
		_, want, _ := readAll(t, full)
		for _, src := range []io.Reader{iotest.OneByteReader(bytes.NewReader(full)), iotest.DataErrReader(bytes.NewReader(full)), iotest.HalfReader(bytes.NewReader(full))} {
			r, err := NewReader(src)
			if err != nil {
				t.Fatal(err)
			}
			got := drain(r)
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("%s: %v", name, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d packets, want %d", name, len(got), len(want))
			}
			for i := range got {
				if !samePacket(got[i].Packet, want[i].Packet) {
					t.Fatalf("%s: packet %d differs", name, i)
				}
			}
		}
	}
}

// TestReadError: an I/O error of the underlying reader is returned, wrapped
// with the position, and sticks.
func TestReadError(t *testing.T) {
	full := readTestdata(t, "basic_usec.pcap")
	boom := errors.New("boom")
	r, err := NewReader(io.MultiReader(bytes.NewReader(full[:100]), iotest.ErrReader(boom)))
	if err != nil {
		t.Fatal(err)
	}
	drain(r)
	_, err = r.Next()
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("got %v, want boom with an offset", err)
	}
	if _, err2 := r.Next(); err2 != err {
		t.Fatalf("second Next: %v, want the same error", err2)
	}
}

// pcapHeader is a little-endian microsecond pcap file header.
func pcapHeader(link uint32) []byte {
	return encodePcap(binary.LittleEndian, false, link, nil)
}

func pcapRecord(incl, orig uint32, data []byte) []byte {
	o := binary.LittleEndian
	var b []byte
	b = o.AppendUint32(b, 1)
	b = o.AppendUint32(b, 2)
	b = o.AppendUint32(b, incl)
	b = o.AppendUint32(b, orig)
	return append(b, data...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestMalformed lists broken files and the errors they must produce.
func TestMalformed(t *testing.T) {
	o := binary.LittleEndian
	le := func(v ...uint32) []byte {
		var b []byte
		for _, x := range v {
			b = o.AppendUint32(b, x)
		}
		return b
	}
	shb := appendSHB(nil, o)
	idb := appendIDB(nil, o, testIface{link: 1})
	epb := func(iface, capLen, orig uint32, data []byte) []byte {
		return appendBlock(nil, o, ngBlockEPB, cat(le(iface, 0, 0, capLen, orig), data))
	}
	badTrail := func(b []byte) []byte {
		b = bytes.Clone(b)
		b[len(b)-4]++
		return b
	}
	idbOpts := func(opts ...[]byte) []byte {
		body := cat(le(1, 0), cat(opts...))
		return appendBlock(nil, o, ngBlockIDB, body)
	}
	opt := func(code, length uint16, v ...byte) []byte {
		b := o.AppendUint16(nil, code)
		b = o.AppendUint16(b, length)
		b = append(b, v...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	shbVersion2 := bytes.Clone(shb)
	shbVersion2[12] = 2
	shbBadBOM := bytes.Clone(shb)
	shbBadBOM[8] = 0x99

	tests := []struct {
		name string
		file []byte
		want error // checked with errors.Is
		at   string
	}{
		{"empty", nil, io.ErrUnexpectedEOF, ""},
		{"bad magic", []byte("GIF89a..................."), ErrUnknownFormat, ""},
		{"ascii", []byte("hello world, not a capture"), ErrUnknownFormat, ""},
		{"pcap huge incl_len", cat(pcapHeader(1), pcapRecord(0xffffffff, 10, nil)), ErrTooLarge, "packet 0 at offset 24"},
		{"pcap incl_len over cap", cat(pcapHeader(1), pcapRecord(MaxPacketLen+1, 10, nil)), ErrTooLarge, "packet 0 at offset 24"},
		{"pcap incl_len at cap, data short", cat(pcapHeader(1), pcapRecord(MaxPacketLen, 10, []byte{1, 2})), io.ErrUnexpectedEOF, "packet 0 at offset 24"},
		{"pcap second record huge", cat(pcapHeader(1), pcapRecord(2, 2, []byte{1, 2}), pcapRecord(1<<30, 10, nil)), ErrTooLarge, "packet 1 at offset 42"},
		{"pcapng SHB bad BOM", shbBadBOM, ErrUnknownFormat, ""},
		{"pcapng SHB version 2", shbVersion2, ErrMalformed, "block 0 at offset 0"},
		{"pcapng SHB short", cat(le(ngBlockSHB, 16, ngByteOrder, 16)), ErrMalformed, "block 0"},
		{"pcapng SHB length not multiple of 4", cat(le(ngBlockSHB, 30, ngByteOrder), make([]byte, 20)), ErrMalformed, "block 0"},
		{"pcapng SHB huge", cat(le(ngBlockSHB, 0xfffffff0, ngByteOrder), make([]byte, 20)), ErrTooLarge, "block 0"},
		{"pcapng SHB trailing length", badTrail(shb), ErrMalformed, "trailing length"},
		{"pcapng second SHB bad BOM", cat(shb, idb, shbBadBOM), ErrMalformed, "block 2 at offset 48"},
		{"pcapng IDB trailing length", cat(shb, badTrail(idb)), ErrMalformed, "block 1 (type 0x1) at offset 28: trailing length"},
		{"pcapng EPB trailing length", cat(shb, idb, badTrail(epb(0, 4, 4, []byte("abcd")))), ErrMalformed, "block 2 (type 0x6) at offset 48: trailing length"},
		{"pcapng block length 8", cat(shb, le(ngBlockIDB, 8, 8)), ErrMalformed, "block 1"},
		{"pcapng block length 0", cat(shb, le(ngBlockIDB, 0, 0)), ErrMalformed, "block 1"},
		{"pcapng block length 13", cat(shb, le(ngBlockIDB, 13, 0, 0)), ErrMalformed, "block 1"},
		{"pcapng block length huge", cat(shb, le(ngBlockEPB, 0xfffffffc, 0, 0)), ErrTooLarge, "block 1"},
		{"pcapng block length over cap", cat(shb, le(ngBlockEPB, MaxBlockLen+4, 0, 0)), ErrTooLarge, "block 1"},
		{"pcapng block length over file", cat(shb, le(ngBlockEPB, 1024, 0, 0)), io.ErrUnexpectedEOF, "block 1"},
		{"pcapng EPB before IDB", cat(shb, epb(0, 4, 4, []byte("abcd"))), ErrMalformed, "interface ID 0"},
		{"pcapng EPB unknown interface", cat(shb, idb, epb(1, 4, 4, []byte("abcd"))), ErrMalformed, "interface ID 1"},
		{"pcapng EPB interface ID huge", cat(shb, idb, epb(0xffffffff, 4, 4, []byte("abcd"))), ErrMalformed, "interface ID 4294967295"},
		{"pcapng EPB caplen overruns block", cat(shb, idb, epb(0, 5, 5, []byte("abcd"))), ErrMalformed, "overruns"},
		{"pcapng EPB caplen huge", cat(shb, idb, epb(0, 0xffffffff, 5, []byte("abcd"))), ErrTooLarge, "captured length"},
		{"pcapng EPB short body", cat(shb, idb, appendBlock(nil, o, ngBlockEPB, le(0, 0, 0))), ErrMalformed, "body of 12"},
		{"pcapng OPB short body", cat(shb, idb, appendBlock(nil, o, ngBlockOPB, le(0, 0, 0))), ErrMalformed, "body of 12"},
		{"pcapng SPB short body", cat(shb, idb, appendBlock(nil, o, ngBlockSPB, nil)), ErrMalformed, "body of 0"},
		{"pcapng SPB without IDB", cat(shb, appendBlock(nil, o, ngBlockSPB, le(4, 0))), ErrMalformed, "interface ID 0"},
		{"pcapng SPB overruns", cat(shb, idb, appendBlock(nil, o, ngBlockSPB, le(8, 0))), ErrMalformed, "overruns"},
		{"pcapng SPB huge", cat(shb, idb, appendBlock(nil, o, ngBlockSPB, le(0xffffffff, 0))), ErrTooLarge, "captured length"},
		{"pcapng IDB short", cat(shb, appendBlock(nil, o, ngBlockIDB, le(1))), ErrMalformed, "body of 4"},
		{"pcapng IDB option overruns", cat(shb, idbOpts(opt(2, 200, 'x'))), ErrMalformed, "option 2"},
		{"pcapng IDB tsresol length", cat(shb, idbOpts(opt(optTSResol, 2, 9, 9))), ErrMalformed, "if_tsresol"},
		{"pcapng IDB tsoffset length", cat(shb, idbOpts(opt(optTSOffset, 4, 1, 2, 3, 4))), ErrMalformed, "if_tsoffset"},
		{"pcapng section reset forgets interfaces", cat(shb, idb, shb, epb(0, 4, 4, []byte("abcd"))), ErrMalformed, "interface ID 0"},
		{"pcapng truncated block header", cat(shb, le(ngBlockIDB)[:3]), io.ErrUnexpectedEOF, "block 1 at offset 28"},
		{"pcapng truncated block length", cat(shb, le(ngBlockIDB), []byte{20}), io.ErrUnexpectedEOF, "block 1 at offset 28"},
		{"pcapng truncated SHB", cat(shb, le(ngBlockSHB), []byte{1}), io.ErrUnexpectedEOF, "block 1 at offset 28"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := NewReader(bytes.NewReader(tc.file))
			if err == nil {
				for err == nil {
					_, err = r.Next()
				}
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrMalformed) {
				t.Errorf("ErrTooLarge error %v does not wrap ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), tc.at) {
				t.Errorf("error %q does not say %q", err, tc.at)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 2*MaxBlockLen {
				t.Errorf("allocated %d bytes", a)
			}
		})
	}
}

// TestSPBSnapLen: a simple packet block's data is cut at the snapshot
// length; with snaplen 0 (none) the whole packet is there.
func TestSPBSnapLen(t *testing.T) {
	o := binary.LittleEndian
	for _, snap := range []uint32{0, 3, 100} {
		b := appendSHB(nil, o)
		b = appendIDB(b, o, testIface{link: 1, snapLen: snap})
		b = appendBlock(b, o, ngBlockSPB, append(o.AppendUint32(nil, 6), "abcdef"...))
		_, pkts, err := readAll(t, b)
		if err != io.EOF || len(pkts) != 1 {
			t.Fatalf("snaplen %d: %v, %d packets", snap, err, len(pkts))
		}
		want := "abcdef"
		if snap == 3 {
			want = "abc"
		}
		if string(pkts[0].Data) != want || pkts[0].OrigLen != 6 {
			t.Errorf("snaplen %d: %+v", snap, pkts[0])
		}
	}
}

// TestLargePacket: a packet of exactly MaxPacketLen bytes is fine in both
// formats.
func TestLargePacket(t *testing.T) {
	p := ownPacket{Packet{LinkType: 1, Time: time.Unix(1, 0).UTC(), Data: bytes.Repeat([]byte{0xab}, MaxPacketLen), OrigLen: MaxPacketLen}}
	for _, b := range [][]byte{
		encodePcap(binary.BigEndian, false, 1, []ownPacket{p, p}),
		encodePcapng(binary.BigEndian, []testIface{{link: 1}}, []ownPacket{p, p}),
	} {
		_, pkts, err := readAll(t, b)
		if err != io.EOF || len(pkts) != 2 {
			t.Fatalf("%v, %d packets", err, len(pkts))
		}
		if !samePacket(pkts[1].Packet, p.Packet) {
			t.Errorf("large packet differs")
		}
	}
}

// TestManyInterfaces: a section may not describe more than MaxInterfaces.
func TestManyInterfaces(t *testing.T) {
	o := binary.LittleEndian
	b := appendSHB(nil, o)
	idb := appendIDB(nil, o, testIface{link: 1})
	for i := 0; i <= MaxInterfaces; i++ {
		b = append(b, idb...)
	}
	_, _, err := readAll(t, b)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "interfaces") {
		t.Fatalf("got %v", err)
	}
}

// TestNoAllocs: in the steady state Next does not allocate.
func TestNoAllocs(t *testing.T) {
	_, pkts, _ := readAll(t, readTestdata(t, "two_linktypes.pcapng"))
	var many []ownPacket
	for len(many) < 1000 {
		many = append(many, pkts...)
	}
	for _, b := range [][]byte{
		encodePcap(binary.LittleEndian, true, 1, many),
		encodePcap(binary.BigEndian, false, 1, many),
		encodePcapng(binary.LittleEndian, []testIface{{link: 1}, {link: 101, resol: 9}}, many),
		encodePcapng(binary.BigEndian, []testIface{{link: 1, resol: 0x80 | 20}, {link: 101, offset: 7}}, many),
	} {
		r, err := NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10; i++ { // warm up the buffer
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(500, func() {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Next", r.Format(), allocs)
		}
		var p Packet
		if allocs := testing.AllocsPerRun(200, func() {
			if err := r.NextInto(&p); err != nil {
				t.Fatal(err)
			}
		}); allocs != 0 {
			t.Errorf("%s: %v allocations per NextInto", r.Format(), allocs)
		}
	}
}

// TestNextInto: NextInto gives what Next does, whatever the Packet held
// before, and leaves the Packet as it was at the end and on an error.
func TestNextInto(t *testing.T) {
	dirty := Packet{LinkType: 7, Time: time.Unix(1, 2), Data: []byte("old"), OrigLen: 9, Interface: 3, Section: 2,
		InterfaceName: "eth9", Direction: DirOutbound}
	for _, name := range captures(t) {
		full := readTestdata(t, name)
		_, want, _ := readAll(t, full)
		for _, b := range [][]byte{full, full[:len(full)-3]} {
			r, err := NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; ; i++ {
				p := dirty
				err := r.NextInto(&p)
				if err != nil {
					if len(b) == len(full) && (err != io.EOF || i != len(want)) || !reflect.DeepEqual(p, dirty) {
						t.Fatalf("%s (%d bytes): packet %d: %v, packet %+v", name, len(b), i, err, p)
					}
					break
				}
				if i >= len(want) || !reflect.DeepEqual(p, want[i].Packet) {
					t.Fatalf("%s: packet %d: %+v", name, i, p)
				}
			}
		}
	}
}

func BenchmarkNext(b *testing.B) {
	_, pkts, _ := readAll(b, readTestdata(b, "two_linktypes.pcapng"))
	var many []ownPacket
	for len(many) < 1000 {
		many = append(many, pkts...)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"pcap", encodePcap(binary.LittleEndian, true, 1, many)},
		{"pcapng", encodePcapng(binary.LittleEndian, []testIface{{link: 1}, {link: 101, resol: 9}}, many)},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(f.data) / len(many)))
			br := bytes.NewReader(f.data)
			r, _ := NewReader(br)
			for i := 0; i < b.N; i++ {
				if _, err := r.Next(); err != nil {
					br.Reset(f.data)
					r, _ = NewReader(br)
				}
			}
		})
	}
}

// TestEach: Each and EachFile visit every record, stop at fn's first
// error, and report a torn file.
func TestEach(t *testing.T) {
	const file = "testdata/basic_usec.pcap"
	var viaNext int
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := r.Next(); err != nil {
			break
		}
		viaNext++
	}
	f.Close()
	n := 0
	if err := EachFile(file, func(Packet) error { n++; return nil }); err != nil || n != viaNext || n == 0 {
		t.Fatalf("EachFile: %d packets, %v; Next saw %d", n, err, viaNext)
	}
	stop := errors.New("stop")
	n = 0
	if err := EachFile(file, func(Packet) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("fn error: %v after %d packets", err, n)
	}
	b, _ := os.ReadFile(file)
	if err := Each(bytes.NewReader(b[:len(b)-5]), func(Packet) error { return nil }); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("torn file: %v", err)
	}
	if err := EachFile("testdata/nonexistent.pcap", func(Packet) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// TestInterfaceNameAndDirection reads if_name from the interface blocks
// and the direction bits of epb_flags.
func TestInterfaceNameAndDirection(t *testing.T) {
	for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		ifcs := []testIface{{link: 1, name: "eth1"}, {link: 1, name: "eth2\x00"}, {link: 1, resol: 9}}
		in := []ownPacket{
			{Packet{Time: time.Unix(1, 0).UTC(), Data: []byte("abcde"), OrigLen: 5, Interface: 1, Direction: DirOutbound}},
			{Packet{Time: time.Unix(2, 0).UTC(), Data: []byte("abcd"), OrigLen: 4, Interface: 0, Direction: DirInbound}},
			{Packet{Time: time.Unix(3, 0).UTC(), Data: []byte("abc"), OrigLen: 3, Interface: 2}},
		}
		_, got, err := readAll(t, encodePcapng(order, ifcs, in))
		if err != io.EOF || len(got) != 3 {
			t.Fatalf("%v, %d packets", err, len(got))
		}
		for i, want := range []struct {
			name string
			dir  Direction
		}{{"eth2", DirOutbound}, {"eth1", DirInbound}, {"", DirUnknown}} {
			if got[i].InterfaceName != want.name || got[i].Direction != want.dir || !bytes.Equal(got[i].Data, in[i].Data) {
				t.Errorf("packet %d: name %q direction %d data %q, want %q %d %q", i, got[i].InterfaceName, got[i].Direction, got[i].Data, want.name, want.dir, in[i].Data)
			}
		}
	}
	// An oversized if_name is not kept; the packets still read.
	long := strings.Repeat("x", maxIfName+1)
	_, got, err := readAll(t, encodePcapng(binary.LittleEndian, []testIface{{link: 1, name: long}},
		[]ownPacket{{Packet{Time: time.Unix(1, 0).UTC(), Data: []byte("a"), OrigLen: 1}}}))
	if err != io.EOF || len(got) != 1 || got[0].InterfaceName != "" {
		t.Fatalf("long if_name: %v, %+v", err, got)
	}
}
