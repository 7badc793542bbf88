//go:build linux

package tcpsock

import (
	"errors"
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
)

// Scan looks at this process's sockets on port once: one sock_diag dump
// (its result is Observe's) and one walk of /proc/self/fd. The key
// operations of the returned Scan act on that look (see Scan). A failed
// dump is Observe's error; the operations still work from the walk.
func (ProcessSockets) Scan(port uint16) *Scan { return scanPort(port, false) }

// ScanLight is Scan with a lighter dump: listeners and connections, but a
// connection whose report does not fit a dump datagram (more than ~300
// keys) is missed, which Scan finds. A reconciliation pass after session
// events looks this way; the timer's full passes look with Scan.
func (ProcessSockets) ScanLight(port uint16) *Scan { return scanPort(port, true) }

func scanPort(port uint16, light bool) *Scan {
	s := &Scan{port: port, byInode: map[uint64]bool{}, fds: map[uint64]int{}}
	socks, visible, err := dumpSocketKeys(port, light)
	s.dumps++
	listed := make(map[uint64]int, len(socks)) // inode -> socks
	for i, k := range socks {
		listed[k.Inode] = i
	}
	s.refs = make([]sockRef, 0, len(socks))
	werr := s.walk(func(fd int, ino uint64) {
		if i, ok := listed[ino]; ok {
			k := &socks[i]
			s.add(sockRef{fd: fd, inode: ino, local: k.Local, remote: k.Remote, listening: k.Listening})
			return
		}
		s.unknown = append(s.unknown, fdRef{fd: fd, inode: ino})
	})
	s.walkErr = werr // the operations fail (walking again first) while it stands
	switch {
	case err != nil:
		s.err = err
		wipeSocketKeys(socks)
	case werr != nil:
		s.err = werr
		wipeSocketKeys(socks)
	default:
		own := make(map[uint64]bool, len(s.fds))
		for ino := range s.fds {
			own[ino] = true
		}
		s.obs = Observed{KeysVisible: visible, Sockets: ownOnly(socks, own)}
	}
	return s
}

func wipeSocketKeys(socks []SocketKeys) {
	for _, k := range socks {
		for _, o := range k.Keys {
			o.Secret.Wipe()
		}
	}
}

// walk is the Scan's walk of /proc/self/fd: fn gets every socket
// descriptor whose inode the Scan has not seen yet (one per inode).
func (s *Scan) walk(fn func(fd int, ino uint64)) error {
	s.walks++
	return socketFds(func(fd int, ino uint64) bool {
		if _, ok := s.fds[ino]; !ok {
			s.fds[ino] = fd
			fn(fd, ino)
		}
		return true
	})
}

// relevant reports whether a socket at local/remote is on the Scan's
// port: a listener or bound socket on it, a connection to or from it.
func (s *Scan) relevant(local, remote netip.AddrPort, listening bool) bool {
	return local.Port() == s.port || (!listening && remote.IsValid() && remote.Port() == s.port)
}

func (s *Scan) add(r sockRef) {
	r.local, r.remote = normAddrPort(r.local), normAddrPort(r.remote)
	if !s.byInode[r.inode] && s.relevant(r.local, r.remote, r.listening) {
		s.byInode[r.inode] = true
		s.refs = append(s.refs, r)
	}
}

// identifyAll identifies the descriptors the dump did not list (once per
// Scan): a listener of another network namespace, or a multipath TCP one,
// is on the port too.
func (s *Scan) identifyAll() {
	for _, u := range s.unknown {
		if so := identify(u.fd); so != nil {
			s.add(sockRef{fd: u.fd, inode: so.Inode, local: so.Local, remote: so.Remote, listening: so.Listening})
			_ = so.Close()
		}
	}
	s.unknown = nil
}

// rewalk walks /proc/self/fd again and identifies every socket that is
// none of the look's: those that appeared since, and those it saw before
// on no port of its own, which may have connected since (GoBGP's dial has
// its socket, keyed by the dial hook, before it connects).
func (s *Scan) rewalk() error {
	s.walks++
	s.walkErr = socketFds(func(fd int, ino uint64) bool {
		if s.byInode[ino] {
			return true
		}
		s.fds[ino] = fd
		if so := identify(fd); so != nil {
			s.add(sockRef{fd: fd, inode: so.Inode, local: so.Local, remote: so.Remote, listening: so.Listening})
			_ = so.Close()
		}
		return true
	})
	return s.walkErr
}

// ready is nil once the Scan has walked /proc/self/fd: a look whose walk
// failed knows no socket, and finding no listener in it must not pass for
// keys installed on every listener (fail closed). It walks again first.
func (s *Scan) ready() error {
	if s.walkErr == nil {
		return nil
	}
	return s.rewalk()
}

