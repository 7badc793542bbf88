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
// result, count for count, as one Checker reading them in order. A
// Checker's state is per remote address, so each worker owns some of the
// addresses and verifies their segments, in file order. Every worker reads
// and decodes the files itself and skips the segments it does not own:
// nothing is handed from one goroutine to another (handing every segment's
// bytes to a worker on the other core slowed the reading goroutine about
// twofold, docs/PERFORMANCE-shadow.md "On both cores"). The workers agree
// on the owners without talking: each computes them from the same file
// order (see assigner). The addresses are spread evenly over the workers
// as they first show, so that a capture of a few sessions keeps every
// worker busy, whatever the addresses.
type Offline struct {
	Peers   []Peer
	Options Options
	// Workers is the number of verifying goroutines; ≤ 0: GOMAXPROCS. A
	// file that is not a regular file (a pipe) is read once, so by one
	// worker.
	Workers int
	// SRH, when set, is shown every packet with a Segment Routing Header,
	// in file order, on one goroutine.
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

// ownBatch is how many of its own segments a worker checks under one hold
// of its checker's lock, as the live path does per ring block (the
// callbacks due run when it is released).
const ownBatch = 512

// Run verifies the files in order and returns each file's stats and the
// per-address reports (sorted by address, as Checker.Reports). A file
// that cannot be read stops the run with a *FileError.
func (o Offline) Run(names []string) ([]FileStats, []PeerReport, error) {
	n := o.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	files, openErr := openFiles(names)
	defer func() {
		for _, f := range files {
			f.f.Close()
		}
	}()
	for _, f := range files {
		if f.size < 0 {
			n = 1 // a pipe can be read once
		}
	}
	ws := make([]*offWorker, n)
	var wg sync.WaitGroup
	for i := range ws {
		ws[i] = newOffWorker(&o, i, n)
		wg.Go(func() { ws[i].files(files) })
	}
	wg.Wait()
	// Every worker read the same bytes, so met the same end; one whose
	// read failed where the others' did not still says the run failed.
	stats, err := ws[0].stats, ws[0].err
	for _, w := range ws[1:] {
		if err == nil && w.err != nil {
			stats, err = w.stats, w.err
		}
	}
	if err == nil {
		err = openErr
	}
	if err != nil {
		return stats, nil, err
	}
	var reps []PeerReport
	for _, w := range ws {
		reps = append(reps, w.c.Reports(time.Time{})...)
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i].Address.Less(reps[j].Address) })
	return stats, reps, nil
}

// offFile is a capture file opened once for every worker.
type offFile struct {
	name string
	f    *os.File
	size int64 // -1: not a regular file (read by one worker, to its end)
}

// reader is a reader of the file of its own: a regular file is read to
// the length it had when opened, so that every worker reads the same
// bytes even of a capture still being written.
func (f *offFile) reader() io.Reader {
	if f.size < 0 {
		return f.f
	}
	return io.NewSectionReader(f.f, 0, f.size)
}

// openFiles opens the files in order, up to the first that cannot be:
// that one's *FileError is returned, to be reported once the files
// before it are read (as if each were opened when its turn came).
func openFiles(names []string) ([]offFile, error) {
	files := make([]offFile, 0, len(names))
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return files, &FileError{Name: name, Open: true, Err: err}
		}
		size := int64(-1)
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		files = append(files, offFile{name: name, f: f, size: size})
	}
	return files, nil
}

// offWorker is one worker's state: it reads every file and verifies the
// segments of the remote addresses it owns.
type offWorker struct {
	me    int
	c     *Checker // verifies the worker's own segments
	held  int      // own segments checked since c.Begin (0: not held)
	srh   SRHFunc  // worker 0's only: every packet is shown once
	tcp   frame.TCP
	ll    *llZoner
	as    assigner
	stats []FileStats
	err   error // a *FileError
}

