// Package capfile reads packet capture files: classic pcap (both byte
// orders, microsecond and nanosecond timestamps) and pcapng (sections in
// either byte order, several interfaces with their own link types and
// timestamp resolutions, enhanced, simple and obsolete packet blocks).
//
// The reader is written for untrusted input: every length is checked against
// the data that is actually there and bounded (MaxPacketLen, MaxBlockLen), so
// a hostile file can neither make it panic nor allocate more than a few
// hundred KiB. After the first packets it does not allocate at all: the data
// of a packet lives in a buffer that the next call to Next reuses.
//
// Errors say where a file is broken: the packet (pcap) or block (pcapng)
// index, counted from 0, and the byte offset of its start. A file that ends
// in the middle of a record yields an error wrapping io.ErrUnexpectedEOF; a
// structurally invalid one an error wrapping ErrMalformed (and ErrTooLarge
// for lengths over the caps); an input that is neither pcap nor pcapng
// ErrUnknownFormat.
package capfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"time"
)

// Caps on what a file may declare. Real captures stay far below them:
// tcpdump's and dumpcap's default snapshot length is 262144 bytes.
const (
	// MaxPacketLen is the largest captured length of one packet (256 KiB).
	// A record claiming more is an error wrapping ErrTooLarge.
	MaxPacketLen = 256 << 10
	// MaxBlockLen is the largest pcapng block (a maximal packet plus room
	// for options and comments). A block claiming more is an error wrapping
	// ErrTooLarge.
	MaxBlockLen = MaxPacketLen + 64<<10
	// MaxInterfaces is the largest number of interfaces one pcapng section
	// may describe.
	MaxInterfaces = 1 << 16
)

// Errors, for errors.Is. Truncated files wrap io.ErrUnexpectedEOF.
var (
	// ErrUnknownFormat means the input starts with neither a pcap nor a
	// pcapng magic number.
	ErrUnknownFormat = errors.New("capfile: unknown capture file format (not pcap or pcapng)")
	// ErrMalformed means the file is structurally invalid.
	ErrMalformed = errors.New("capfile: malformed capture file")
	// ErrTooLarge means a length in the file exceeds MaxPacketLen,
	// MaxBlockLen or MaxInterfaces. Errors wrapping it also wrap
	// ErrMalformed.
	ErrTooLarge = fmt.Errorf("%w: length over the limit", ErrMalformed)
)

// Magic numbers.
const (
	pcapMagicMicro = 0xa1b2c3d4
	pcapMagicNano  = 0xa1b23c4d
	ngBlockSHB     = 0x0a0d0d0a
	ngByteOrder    = 0x1a2b3c4d
)

// pcapng block types the reader interprets; all others are skipped.
const (
	ngBlockIDB = 0x00000001 // interface description
	ngBlockOPB = 0x00000002 // packet block (obsolete)
	ngBlockSPB = 0x00000003 // simple packet
	ngBlockEPB = 0x00000006 // enhanced packet
)

// pcapng option codes.
const (
	optEndOfOpt = 0
	optIfName   = 2 // IDB: if_name
	optEPBFlags = 2 // EPB: epb_flags
	optTSResol  = 9
	optTSOffset = 14
)

// maxIfName bounds the if_name kept per interface (Linux names are at
// most 15 bytes; Windows device names some 50): a longer one is dropped.
const maxIfName = 128

// Direction is a packet's direction as the capture file records it.
type Direction uint8

const (
	DirUnknown  Direction = iota // not recorded
	DirInbound                   // received by the capturing host
	DirOutbound                  // sent by it
)

