package tcpsock

import (
	"net/netip"

	"github.com/authbgp/authbgpd/md5auth"
)

// Scan is one look at this process's BGP sockets on a port (listeners on
// it, connections to or from it), made by ProcessSockets.Scan (or Look): one
// sock_diag dump (the keys the kernel holds, see DumpSocketKeys) and one
// walk of /proc/self/fd (which descriptor holds which socket). The key
// operations on a Scan act on the sockets of that look instead of walking
// /proc/self/fd again each: a reconciliation pass installs a hundred keys
// with the walk it observed with. Only an operation that needs a socket
// the look does not have (a connection that came up since, a descriptor
// closed and its number reused) walks again, and the walk is counted
// (Walks).
//
// A Scan keeps no descriptor open between operations: it remembers each
// socket's descriptor number and inode, and every operation duplicates
// the descriptor and checks, on the duplicate, that it is still that
// socket before touching it (see Socket). So holding a Scan delays no
// close of GoBGP's, and a stale Scan never keys another socket.
//
// The address family rule (applies, aoApplies) and the multipath check
// (CheckListener) are the Scan's: every key operation on this process's
// sockets is one of its methods. A Scan is used by one goroutine at a
// time. On systems other than Linux every method returns ErrNotSupported.
type Scan struct {
	port uint16
	obs  Observed
	err  error // of the dump (or of the first walk)
	// walkErr: the last walk failed (the look knows no socket).
	walkErr error
	// refs are the sockets of the look that are on port, by inode;
	// unknown the descriptors whose socket the dump did not list (another
	// port, another network namespace, multipath TCP, not TCP at all),
	// identified when an operation first needs every socket.
	refs    []sockRef
	byInode map[uint64]bool
	fds     map[uint64]int
	unknown []fdRef
	walks   int
	dumps   int
	// connWalked: the look walked again for a connection it lacked
	// (conn), which it does once.
	connWalked bool
}

// sockRef is one socket of a Scan: where it was (descriptor number and
// inode) and what it was.
type sockRef struct {
	fd            int
	inode         uint64
	local, remote netip.AddrPort
	listening     bool
}

// Look is one look at this process's BGP sockets on a port and the key
// operations on the sockets of that look, TCP-MD5, TCP-AO and the
// listeners' link-local guards alike: what a reconciliation pass observes
// and acts through. ProcessSockets.Look makes one (a *Scan); test fakes
// make their own. The listener operations act on the look's port; the
// connection operations on a connection to or from it.
type Look interface {
	// Observe is the kernel's view of the sockets (see Scan.Observe).
	Observe() (Observed, error)
	// ObserveAO reads the TCP-AO keys and state of the sockets.
	ObserveAO() ([]AOSocket, error)
	SetListenerKey(k md5auth.Key) (int, error)
	DeleteListenerKey(k md5auth.Key) error
	SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error
	SetListenerAO(set AOSet) (int, error)
	DeleteListenerAO(p netip.Prefix) error
	SetConnAO(local, remote netip.AddrPort, set AOSet) error
	SetListenerGuards(guards []Guard) error
	// Walks and Dumps are what the look cost: walks of /proc/self/fd and
	// sock_diag dumps (zero for a fake).
	Walks() int
	Dumps() int
}

// Look looks at this process's sockets on port: with Scan when full,
// else with ScanLight.
func (p ProcessSockets) Look(port uint16, full bool) Look {
	if full {
		return p.Scan(port)
	}
	return p.ScanLight(port)
}

type fdRef struct {
	fd    int
	inode uint64
}

// Walks is how many times the Scan walked /proc/self/fd: 1, plus one for
// each operation that needed a socket the look did not have.
func (s *Scan) Walks() int { return s.walks }

// Dumps is how many sock_diag dumps the Scan made (1).
func (s *Scan) Dumps() int { return s.dumps }

// Observe is what the dump of the Scan found (the kernel's own view, see
// DumpSocketKeys): the sockets on the port with the keys the kernel
// holds, narrowed to this process's. The secrets belong to the caller (wipe them when done);
// a second call returns the same slices.
func (s *Scan) Observe() (Observed, error) { return s.obs, s.err }