// open duplicates r's descriptor and returns the socket if it still is
// r's (nil when closed, or its number now holds another socket).
func (s *Scan) open(r sockRef) *Socket {
	so := identify(r.fd)
	if so != nil && so.Inode != r.inode {
		_ = so.Close()
		return nil
	}
	return so
}

// listeners opens the listeners of the look on the port. A listener of
// the look that is gone (its descriptor closed, or its number reused)
// makes the look stale: the Scan walks again and opens what it finds then.
func (s *Scan) listeners() ([]*Socket, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.identifyAll()
	for walked := false; ; walked = true {
		var out []*Socket
		var gone []uint64
		for _, r := range s.refs {
			if !r.listening || r.local.Port() != s.port {
				continue
			}
			if so := s.open(r); so != nil {
				out = append(out, so)
			} else {
				gone = append(gone, r.inode)
			}
		}
		if len(gone) == 0 || walked {
			return out, nil
		}
		closeAll(out)
		s.forget(gone)
		if err := s.rewalk(); err != nil {
			return nil, err
		}
	}
}

// forget drops the sockets of the look that are gone.
func (s *Scan) forget(inodes []uint64) {
	gone := make(map[uint64]bool, len(inodes))
	for _, ino := range inodes {
		gone[ino] = true
		delete(s.byInode, ino)
		delete(s.fds, ino)
	}
	keep := s.refs[:0]
	for _, r := range s.refs {
		if !gone[r.inode] {
			keep = append(keep, r)
		}
	}
	s.refs = keep
}

// conn opens the connection local->remote (unmapped, as FindConn): from
// the look, or, when the look does not have it (it came up since, or the
// look's is gone), from a walk for the sockets that appeared since.
func (s *Scan) conn(local, remote netip.AddrPort) (*Socket, error) {
	local, remote = normAddrPort(local), normAddrPort(remote)
	if err := s.ready(); err != nil {
		return nil, err
	}
	for walked := false; ; walked = true {
		var gone []uint64
		for _, r := range s.refs {
			if r.listening || r.local != local || r.remote != remote {
				continue
			}
			so := s.open(r)
			if so != nil && !so.Listening && so.Local == local && so.Remote == remote {
				s.forget(gone)
				return so, nil
			}
			if so != nil {
				_ = so.Close()
			}
			gone = append(gone, r.inode)
		}
		if walked || s.connWalked {
			// One walk per look for connections it lacks: the walk finds
			// every connection there is then, and one that came up since
			// is the next pass's (after a key change, a walk per session
			// the peer had just closed cost 100 walks of 2,000
			// descriptors: half a second of CPU).
			s.forget(gone)
			return nil, &NotFoundError{Local: local, Remote: remote}
		}
		s.forget(gone)
		s.connWalked = true
		if err := s.rewalk(); err != nil {
			return nil, err
		}
	}
}

// eachOf runs op on every socket of socks the address family rule picks
// (must carry, may try) and closes them all. It returns how many sockets
// that must carry the key op succeeded on, and the errors of those (a
// failure where the key was only tried does not count).
func eachOf(socks []*Socket, rule func(fam int) (must, try bool), op func(s *Socket, must bool) error) (int, error) {
	defer closeAll(socks)
	n := 0
	var errs []error
	for _, s := range socks {
		must, try := rule(s.Family)
		if !try {
			continue
		}
		switch err := op(s, must); {
		case err != nil && must:
			errs = append(errs, err)
		case err == nil && must:
			n++
		}
	}
	return n, errors.Join(errs...)
}

// SetListenerKey installs k on every listener of the look that can
// receive connections from k's address family (see applies). It returns
// how many listeners had to carry k and do (a dual-stack AF_INET6 listener
// given an IPv4 key is not counted). An error for any listener that must
// carry k is an error: a *MultipathError for a multipath TCP listener
// (checked before any key goes on it, see CheckListener), or the
// *KeyError of the kernel's refusal. Finding no listener is not an error:
// it returns 0.
func (s *Scan) SetListenerKey(k md5auth.Key) (int, error) {
	socks, err := s.listeners()
	if err != nil {
		return 0, err
	}
	return eachOf(socks, func(fam int) (bool, bool) { return applies(fam, k) }, setListenerKeyOp(k))
}

// DeleteListenerKey removes k's scope from every listener of the look
// that SetListenerKey would have keyed. A key that is not there is not an
// error, nor is a failure on a listener that only tried k.
func (s *Scan) DeleteListenerKey(k md5auth.Key) error {
	socks, err := s.listeners()
	if err != nil {
		return err
	}
	_, err = eachOf(socks, func(fam int) (bool, bool) { return applies(fam, k) }, deleteListenerKeyOp(k))
	return err
}