// Packet is one captured packet.
type Packet struct {
	// LinkType is the LINKTYPE_ value of the packet's interface (1
	// Ethernet, 113 Linux cooked v1, 276 v2, 101 raw IP, ...).
	LinkType uint32
	// Time is the capture timestamp, in UTC. pcapng simple packet blocks
	// carry none: their Time is the zero time.
	Time time.Time
	// Data is the captured bytes (at most MaxPacketLen). It is valid until
	// the next call to Next; copy it to keep it.
	Data []byte
	// OrigLen is the length of the packet on the wire, which may exceed
	// len(Data) when the capture had a snapshot length.
	OrigLen int
	// Interface is the interface ID within the pcapng section (the index
	// of its Interface Description Block); always 0 for pcap.
	Interface int
	// Section counts pcapng sections from 0; always 0 for pcap.
	Section int
	// InterfaceName is the if_name option of the packet's pcapng
	// interface ("" when it has none; always "" for pcap).
	InterfaceName string
	// Direction is the inbound/outbound bits of a pcapng enhanced packet
	// block's epb_flags (DirUnknown without them, and for pcap: the
	// Linux cooked link types carry it in their header, see
	// frame.CookedHeader).
	Direction Direction
}

// ngInterface is what the reader keeps of a pcapng Interface Description Block.
type ngInterface struct {
	linkType uint32
	snapLen  uint32
	// Timestamp resolution: units per second are 10^resol, or 2^resol if
	// pow2.
	resol    uint8
	pow2     bool
	tsOffset int64  // seconds, added to every timestamp
	name     string // if_name
}

// Reader reads packets from a pcap or pcapng stream. It is not safe for
// concurrent use.
type Reader struct {
	r      *bufio.Reader
	format string
	off    int64 // byte offset of the next unread byte
	index  int   // index of the next record (pcap packet or pcapng block)
	err    error // sticky: once set, Next returns it forever
	buf    []byte
	hdr    [24]byte

	// pcap
	order    binary.ByteOrder
	nano     bool
	linkType uint32

	// pcapng (order is the current section's byte order)
	section int
	ifaces  []ngInterface
}

// NewReader sniffs the format of r from its first bytes and reads the file
// header (pcap) or first section header (pcapng).
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{r: bufio.NewReaderSize(r, readBufLen)}
	var m [4]byte
	if err := rd.readFull(m[:]); err != nil {
		return nil, fmt.Errorf("capfile: reading the file magic: %w", eofIsUnexpected(err))
	}
	switch {
	case binary.LittleEndian.Uint32(m[:]) == pcapMagicMicro:
		rd.order, rd.nano = binary.LittleEndian, false
	case binary.BigEndian.Uint32(m[:]) == pcapMagicMicro:
		rd.order, rd.nano = binary.BigEndian, false
	case binary.LittleEndian.Uint32(m[:]) == pcapMagicNano:
		rd.order, rd.nano = binary.LittleEndian, true
	case binary.BigEndian.Uint32(m[:]) == pcapMagicNano:
		rd.order, rd.nano = binary.BigEndian, true
	case binary.BigEndian.Uint32(m[:]) == ngBlockSHB:
		rd.format = "pcapng"
		rd.section = -1
		if err := rd.readSHB(); err != nil {
			return nil, err
		}
		return rd, nil
	default:
		return nil, fmt.Errorf("%w: magic %02x%02x%02x%02x", ErrUnknownFormat, m[0], m[1], m[2], m[3])
	}
	rd.format = "pcap"
	h := rd.hdr[:20]
	if err := rd.readFull(h); err != nil {
		return nil, fmt.Errorf("capfile: pcap file header at offset 4: %w", eofIsUnexpected(err))
	}
	// version major, minor, thiszone, sigfigs, snaplen: informational.
	// LinkType and additional information: the link type is the low 16
	// bits; the rest holds FCS flags.
	rd.linkType = rd.order.Uint32(h[16:20]) & 0xffff
	return rd, nil
}

// Format reports "pcap" or "pcapng".
func (r *Reader) Format() string { return r.format }

// Next returns the next packet. At the clean end of the input it returns
// io.EOF. Errors are sticky: after one, Next keeps returning it.
func (r *Reader) Next() (Packet, error) {
	var p Packet
	if err := r.NextInto(&p); err != nil {
		return Packet{}, err
	}
	return p, nil
}

// NextInto is Next that stores the packet in *p (left as it was on an
// error): a loop over a file's packets copies no Packet (a hundred bytes)
// per packet.
func (r *Reader) NextInto(p *Packet) error {
	if r.err != nil {
		return r.err
	}
	var err error
	if r.format == "pcap" {
		err = r.nextPcap(p)
	} else {
		var q Packet
		if q, err = r.nextPcapng(); err == nil {
			*p = q
		}
	}
	if err != nil {
		r.err = err
	}
	return err
}

