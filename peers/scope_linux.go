package peers

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/ndp"
	"github.com/authbgp/authbgpd/netdev"
)

// kernelScopes is the kernel's view: the neighbor table (ndp.Resolve) and
// the links (netdev).
type kernelScopes struct{}

func defaultScopes() ScopeObserver { return kernelScopes{} }

func (kernelScopes) Link(ifname string) Link {
	var l Link
	name, idx, err := netdev.MasterVRF(ifname)
	if err != nil {
		if errors.Is(err, netdev.ErrNoDevice) {
			l.Err = fmt.Errorf("interface %s: %w: %w", ifname, ErrNoDevice, err)
			return l
		}
		l.MasterErr = err
		return l
	}
	l.VRF, l.VRFIndex = name, idx
	if l.IfIndex, err = netdev.IfIndex(ifname); err != nil {
		l.MasterErr = err
		return l
	}
	l.Peer, l.Err = ndp.Resolve(ifname)
	return l
}

func (kernelScopes) VRF(name string) VRF {
	idx, err := netdev.VRFIndex(name)
	if errors.Is(err, netdev.ErrNoDevice) {
		err = fmt.Errorf("%w: %w", ErrNoDevice, err)
	}
	return VRF{Index: idx, Err: err}
}

// l3mdevAccept is the sysctl that lets the default VRF's listeners accept
// connections arriving in a VRF (TCP, IPv4 and IPv6 alike). With it on, a
// listener bound to a VRF device cannot take the port the default VRF's
// listener has (the kernel's bind conflict rule), so a VRF's GoBGP
// instance could not listen.
const l3mdevAccept = "/proc/sys/net/ipv4/tcp_l3mdev_accept"

// observeL3mdev reads tcp_l3mdev_accept when VRF peers are configured and
// GoBGP listens (port not 0; no lock held): each VRF's GoBGP instance
// listens bound to its VRF device, which needs it off. The router's
// network namespace is the daemon's to run.
func observeL3mdev(vrfs map[string]VRF, port uint16) l3mdevView {
	if len(vrfs) == 0 || port == 0 {
		return l3mdevView{}
	}
	b, err := os.ReadFile(l3mdevAccept)
	if err != nil {
		return l3mdevView{err: err}
	}
	return l3mdevView{on: strings.TrimSpace(string(b)) != "0"}
}

// setL3mdevAccept turns tcp_l3mdev_accept off (actL3mdevAccept).
func setL3mdevAccept() error { return os.WriteFile(l3mdevAccept, []byte("0\n"), 0o644) }

// KernelAdvertiser is the Advertiser of the daemon: an ndp.Advertiser,
// opened when an interface peer first wants one (its raw socket needs
// CAP_NET_RAW, which a router without interface peers need not have).
type KernelAdvertiser struct {
	log    *logrus.Logger
	mu     sync.Mutex
	a      *ndp.Advertiser
	failed string // the last open error, logged once
}

// NewKernelAdvertiser returns an Advertiser that sends through ndp.
func NewKernelAdvertiser(log *logrus.Logger) *KernelAdvertiser { return &KernelAdvertiser{log: log} }

// Set implements Advertiser.
func (k *KernelAdvertiser) Set(ifnames []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.a == nil {
		if len(ifnames) == 0 {
			return
		}
		a, err := ndp.NewAdvertiser(ndp.Options{})
		if err != nil {
			if err.Error() != k.failed {
				k.log.WithError(err).Error("interface peers: cannot send router advertisements: their far ends may not learn our link-local address")
				k.failed = err.Error()
			}
			return
		}
		k.a, k.failed = a, ""
	}
	k.a.Set(ifnames)
}

// State is what the advertiser knows of each interface (nil before it
// was opened).
func (k *KernelAdvertiser) State() map[string]ndp.IfState {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.a == nil {
		return nil
	}
	return k.a.State()
}

// Close stops the advertiser.
func (k *KernelAdvertiser) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.a == nil {
		return nil
	}
	err := k.a.Close()
	k.a = nil
	return err
}
