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
// connections arriving in a VRF (TCP, IPv4 and IPv6 alike); the accepted
// socket is bound to the VRF.
const l3mdevAccept = "/proc/sys/net/ipv4/tcp_l3mdev_accept"

// scopeL3mdev turns tcp_l3mdev_accept on when VRF peers are configured
// (m.mu held): GoBGP's listeners are in the default VRF, and without it a
// VRF peer's SYN finds no listener (the session would come up only by our
// dial). The router's network namespace is the daemon's to run.
func (m *Manager) scopeL3mdev(vrfs map[string]VRF) {
	if len(vrfs) == 0 || m.port == 0 {
		return
	}
	b, err := os.ReadFile(l3mdevAccept)
	if err != nil {
		m.log.WithError(err).Warn("reconcile: cannot read net.ipv4.tcp_l3mdev_accept: VRF peers may not reach the listeners")
		return
	}
	if strings.TrimSpace(string(b)) != "0" {
		return
	}
	if err := os.WriteFile(l3mdevAccept, []byte("1\n"), 0o644); err != nil {
		m.log.WithError(err).Error("reconcile: VRF peers are configured, but net.ipv4.tcp_l3mdev_accept is 0 and cannot be set: their connections find no listener (only our dials come up)")
		return
	}
	if !m.l3mdevSet {
		m.log.Info("reconcile: VRF peers are configured: set net.ipv4.tcp_l3mdev_accept = 1 so the listeners accept their connections")
	}
	m.l3mdevSet = true
}

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