// readBufLen is the size of the read buffer: large enough that reading a
// file costs few system calls, and that nearly every record lies whole in
// the buffer (see peek).
const readBufLen = 256 << 10

// peek returns the next n bytes in place, in the read buffer, and consumes
// them: valid until the next read. It returns nil when they are not all
// buffered (and cannot be: n exceeds the buffer, or the input ends or
// fails first); then nothing is consumed and readFull says why.
func (r *Reader) peek(n int) []byte {
	b, err := r.r.Peek(n)
	if err != nil {
		return nil
	}
	r.r.Discard(n)
	r.off += int64(n)
	return b
}

// readFull reads exactly len(b) bytes and advances the offset by what it read.
func (r *Reader) readFull(b []byte) error {
	n, err := io.ReadFull(r.r, b)
	r.off += int64(n)
	return err
}

// eofIsUnexpected turns io.EOF (nothing read where something must be) into
// io.ErrUnexpectedEOF.
func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// grow returns r.buf resized to n bytes, allocating only when it is too
// small. n must already be bounded by the caller.
func (r *Reader) grow(n int) []byte {
	if cap(r.buf) < n {
		c := 2 * cap(r.buf)
		if c < n {
			c = n
		}
		if c < 2048 {
			c = 2048
		}
		if c > MaxBlockLen {
			c = MaxBlockLen
		}
		if c < n {
			c = n
		}
		r.buf = make([]byte, n, c)
	}
	return r.buf[:n]
}

func (r *Reader) nextPcap(p *Packet) error {
	idx, start := r.index, r.off
	// The record's header and data are read in place when they lie
	// whole in the read buffer (nearly always): no copy. (h is read
	// before the data's peek, which may move the buffer's contents.)
	h := r.peek(16)
	if h == nil {
		h = r.hdr[:16]
		if err := r.readFull(h); err != nil {
			if err == io.EOF {
				return io.EOF
			}
			return fmt.Errorf("capfile: pcap packet %d at offset %d: record header: %w", idx, start, err)
		}
	}
	sec := r.order.Uint32(h[0:4])
	frac := r.order.Uint32(h[4:8])
	incl := r.order.Uint32(h[8:12])
	orig := r.order.Uint32(h[12:16])
	if incl > MaxPacketLen {
		return fmt.Errorf("%w: pcap packet %d at offset %d: captured length %d exceeds %d", ErrTooLarge, idx, start, incl, MaxPacketLen)
	}
	data := r.peek(int(incl))
	if data == nil {
		data = r.grow(int(incl))
		if err := r.readFull(data); err != nil {
			return fmt.Errorf("capfile: pcap packet %d at offset %d: %d of %d data bytes: %w", idx, start, r.off-start-16, incl, eofIsUnexpected(err))
		}
	}
	r.index++
	nsec := int64(frac)
	if !r.nano {
		nsec *= 1000
	}
	// Field by field: *p = Packet{...} built the packet aside and copied it.
	p.LinkType, p.Time, p.Data, p.OrigLen = r.linkType, time.Unix(int64(sec), nsec).UTC(), data, intLen(orig)
	p.Interface, p.Section, p.InterfaceName, p.Direction = 0, 0, "", DirUnknown
	return nil
}

