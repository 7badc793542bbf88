// Package capture reads BGP segments off the wire for the shadow checker:
// one AF_PACKET socket per interface (or one for all), each with a
// memory-mapped TPACKET_V3 ring and a classic BPF filter that lets only TCP
// segments to or from the BGP port through, over IPv4 and IPv6 (extension
// headers included), on Ethernet (VLAN tags in the frame or in packet
// metadata), loopback and devices without a link-layer header (tun,
// WireGuard, IP tunnels). The filter can also be narrowed to the segments of
// a set of hosts (Options.Hosts), and the set changed on the open sockets
// (Capture.SetHosts).
//
// The capture sees segments before the kernel's TCP stack drops them
// (a bad TCP-MD5 digest is dropped silently by TCP, after the packet taps),
// and it sees the segments this host sends (Packet.Outgoing), so our own
// signatures can be verified too.
//
// Reading does not allocate: Next hands each frame to a callback with a
// Data slice that points into the ring and is valid only during the call.
//
// Frames are captured as the stack hands them to or takes them from the
// device. With segmentation offloads a frame may therefore hold several
// wire segments (a TSO/GSO super-packet on the way out, a GRO aggregate on
// the way in). TCP-MD5 segments are never aggregated: Linux disables GSO
// on sockets with MD5 keys, and GRO does not merge segments whose options
// differ, as their digests do.
//
// Only Linux is supported; elsewhere Open returns an error wrapping
// ErrNotSupported.
package capture

import (
	"errors"
	"net/netip"
	"time"
)

// Errors, for errors.Is.
var (
	// ErrNotSupported means live capture is not available on this OS.
	ErrNotSupported = errors.New("capture: live packet capture is not supported on this system")
	// ErrPermission means the process may not open a packet socket: it
	// needs CAP_NET_RAW in the network namespace it captures in. Errors
	// wrapping it also wrap the system error (EPERM or EACCES).
	ErrPermission = errors.New("capture: permission denied: packet capture needs CAP_NET_RAW")
	// ErrUnsupportedLink means an interface named in Options.Interfaces
	// has a device type whose frames the capture cannot decode.
	ErrUnsupportedLink = errors.New("capture: unsupported link type")
	// ErrFanout means the kernel refused to join rings in a fanout group
	// (OpenFanout): one ring (Open) still captures everything.
	ErrFanout = errors.New("capture: cannot spread frames over several rings (PACKET_FANOUT)")
	// ErrClosed is returned by Next after Close.
	ErrClosed = errors.New("capture: closed")
)

// Defaults for Options.
const (
	DefaultPort      = 179
	DefaultBlockSize = 1 << 20
	DefaultNumBlocks = 8
	DefaultTimeout   = 100 * time.Millisecond
	// MaxFanout is the most rings OpenFanout spreads frames over (the
	// kernel's PACKET_FANOUT_MAX is 256).
	MaxFanout = 64
)

// Options configures Open. The zero value captures BGP on all interfaces
// with an 8 MiB ring.
type Options struct {
	// Interfaces names the interfaces to capture on, one socket and ring
	// each. Empty means every interface of the network namespace, through
	// one socket (which also follows interfaces created later).
	Interfaces []string
	// Port is the BGP port: segments whose source or destination port is
	// Port are captured. 0 means DefaultPort (179).
	Port uint16
	// SRv6 also captures every IPv6 packet with a Segment Routing Header
	// (routing header type 4), whatever it carries, for the shadow
	// checker's SRH HMAC verification.
	SRv6 bool
	// Hosts, if not empty, captures only the packets whose IP source or
	// destination address is one of these (IPv4 or IPv6; IPv4-mapped IPv6
	// addresses count as IPv4, as such peers' packets are IPv4 on the
	// wire): the BGP segments of those peers (and, with SRv6, their SRv6
	// packets). At most MaxHosts. Capture.SetHosts changes the set of an
	// open capture without reopening it.
	Hosts []netip.Addr
	// BlockSize is the size of one ring block in bytes, a multiple of the
	// page size (0: DefaultBlockSize, 1 MiB). A frame that does not fit
	// in a block with its headers (about 130 bytes) is truncated
	// (Packet.Truncated).
	BlockSize int
	// NumBlocks is the number of blocks in each ring (0: DefaultNumBlocks).
	// The memory used is BlockSize*NumBlocks per socket.
	NumBlocks int
	// Timeout is how long the kernel fills a block before it hands it to
	// the reader anyway, i.e. the worst-case delivery latency of a frame
	// on a quiet link (0: DefaultTimeout; rounded to milliseconds, at
	// least 1 ms). A block goes to the reader when it is full or Timeout
	// after the kernel opened it, whichever comes first: with a very short
	// Timeout, blocks leave partly filled and a burst finds fewer free
	// bytes in the ring than BlockSize*NumBlocks.
	Timeout time.Duration
}

// Packet is one captured frame.
type Packet struct {
	// Data is the frame from its link-layer header (LinkType). It points
	// into the ring and is valid only during the callback: copy it to
	// keep it.
	Data []byte
	// LinkType is frame.LinkEthernet (Ethernet and loopback devices) or
	// frame.LinkRaw (devices without a link-layer header).
	LinkType uint32
	// IfIndex is the index of the interface the frame was seen on.
	IfIndex int
	// Outgoing reports a frame this host sent (PACKET_OUTGOING): its own
	// segments, and packets it forwards. On loopback every frame is seen
	// twice, once in each direction.
	Outgoing bool
	// Time is the kernel's receive (or transmit) timestamp.
	Time time.Time
	// Length is the length of the frame on the wire.
	Length int
	// Truncated reports that Data holds less than Length bytes (the frame
	// did not fit a ring block): the segment is incomplete and its
	// TCP-MD5 signature cannot be verified.
	Truncated bool
	// VLANValid reports that the kernel removed an 802.1Q/802.1ad tag
	// from the frame into packet metadata; VLANTCI is its tag control
	// information (priority and VLAN ID) and VLANTPID its EtherType when
	// the kernel reports it (0 otherwise). Tags still in the frame are in
	// Data.
	VLANValid bool
	VLANTCI   uint16
	VLANTPID  uint16
}

// Stats are cumulative counters since Open, summed over the sockets.
type Stats struct {
	// Packets counts the frames that passed the filter, including those
	// dropped (the kernel's tp_packets).
	Packets uint64
	// Drops counts the frames that passed the filter but were dropped
	// because the ring was full: the reader fell behind.
	Drops uint64
	// FreezeQueue counts the times a ring filled up and the kernel had to
	// wait for the reader to release a block (tp_freeze_q_cnt).
	FreezeQueue uint64
	// Unsupported counts frames skipped because their device type has no
	// supported framing (the filter normally keeps them out of the ring).
	Unsupported uint64
	// LinkErrors counts errors the sockets reported, such as ENETDOWN
	// when a captured interface went down. Capture resumes when the
	// interface comes back up (with the same index).
	LinkErrors uint64
}

// Add adds the counters of o to s (the captures of a fanout group).
func (s *Stats) Add(o Stats) {
	s.Packets += o.Packets
	s.Drops += o.Drops
	s.FreezeQueue += o.FreezeQueue
	s.Unsupported += o.Unsupported
	s.LinkErrors += o.LinkErrors
}

// Batcher brackets the frames of one ring block (see Capture.NextBatch).
// A shadow.Checker is one: its lock is taken once per block.
type Batcher interface {
	Begin()
	End()
}
