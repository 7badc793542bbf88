package shadow

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
)

// Offline verifies capture files on several goroutines with the same
// result, count for count, as one Checker reading them in order: one
// goroutine reads and decodes the files once, and hands each segment to
// the worker that owns its remote address (a Checker's state is per
// remote address, and each worker sees that address's segments in file
// order), so only the digests run in parallel. The addresses are spread
// evenly over the workers as they first show, so that a capture of a few
// sessions keeps every worker busy, whatever the addresses.
type Offline struct {
	Peers   []Peer
	Options Options
	// Workers is the number of verifying goroutines; ≤ 0: GOMAXPROCS.
	Workers int
	// SRH, when set, is shown every packet with a Segment Routing Header,
	// on the reading goroutine.
	SRH SRHFunc
	// IfNames names the interface indexes of Linux cooked v2 (SLL2)
	// headers, which carry no names: without it, their link-local
	// segments are attributed as those of a capture without interfaces.
	IfNames map[int]string
	// Local are addresses of ours: the end of a link-local segment that
	// is one is not the peer's (captures without a direction).
	Local []netip.Addr
}

// FileError is a capture file that could not be opened or read to its end.
type FileError struct {
	Name string
	Open bool // the file could not be opened (Err names it)
	Err  error
}

func (e *FileError) Error() string {
	if e.Open {
		return e.Err.Error()
	}
	return e.Name + ": " + e.Err.Error()
}

func (e *FileError) Unwrap() error { return e.Err }

// batchLen is how many segments go to a worker at a time (and batchBytes
// how many bytes at most): enough to make handing over cheap.
const (
	batchLen   = 512
	batchBytes = 512 << 10
)

// segRef is a segment in its batch: small (32 bytes), for the reading
// goroutine writes it and a worker, on another core, reads it (with the
// 104 bytes of a time.Time and two addresses inline, two cores took some
// 4% longer).
type segRef struct {
	off, n uint32 // the bytes, in the batch's buf (n ≤ MaxPacketLen)
	link   uint32
	// zoned, when ≥ 0, is the index in the batch's zoned of the src and
	// dst that replace the decoded addresses (link-local ones zoned with
	// their interface, see llZoner).
	zoned int32
	// The capture time, as time.Unix(sec, nsec).UTC() (which gives back
	// the Packet's Time, the zero time included).
	sec  int64
	nsec int64
}

type batch struct {
	buf   []byte
	segs  []segRef
	zoned [][2]netip.Addr
}

// Run verifies the files in order and returns each file's stats and the
// per-address reports (sorted by address, as Checker.Reports). A file
// that cannot be read stops the run with a *FileError.
func (o Offline) Run(names []string) ([]FileStats, []PeerReport, error) {
	n := o.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	router := New(o.Peers, o.Options)
	free := make(chan *batch, 4*n)
	work := make([]chan *batch, n)
	checkers := make([]*Checker, n)
	var wg sync.WaitGroup
	for i := range work {
		work[i] = make(chan *batch, 2)
		checkers[i] = New(o.Peers, o.Options)
		wg.Go(func() { verifyBatches(checkers[i], work[i], free) })
	}
	for range cap(free) {
		free <- &batch{buf: make([]byte, 0, batchBytes), segs: make([]segRef, 0, batchLen)}
	}
	r := reader{o: &o, router: router, work: work, free: free, cur: make([]*batch, n),
		owner: map[netip.Addr]int{}, addrs: make([]int, n), load: make([]int, n), ll: newLLZoner(router, o.IfNames, o.Local)}
	stats, err := r.files(names)
	for i, b := range r.cur {
		if b != nil && len(b.segs) > 0 {
			work[i] <- b
		}
	}
	for _, w := range work {
		close(w)
	}
	wg.Wait()
	if err != nil {
		return stats, nil, err
	}
	var reps []PeerReport
	for _, c := range checkers {
		reps = append(reps, c.Reports(time.Time{})...)
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i].Address.Less(reps[j].Address) })
	return stats, reps, nil
}

// verifyBatches checks every segment of the batches it is given, holding
// the checker's lock once per batch (as the live path does per ring block).
func verifyBatches(c *Checker, in <-chan *batch, free chan<- *batch) {
	var tcp frame.TCP
	for b := range in {
		c.Begin()
		for _, s := range b.segs {
			if frame.DecodeTCP(s.link, b.buf[s.off:s.off+s.n], &tcp) == nil {
				if s.zoned >= 0 {
					z := &b.zoned[s.zoned]
					tcp.Src, tcp.Dst = z[0], z[1]
				}
				c.CheckHeld(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, time.Unix(s.sec, s.nsec).UTC())
			}
		}
		c.End()
		b.buf, b.segs, b.zoned = b.buf[:0], b.segs[:0], b.zoned[:0]
		free <- b
	}
}