// readSHB reads a Section Header Block whose type field has already been
// consumed (the block started 4 bytes before r.off). It starts a new
// section: the interfaces of the previous one are forgotten.
func (r *Reader) readSHB() error {
	idx, start := r.index, r.off-4
	h := r.hdr[:8]
	if err := r.readFull(h); err != nil {
		return fmt.Errorf("capfile: pcapng block %d at offset %d: section header: %w", idx, start, eofIsUnexpected(err))
	}
	var order binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint32(h[4:8]) == ngByteOrder:
		order = binary.LittleEndian
	case binary.BigEndian.Uint32(h[4:8]) == ngByteOrder:
		order = binary.BigEndian
	default:
		if idx == 0 {
			return fmt.Errorf("%w: pcapng section header without byte-order magic", ErrUnknownFormat)
		}
		return fmt.Errorf("%w: pcapng block %d at offset %d: section header with bad byte-order magic %x", ErrMalformed, idx, start, h[4:8])
	}
	total := order.Uint32(h[0:4])
	// type, length, BOM, version (4), section length (8), trailing length.
	if total < 28 || total%4 != 0 {
		return fmt.Errorf("%w: pcapng block %d at offset %d: section header length %d", ErrMalformed, idx, start, total)
	}
	if total > MaxBlockLen {
		return fmt.Errorf("%w: pcapng block %d at offset %d: section header length %d exceeds %d", ErrTooLarge, idx, start, total, MaxBlockLen)
	}
	body := r.grow(int(total) - 12)
	if err := r.readFull(body); err != nil {
		return fmt.Errorf("capfile: pcapng block %d at offset %d: section header: %w", idx, start, eofIsUnexpected(err))
	}
	if trail := order.Uint32(body[len(body)-4:]); trail != total {
		return fmt.Errorf("%w: pcapng block %d at offset %d: trailing length %d != leading length %d", ErrMalformed, idx, start, trail, total)
	}
	if major := order.Uint16(body[0:2]); major != 1 {
		return fmt.Errorf("%w: pcapng block %d at offset %d: unsupported pcapng version %d.%d", ErrMalformed, idx, start, major, order.Uint16(body[2:4]))
	}
	r.order = order
	r.section++
	r.ifaces = r.ifaces[:0]
	r.index++
	return nil
}

func (r *Reader) nextPcapng() (Packet, error) {
	for {
		idx, start := r.index, r.off
		h := r.hdr[:8]
		n, err := io.ReadFull(r.r, h[:4])
		r.off += int64(n)
		if err != nil {
			if err == io.EOF {
				return Packet{}, io.EOF
			}
			return Packet{}, fmt.Errorf("capfile: pcapng block %d at offset %d: block header: %w", idx, start, err)
		}
		if binary.BigEndian.Uint32(h[:4]) == ngBlockSHB {
			if err := r.readSHB(); err != nil {
				return Packet{}, err
			}
			continue
		}
		if err := r.readFull(h[4:8]); err != nil {
			return Packet{}, fmt.Errorf("capfile: pcapng block %d at offset %d: block header: %w", idx, start, eofIsUnexpected(err))
		}
		typ := r.order.Uint32(h[0:4])
		total := r.order.Uint32(h[4:8])
		if total < 12 || total%4 != 0 {
			return Packet{}, fmt.Errorf("%w: pcapng block %d (type %#x) at offset %d: block length %d", ErrMalformed, idx, typ, start, total)
		}
		if total > MaxBlockLen {
			return Packet{}, fmt.Errorf("%w: pcapng block %d (type %#x) at offset %d: block length %d exceeds %d", ErrTooLarge, idx, typ, start, total, MaxBlockLen)
		}
		rest := r.grow(int(total) - 8)
		if err := r.readFull(rest); err != nil {
			return Packet{}, fmt.Errorf("capfile: pcapng block %d (type %#x) at offset %d: %w", idx, typ, start, eofIsUnexpected(err))
		}
		if trail := r.order.Uint32(rest[len(rest)-4:]); trail != total {
			return Packet{}, fmt.Errorf("%w: pcapng block %d (type %#x) at offset %d: trailing length %d != leading length %d", ErrMalformed, idx, typ, start, trail, total)
		}
		body := rest[:len(rest)-4]
		r.index++
		var p Packet
		var perr error
		switch typ {
		case ngBlockIDB:
			perr = r.parseIDB(body)
			if perr == nil {
				continue
			}
		case ngBlockEPB, ngBlockOPB:
			p, perr = r.parsePacketBlock(typ, body)
		case ngBlockSPB:
			p, perr = r.parseSPB(body)
		default:
			// NRB, ISB, DSB, custom and unknown blocks: skipped.
			continue
		}
		if perr != nil {
			base := ErrMalformed
			if tl, ok := perr.(tooLargeError); ok {
				base, perr = ErrTooLarge, tl.err
			}
			return Packet{}, fmt.Errorf("%w: pcapng block %d (type %#x) at offset %d: %v", base, idx, typ, start, perr)
		}
		return p, nil
	}
}