// SetConnKey re-keys the established connection local->remote in place
// (see Socket.SetKey): the look's, or a new walk's when it came up since.
// Addresses are compared unmapped (as FindConn). A connection that is not
// found is an error matching ErrSocketNotFound.
func (s *Scan) SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error {
	so, err := s.conn(local, remote)
	if err != nil {
		return &contextError{what: "re-key session " + local.String() + "-" + remote.String(), err: err}
	}
	defer so.Close()
	return so.SetKey(k)
}

// SetListenerAO makes every listener of the look that can receive
// connections from set's address family hold exactly set.Keys for
// set.Prefix: missing MKTs are added, changed ones replaced, and MKTs of
// that scope no longer wanted deleted. It returns how many listeners had to
// carry them and do. An error for any listener that must carry them is an
// error (a listener without TCP-AO support, a scope that has TCP-MD5 keys,
// no memory); finding no listener is not. The kernel then drops a SYN from
// the scope that carries no TCP-AO option (TCPAORequired), or one signed
// with an unknown KeyID.
//
// The scope is (set.Prefix, set.L3Index()): a set scoped to a VRF touches
// only the MKTs of that VRF, an unscoped set only the unscoped ones. A
// scope the kernel refuses (ErrScope) fails; nothing is installed unscoped
// in its place.
func (s *Scan) SetListenerAO(set AOSet) (int, error) {
	set, err := set.scoped()
	if err != nil {
		return 0, err
	}
	socks, err := s.listeners()
	if err != nil {
		return 0, err
	}
	return eachOf(socks, func(fam int) (bool, bool) { return aoApplies(fam, set.Prefix) },
		func(so *Socket, _ bool) error { return syncMKTs(so, set) })
}

// DeleteListenerAO removes every MKT of p from the listeners of the look,
// in every L3 scope: unscoped and scoped to any VRF (a peer that is gone,
// or moved to another VRF, leaves none behind). DeleteListenerAOScope
// removes one scope's only.
func (s *Scan) DeleteListenerAO(p netip.Prefix) error {
	socks, err := s.listeners()
	if err != nil {
		return err
	}
	_, err = eachOf(socks, func(fam int) (bool, bool) { return aoApplies(fam, p) }, deleteAllScopesOp(p))
	return err
}

// DeleteListenerAOScope removes every MKT of the scope (p, ifindex) from
// the listeners of the look: p's MKTs scoped to the VRF with that ifindex
// (0: the unscoped ones), and none of another scope. It works after the
// VRF is gone (TCP_AO_DEL_KEY does not look the device up).
func (s *Scan) DeleteListenerAOScope(p netip.Prefix, ifindex int) error {
	socks, err := s.listeners()
	if err != nil {
		return err
	}
	_, err = eachOf(socks, func(fam int) (bool, bool) { return aoApplies(fam, p) },
		func(so *Socket, _ bool) error {
			return syncMKTs(so, AOSet{Prefix: p, IfIndex: ifindex, Current: -1, RNext: -1})
		})
	return err
}

// SetConnAO brings the established connection local->remote (the look's,
// or a new walk's when it came up since) in line with set: missing MKTs
// added (a new key of the chain), the current key and RNextKeyID set (the
// peer then switches to RNext; our current key follows what the peer asks
// for), segments without TCP-AO refused, and MKTs no longer wanted deleted
// when the kernel lets go of them (a key in use is kept until the switch
// is done).
func (s *Scan) SetConnAO(local, remote netip.AddrPort, set AOSet) error {
	set, err := set.scoped()
	if err != nil {
		return err
	}
	so, err := s.conn(local, remote)
	if err != nil {
		return &contextError{what: "set TCP-AO keys of session " + local.String() + "-" + remote.String(), err: err}
	}
	defer so.Close()
	return setConnAO(so, set)
}

// SetListenerGuards puts the link-local guards on every IPv6 listener of
// the look (the IPv4 ones never see a link-local peer); no listener at all
// is a *NotFoundError (nothing is guarded).
func (s *Scan) SetListenerGuards(guards []Guard) error {
	socks, err := s.listeners()
	if err != nil {
		return err
	}
	if len(socks) == 0 {
		return &NotFoundError{Listener: true, Port: s.port}
	}
	_, err = eachOf(socks, func(fam int) (bool, bool) { return fam == unix.AF_INET6, fam == unix.AF_INET6 },
		func(so *Socket, _ bool) error { return so.SetGuards(guards) })
	return err
}

// ObserveAO reports the sockets of the look (listeners on the port and
// connections to or from it) that hold TCP-AO keys, with their keys and
// state. Wipe the result's secrets (WipeAO) when done.
func (s *Scan) ObserveAO() ([]AOSocket, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.identifyAll()
	var socks []*Socket
	for _, r := range s.refs {
		if so := s.open(r); so != nil {
			socks = append(socks, so)
		}
	}
	return observeAO(socks)
}