// reader is the reading goroutine's state.
type reader struct {
	o      *Offline
	router *Checker // attribution only
	work   []chan *batch
	free   chan *batch
	cur    []*batch // the batch being filled, per worker
	tcp    frame.TCP
	ll     *llZoner
	// owner is the worker of each remote address seen; addrs counts
	// each worker's addresses, load the work given to it so far
	// (segments' bytes plus segCost each).
	owner map[netip.Addr]int
	addrs []int
	load  []int
	// The ends and ports of the last two connections' directions, and
	// their workers (-1: not a configured peer's): segments come in runs
	// of one connection, both ways.
	last     [2]connEnds
	lastW    [2]int
	lastSeen [2]bool
	lastNext int // the entry to replace
}

// connEnds are a segment's addresses and ports.
type connEnds struct {
	src, dst         netip.Addr
	srcPort, dstPort uint16
}

// same is e == *o, the ports first (cheap and most telling): the
// generated == compares the whole struct with memequal.
func (e *connEnds) same(o *connEnds) bool {
	return e.srcPort == o.srcPort && e.dstPort == o.dstPort && e.src == o.src && e.dst == o.dst
}

// segCost is the work of a segment besides its bytes, in bytes: about
// what a digest's fixed cost and the checker's path take, as long as
// hashing that many bytes does.
const segCost = 256

func (r *reader) files(names []string) ([]FileStats, error) {
	stats := make([]FileStats, 0, len(names))
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return stats, &FileError{Name: name, Open: true, Err: err}
		}
		var st FileStats
		err = r.file(f, &st)
		f.Close()
		if err != nil {
			if st.Packets > 0 {
				err = fmt.Errorf("shadow: after %d packets: %w", st.Packets, err)
			}
			return stats, &FileError{Name: name, Err: err}
		}
		stats = append(stats, st)
	}
	return stats, nil
}

// file reads the packets of f, each handed to packet by reference (a
// Packet is a hundred bytes: capfile.Each's copies show).
func (r *reader) file(f *os.File, st *FileStats) error {
	cr, err := capfile.NewReader(f)
	if err != nil {
		return err
	}
	var p capfile.Packet
	for {
		if p, err = cr.Next(); err != nil {
			break
		}
		r.packet(&p, st)
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// packet counts p as ReadCapture does and hands a BGP segment of a
// configured peer to the worker of its remote address.
func (r *reader) packet(p *capfile.Packet, st *FileStats) {
	st.Packets++
	tcp := &r.tcp
	derr := frame.DecodeTCP(p.LinkType, p.Data, tcp)
	if r.o.SRH != nil && tcp.SRH != nil && (derr == nil || errors.Is(derr, frame.ErrNotTCP)) {
		r.o.SRH(tcp, p.Data)
	}
	if derr != nil {
		st.Undecoded++
		return
	}
	st.TCP++
	zoned := r.ll.zone(p, tcp, st)
	w := r.worker(connEnds{tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort})
	if w < 0 {
		return
	}
	st.Checked++
	r.load[w] += len(p.Data) + segCost
	b := r.cur[w]
	if b == nil {
		b = <-r.free
		r.cur[w] = b
	}
	off := len(b.buf)
	b.buf = append(b.buf, p.Data...)
	ref := segRef{off: uint32(off), n: uint32(len(p.Data)), link: p.LinkType, zoned: -1,
		sec: p.Time.Unix(), nsec: int64(p.Time.Nanosecond())}
	if zoned {
		ref.zoned = int32(len(b.zoned))
		b.zoned = append(b.zoned, [2]netip.Addr{tcp.Src, tcp.Dst})
	}
	b.segs = append(b.segs, ref)
	if len(b.segs) == batchLen || len(b.buf) > batchBytes-capfile.MaxPacketLen {
		r.work[w] <- b
		r.cur[w] = nil
	}
}

// worker is the worker that owns the remote address of a segment between
// e's ends, or -1 when it is not a BGP segment of a configured peer. An
// address seen first goes to the worker with the fewest addresses, of
// those the least loaded: what an address will carry is not known when it
// first shows (a capture's first seconds are its handshakes), so the
// addresses are spread evenly, which a hash does only on average (four
// sessions on two workers: all on one in one run of eight).
func (r *reader) worker(e connEnds) int {
	for i := range r.last {
		if r.lastSeen[i] && e.same(&r.last[i]) {
			return r.lastW[i]
		}
	}
	w := -1
	if remote, ok := r.router.Remote(e.src, e.dst, e.srcPort, e.dstPort); ok {
		var seen bool
		if w, seen = r.owner[remote]; !seen {
			w = 0
			for i := range r.addrs {
				if r.addrs[i] < r.addrs[w] || r.addrs[i] == r.addrs[w] && r.load[i] < r.load[w] {
					w = i
				}
			}
			r.owner[remote] = w
			r.addrs[w]++
		}
	}
	i := r.lastNext
	r.last[i], r.lastW[i], r.lastSeen[i] = e, w, true
	r.lastNext = 1 - i
	return w
}