// parseIDB records an Interface Description Block.
func (r *Reader) parseIDB(body []byte) error {
	if len(body) < 8 {
		return fmt.Errorf("interface description body of %d bytes", len(body))
	}
	if len(r.ifaces) >= MaxInterfaces {
		return tooLarge("more than %d interfaces in a section", MaxInterfaces)
	}
	ifc := ngInterface{
		linkType: uint32(r.order.Uint16(body[0:2])),
		snapLen:  r.order.Uint32(body[4:8]),
		resol:    6,
	}
	opts := body[8:]
	for len(opts) >= 4 {
		code := r.order.Uint16(opts[0:2])
		l := int(r.order.Uint16(opts[2:4]))
		if code == optEndOfOpt {
			break
		}
		padded := (l + 3) &^ 3
		if 4+padded > len(opts) {
			return fmt.Errorf("interface option %d of length %d overruns the block", code, l)
		}
		v := opts[4 : 4+l]
		switch code {
		case optTSResol:
			if l != 1 {
				return fmt.Errorf("if_tsresol of length %d", l)
			}
			ifc.pow2 = v[0]&0x80 != 0
			ifc.resol = v[0] & 0x7f
		case optTSOffset:
			if l != 8 {
				return fmt.Errorf("if_tsoffset of length %d", l)
			}
			ifc.tsOffset = int64(r.order.Uint64(v))
		case optIfName:
			// UTF-8, not zero-terminated (some writers add a NUL
			// anyway); an oversized one is not kept.
			for len(v) > 0 && v[len(v)-1] == 0 {
				v = v[:len(v)-1]
			}
			if len(v) <= maxIfName {
				ifc.name = string(v)
			}
		}
		opts = opts[4+padded:]
	}
	r.ifaces = append(r.ifaces, ifc)
	return nil
}

// tooLargeError marks a block parsing error as a length over a cap.
type tooLargeError struct{ err error }

func (e tooLargeError) Error() string { return e.err.Error() }

func tooLarge(format string, args ...any) error {
	return tooLargeError{fmt.Errorf(format, args...)}
}

func (r *Reader) iface(id uint32) (*ngInterface, error) {
	if uint64(id) >= uint64(len(r.ifaces)) {
		return nil, fmt.Errorf("interface ID %d, but the section describes %d interfaces", id, len(r.ifaces))
	}
	return &r.ifaces[id], nil
}

// parsePacketBlock decodes an Enhanced Packet Block (type 6) or an obsolete
// Packet Block (type 2). Both put the interface ID in the first 4 bytes (a
// 32-bit ID, or a 16-bit ID and a drop count) and then the same fields.
func (r *Reader) parsePacketBlock(typ uint32, body []byte) (Packet, error) {
	if len(body) < 20 {
		return Packet{}, fmt.Errorf("packet block body of %d bytes", len(body))
	}
	id := r.order.Uint32(body[0:4])
	if typ == ngBlockOPB {
		id = uint32(r.order.Uint16(body[0:2]))
	}
	ifc, err := r.iface(id)
	if err != nil {
		return Packet{}, err
	}
	ts := uint64(r.order.Uint32(body[4:8]))<<32 | uint64(r.order.Uint32(body[8:12]))
	capLen := r.order.Uint32(body[12:16])
	orig := r.order.Uint32(body[16:20])
	if capLen > MaxPacketLen {
		return Packet{}, tooLarge("captured length %d exceeds %d", capLen, MaxPacketLen)
	}
	if uint64(capLen) > uint64(len(body)-20) {
		return Packet{}, fmt.Errorf("captured length %d overruns the block (%d bytes of data)", capLen, len(body)-20)
	}
	p := Packet{
		LinkType:      ifc.linkType,
		Time:          ifc.time(ts),
		Data:          body[20 : 20+capLen],
		OrigLen:       intLen(orig),
		Interface:     int(id),
		Section:       r.section,
		InterfaceName: ifc.name,
	}
	if off := 20 + (uint64(capLen)+3)&^3; typ == ngBlockEPB && off <= uint64(len(body)) {
		p.Direction = r.epbDirection(body[off:])
	}
	return p, nil
}

