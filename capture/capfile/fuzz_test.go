package capfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// FuzzReader feeds arbitrary bytes to the reader and checks properties
// beyond "no panic": bounded packets, well-formed errors that stick, the
// same result through a one-byte-at-a-time reader, and that re-encoding
// the packets read yields a file that reads back to the same packets.
//
//	go test -run='^$' -fuzz=FuzzReader -fuzztime=30s ./capture/capfile
func FuzzReader(f *testing.F) {
	for _, name := range captures(f) {
		b := readTestdata(f, name)
		f.Add(b)
		// The header and first records alone are quicker to mutate.
		if len(b) > 400 {
			f.Add(b[:400])
		}
	}
	o := binary.LittleEndian
	f.Add(encodePcapng(binary.BigEndian, []testIface{{link: 1, resol: 0x80 | 30, offset: -5}, {link: 276, snapLen: 64}},
		[]ownPacket{{Packet{Time: time.Unix(1, 5).UTC(), Data: []byte("abcd"), OrigLen: 9, Interface: 1}}}))
	f.Add(cat(appendSHB(nil, o), appendIDB(nil, o, testIface{link: 101, snapLen: 3}),
		appendBlock(nil, o, ngBlockSPB, append(o.AppendUint32(nil, 5), "abcde"...)), appendBlock(nil, o, 5, make([]byte, 12)),
		appendSHB(nil, binary.BigEndian)))
	// Interface names and directions (if_name, epb_flags).
	f.Add(encodePcapng(o, []testIface{{link: 1, name: "eth1"}, {link: 1, name: "eth2\x00"}, {link: 276, name: "any"}},
		[]ownPacket{{Packet{Time: time.Unix(1, 0).UTC(), Data: []byte("abcde"), OrigLen: 5, Interface: 0, Direction: DirInbound}},
			{Packet{Time: time.Unix(2, 0).UTC(), Data: []byte("ab"), OrigLen: 2, Interface: 1, Direction: DirOutbound}},
			{Packet{Time: time.Unix(3, 0).UTC(), Data: []byte("abc"), OrigLen: 3, Interface: 2}}}))
	f.Add(cat(pcapHeader(113), pcapRecord(3, 100, []byte("xyz")), pcapRecord(0, 0, nil)))

	f.Fuzz(func(t *testing.T, b []byte) {
		pkts, final := fuzzRead(t, bytes.NewReader(b), len(b))
		if final == nil {
			return
		}
		// Reading in small pieces gives the same packets and error
		// (byte by byte for small inputs, to keep big ones fast).
		var src io.Reader = iotest.OneByteReader(bytes.NewReader(b))
		if len(b) > 1024 {
			src = iotest.HalfReader(bytes.NewReader(b))
		}
		pkts2, final2 := fuzzRead(t, src, len(b))
		if final2 == nil || final.Error() != final2.Error() || len(pkts) != len(pkts2) {
			t.Fatalf("one-byte reader: %v (%d packets), direct: %v (%d packets)", final2, len(pkts2), final, len(pkts))
		}
		for i := range pkts {
			if !samePacket(pkts[i].Packet, pkts2[i].Packet) || pkts[i].Section != pkts2[i].Section {
				t.Fatalf("one-byte reader: packet %d differs", i)
			}
		}
		reencode(t, b, pkts)
	})
}

