package peers

import (
	"net/netip"
	"syscall"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Sockets puts keys on the process's BGP sockets and reads back what the
// kernel holds, TCP-MD5 and TCP-AO alike. tcpsock.ProcessSockets is the
// real one (it finds GoBGP's sockets, holds the address-family rules and
// the multipath check); tests substitute fakes that fail on purpose. Both
// go the one way a pass does: one Look, and every key operation of the
// pass through it.
type Sockets interface {
	// Look looks at this process's BGP sockets on port once. A full
	// pass's look reads every socket (tcpsock.ProcessSockets.Scan); a light
	// one's lists the listeners without keys and the connections from
	// their keyed dump alone (ScanLight), which costs half as much in the
	// kernel at 1,000 sessions and misses only a connection carrying more
	// than ~300 keys (no connection of ours does), until the next full
	// pass.
	Look(port uint16, full bool) Look
	// Preflight reports what stops TCP-MD5 from working at all (FIPS,
	// no kernel support).
	Preflight() error
	// PreflightAO reports what stops TCP-AO from working at all (a
	// kernel without CONFIG_TCP_AO, a socket layer without it): TCP-AO
	// peers are then held down.
	PreflightAO() error
	// DialMD5 and DialAO key a socket that is about to dial; an error
	// refuses the dial.
	DialMD5(rc syscall.RawConn, remote netip.AddrPort, k md5auth.Key) error
	DialAO(rc syscall.RawConn, remote netip.AddrPort, set tcpsock.AOSet) error
	// ListenKeys keys a socket that is about to listen on local (before
	// bind and listen: listen.go) with every listener key; an error
	// aborts the listener.
	ListenKeys(rc syscall.RawConn, local netip.AddrPort, md5 []md5auth.Key, ao []tcpsock.AOSet) error
	// AOAlgorithms probes the running kernel's TCP-AO algorithms
	// (aoalgs.go); a probe that learnt nothing says why in its Err.
	AOAlgorithms() tcpsock.AOAlgorithms
}

// Look is one look at the sockets (tcpsock.Look, a *tcpsock.Scan for the
// real ones): its listener operations act on the listeners of the look's
// port. One without link-local guards fails SetListenerGuards: then two
// interface peers whose far ends share an address cannot both run, and
// the ones that do not own the listeners' key are held down.
type Look = tcpsock.Look

// Observed is what the kernel says about this process's BGP sockets.
type Observed = tcpsock.Observed

// defaultSockets keys the real sockets of this process.
func defaultSockets() Sockets { return tcpsock.ProcessSockets{} }