// epbDirection reads the direction bits of an enhanced packet block's
// epb_flags among its options (DirUnknown without one). Options that do
// not parse are ignored, as readers do: they carry nothing the packet
// needs.
func (r *Reader) epbDirection(opts []byte) Direction {
	for len(opts) >= 4 {
		code := r.order.Uint16(opts[0:2])
		l := int(r.order.Uint16(opts[2:4]))
		padded := (l + 3) &^ 3
		if code == optEndOfOpt || 4+padded > len(opts) {
			break
		}
		if code == optEPBFlags && l == 4 {
			switch r.order.Uint32(opts[4:8]) & 3 {
			case 1:
				return DirInbound
			case 2:
				return DirOutbound
			}
			return DirUnknown
		}
		opts = opts[4+padded:]
	}
	return DirUnknown
}

// parseSPB decodes a Simple Packet Block: it belongs to interface 0, has
// no timestamp, and its captured length is the original length cut to the
// interface's snapshot length.
func (r *Reader) parseSPB(body []byte) (Packet, error) {
	if len(body) < 4 {
		return Packet{}, fmt.Errorf("simple packet body of %d bytes", len(body))
	}
	ifc, err := r.iface(0)
	if err != nil {
		return Packet{}, err
	}
	orig := r.order.Uint32(body[0:4])
	capLen := uint64(orig)
	if ifc.snapLen != 0 && uint64(ifc.snapLen) < capLen {
		capLen = uint64(ifc.snapLen)
	}
	if capLen > MaxPacketLen {
		return Packet{}, tooLarge("captured length %d exceeds %d", capLen, MaxPacketLen)
	}
	if capLen > uint64(len(body)-4) {
		return Packet{}, fmt.Errorf("captured length %d overruns the block (%d bytes of data)", capLen, len(body)-4)
	}
	return Packet{
		LinkType:      ifc.linkType,
		Data:          body[4 : 4+capLen],
		OrigLen:       intLen(orig),
		Section:       r.section,
		InterfaceName: ifc.name,
	}, nil
}

// intLen converts a 32-bit length to an int, saturating where int has 32 bits.
func intLen(n uint32) int {
	if uint64(n) > math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}

// pow10 holds 10^0 .. 10^19, every power of ten that fits a uint64.
var pow10 = [20]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// time converts a timestamp in the interface's units to a time.
func (ifc *ngInterface) time(ts uint64) time.Time {
	sec, nsec := splitTS(ts, ifc.resol, ifc.pow2)
	return time.Unix(int64(sec)+ifc.tsOffset, int64(nsec)).UTC()
}

// splitTS splits ts, counted in units of 10^-resol (or 2^-resol if pow2)
// seconds, into seconds and nanoseconds. It never overflows.
func splitTS(ts uint64, resol uint8, pow2 bool) (sec, nsec uint64) {
	if pow2 {
		if resol == 0 {
			return ts, 0
		}
		var frac uint64
		if resol < 64 {
			sec, frac = ts>>resol, ts&(1<<resol-1)
		} else {
			sec, frac = 0, ts
		}
		// nsec = frac * 1e9 / 2^resol, computed on 128 bits.
		hi, lo := bits.Mul64(frac, 1e9)
		switch {
		case resol < 64:
			nsec = hi<<(64-resol) | lo>>resol
		case resol < 128:
			nsec = hi >> (resol - 64)
		}
		return sec, nsec
	}
	if resol >= uint8(len(pow10)) {
		// Units are smaller than 10^-19 s: ts < 2^64 units is under 2 s.
		// Compute ts / 10^(resol-9) nanoseconds in two steps.
		div := uint64(resol) - 9
		nsec = ts
		for div > 0 && nsec > 0 {
			step := div
			if step > 19 {
				step = 19
			}
			nsec /= pow10[step]
			div -= step
		}
		return nsec / 1e9, nsec % 1e9
	}
	unit := pow10[resol]
	sec, frac := ts/unit, ts%unit
	if resol <= 9 {
		nsec = frac * pow10[9-resol]
	} else {
		nsec = frac / pow10[resol-9]
	}
	return sec, nsec
}