// fuzzRead reads everything from src, checking each result. It returns the
// packets and the error that ended the read, or a nil error if NewReader
// failed.
func fuzzRead(t *testing.T, src io.Reader, size int) ([]ownPacket, error) {
	r, err := NewReader(src)
	if err != nil {
		if !errors.Is(err, ErrUnknownFormat) && !errors.Is(err, ErrMalformed) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("NewReader: unexpected error %v", err)
		}
		return nil, nil
	}
	format := r.Format()
	if format != "pcap" && format != "pcapng" {
		t.Fatalf("Format() = %q", format)
	}
	var pkts []ownPacket
	total := 0
	for {
		p, err := r.Next()
		if err != nil {
			if err != io.EOF {
				if !errors.Is(err, ErrMalformed) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("Next: unexpected error %v", err)
				}
				if !strings.Contains(err.Error(), "at offset") {
					t.Fatalf("Next: error %q does not say where", err)
				}
			}
			if p.Data != nil {
				t.Fatalf("Next returned data with error %v", err)
			}
			if _, err2 := r.Next(); err2 != err {
				t.Fatalf("error not sticky: %v then %v", err, err2)
			}
			return pkts, err
		}
		if len(p.Data) > MaxPacketLen {
			t.Fatalf("packet of %d bytes, over MaxPacketLen", len(p.Data))
		}
		if p.LinkType > 0xffff || p.OrigLen < 0 || p.Interface < 0 || p.Interface >= MaxInterfaces || p.Section < 0 {
			t.Fatalf("bad packet metadata %+v", p)
		}
		if format == "pcap" && (p.Interface != 0 || p.Section != 0) {
			t.Fatalf("pcap packet with interface %d section %d", p.Interface, p.Section)
		}
		total += len(p.Data)
		if total > size {
			t.Fatalf("read %d data bytes from a %d-byte file", total, size)
		}
		p.Data = bytes.Clone(p.Data)
		pkts = append(pkts, ownPacket{p})
	}
}

// reencode writes the packets that a fresh file can represent into a new
// pcap (if b was pcap) and a new pcapng file, and reads them back.
func reencode(t *testing.T, b []byte, pkts []ownPacket) {
	isPcap := binary.BigEndian.Uint32(b) != ngBlockSHB
	var ng, pc []ownPacket
	for _, p := range pkts {
		if isPcap && p.Time.Unix() >= 0 && p.Time.Unix() <= math.MaxUint32 {
			pc = append(pc, p)
		}
		// Nanoseconds since 1970 must fit the 64-bit timestamp.
		if sec := p.Time.Unix(); sec >= 0 && sec < math.MaxUint64/1_000_000_000-1 && p.OrigLen <= math.MaxUint32 {
			ng = append(ng, p)
		}
	}
	if isPcap && len(pc) > 0 {
		nb := encodePcap(binary.LittleEndian, true, pc[0].LinkType, pc)
		_, got, err := readAll(t, nb)
		if err != io.EOF || len(got) != len(pc) {
			t.Fatalf("re-encoded pcap: %v, %d packets, want %d", err, len(got), len(pc))
		}
		for i := range pc {
			if !samePacket(got[i].Packet, pc[i].Packet) {
				t.Fatalf("re-encoded pcap packet %d: %+v, want %+v", i, got[i], pc[i])
			}
		}
	}
	if len(ng) == 0 {
		return
	}
	// One section; an interface per (section, interface) pair met.
	type key struct{ section, iface int }
	ids := map[key]int{}
	var ifcs []testIface
	re := make([]ownPacket, len(ng))
	for i, p := range ng {
		k := key{p.Section, p.Interface}
		id, ok := ids[k]
		if !ok {
			id = len(ifcs)
			ids[k] = id
			ifcs = append(ifcs, testIface{link: uint16(p.LinkType), resol: 9, name: p.InterfaceName})
		}
		re[i] = p
		re[i].Interface = id
		re[i].Section = 0
	}
	nb := encodePcapng(binary.LittleEndian, ifcs, re)
	_, got, err := readAll(t, nb)
	if err != io.EOF || len(got) != len(re) {
		t.Fatalf("re-encoded pcapng: %v, %d packets, want %d", err, len(got), len(re))
	}
	for i := range re {
		if !samePacket(got[i].Packet, re[i].Packet) {
			t.Fatalf("re-encoded pcapng packet %d: %+v, want %+v", i, got[i], re[i])
		}
	}
}