func newOffWorker(o *Offline, me, n int) *offWorker {
	router := New(o.Peers, o.Options) // attribution only
	w := &offWorker{me: me, c: New(o.Peers, o.Options), ll: newLLZoner(router, o.IfNames, o.Local),
		as: assigner{router: router, owner: map[netip.Addr]int{}, addrs: make([]int, n), load: make([]int, n)}}
	if me == 0 {
		w.srh = o.SRH
	}
	return w
}

// files reads the files in order, up to the first that cannot be read to
// its end.
func (w *offWorker) files(files []offFile) {
	defer func() {
		if w.held > 0 {
			w.c.End()
			w.held = 0
		}
	}()
	for i := range files {
		var st FileStats
		if err := w.file(files[i].reader(), &st); err != nil {
			if st.Packets > 0 {
				err = fmt.Errorf("shadow: after %d packets: %w", st.Packets, err)
			}
			w.err = &FileError{Name: files[i].name, Err: err}
			return
		}
		w.stats = append(w.stats, st)
	}
}

// file reads the packets of r, each read into one Packet and handed to
// packet by reference (a Packet is a hundred bytes: capfile.Each's and
// Next's copies show, each worker reading every packet).
func (w *offWorker) file(r io.Reader, st *FileStats) error {
	cr, err := capfile.NewReader(r)
	if err != nil {
		return err
	}
	var p capfile.Packet
	for {
		if err = cr.NextInto(&p); err != nil {
			break
		}
		w.packet(&p, st)
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// packet counts p as ReadCapture does and verifies it when it is a BGP
// segment of a configured peer whose remote address the worker owns.
func (w *offWorker) packet(p *capfile.Packet, st *FileStats) {
	st.Packets++
	tcp := &w.tcp
	derr := frame.DecodeTCP(p.LinkType, p.Data, tcp)
	if w.srh != nil && tcp.SRH != nil && (derr == nil || errors.Is(derr, frame.ErrNotTCP)) {
		w.srh(tcp, p.Data)
	}
	if derr != nil {
		st.Undecoded++
		return
	}
	st.TCP++
	w.ll.zone(p, tcp, st)
	owner := w.as.worker(connEnds{tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort})
	if owner < 0 {
		return
	}
	st.Checked++
	w.as.load[owner] += len(p.Data) + segCost
	if owner != w.me {
		return
	}
	if w.held == 0 {
		w.c.Begin()
	}
	w.c.CheckHeld(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, p.Time)
	if w.held++; w.held == ownBatch {
		w.c.End()
		w.held = 0
	}
}

// assigner gives each remote address its worker. Every worker runs one,
// on the same segments in the same order, so all of them give every
// address the same worker without a word between them.
type assigner struct {
	router *Checker // attribution only
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

// worker is the worker that owns the remote address of a segment between
// e's ends, or -1 when it is not a BGP segment of a configured peer. An
// address seen first goes to the worker with the fewest addresses, of
// those the least loaded (of those the first): what an address will carry
// is not known when it first shows (a capture's first seconds are its
// handshakes), so the addresses are spread evenly, which a hash does only
// on average (four sessions on two workers: all on one in one run of
// eight). All of it follows from the segments before, in file order.
func (a *assigner) worker(e connEnds) int {
	for i := range a.last {
		if a.lastSeen[i] && e.same(&a.last[i]) {
			return a.lastW[i]
		}
	}
	w := -1
	if remote, ok := a.router.Remote(e.src, e.dst, e.srcPort, e.dstPort); ok {
		var seen bool
		if w, seen = a.owner[remote]; !seen {
			w = 0
			for i := range a.addrs {
				if a.addrs[i] < a.addrs[w] || a.addrs[i] == a.addrs[w] && a.load[i] < a.load[w] {
					w = i
				}
			}
			a.owner[remote] = w
			a.addrs[w]++
		}
	}
	i := a.lastNext
	a.last[i], a.lastW[i], a.lastSeen[i] = e, w, true
	a.lastNext = 1 - i
	return w
}
