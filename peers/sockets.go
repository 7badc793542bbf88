package peers

import (
	"errors"
	"net/netip"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Sockets puts keys on the process's BGP sockets and reads back what the
// kernel holds. tcpsock.ProcessSockets is the real one (it finds GoBGP's
// sockets, holds the address-family rules and the multipath check); tests
// substitute fakes that fail on purpose.
type Sockets interface {
	// SetListenerKey installs k on every listener on port that can receive
	// connections from k's address family. It reports how many listeners
	// it keyed; an error for any of them is an error.
	SetListenerKey(port uint16, k md5auth.Key) (int, error)
	// DeleteListenerKey removes k's scope from every listener on port; a
	// key that is not there is not an error.
	DeleteListenerKey(port uint16, k md5auth.Key) error
	// SetConnKey re-keys the established connection (local, remote) in place.
	SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error
	// Observe reports this process's BGP sockets on port (listeners on
	// it, connections to or from it) with the keys the kernel holds.
	Observe(port uint16) (Observed, error)
	// Preflight reports what stops TCP-MD5 from working at all (FIPS,
	// no kernel support).
	Preflight() error
}

// GuardSockets puts link-local guards on the listeners
// (tcpsock.ProcessSockets; see tcpsock.Guard). A Sockets without it cannot
// run two interface peers whose far ends share an address: the ones that do
// not own the listeners' key are held down.
type GuardSockets interface {
	SetListenerGuards(port uint16, guards []tcpsock.Guard) error
}

// AOSockets puts TCP-AO keys on the process's BGP sockets and reads them
// back (tcpsock.ProcessSockets). A Sockets without it cannot run TCP-AO
// peers: they are held down.
type AOSockets interface {
	SetListenerAO(port uint16, set tcpsock.AOSet) (int, error)
	DeleteListenerAO(port uint16, p netip.Prefix) error
	SetConnAO(local, remote netip.AddrPort, set tcpsock.AOSet) error
	ObserveAO(port uint16) ([]tcpsock.AOSocket, error)
	// PreflightAO reports what stops TCP-AO from working at all (a
	// kernel without CONFIG_TCP_AO).
	PreflightAO() error
}

// errNoAOSockets is the AO preflight verdict of a Sockets without AOSockets.
var errNoAOSockets = errors.New("the socket layer cannot put TCP-AO keys on sockets")

// Observed is what the kernel says about this process's BGP sockets.
type Observed = tcpsock.Observed

// defaultSockets keys the real sockets of this process.
func defaultSockets() Sockets { return tcpsock.ProcessSockets{} }
