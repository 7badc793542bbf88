//go:build linux

package tcpsock

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// L3 (VRF) scopes of keys. A TCP-MD5 key with TCP_MD5SIG_FLAG_IFINDEX and a
// TCP-AO key with TCP_AO_KEYF_IFINDEX apply only to segments whose l3index
// (the VRF the segment came in through) is the key's ifindex; an unscoped
// key applies in every VRF, and a scoped key wins over an unscoped one for
// the same peer. The kernel takes only the ifindex of an L3 master (VRF)
// device of the socket's network namespace, and refuses anything else with
// EINVAL, before anything is installed: a key that cannot be scoped is never
// installed, scoped or unscoped, by the kernel or by tcpsock (no retry
// without the ifindex).

// scopeError says why the kernel refused ifindex as a key's L3 scope on
// socket fd (err: its errno). It asks the socket's own namespace
// (SIOCGIFNAME and SIOCGIFFLAGS on fd act in the socket's namespace,
// whichever thread calls them). mech is "TCP-MD5" or "TCP-AO"; del tells a
// delete from an add.
func scopeError(fd, ifindex int, mech string, del bool, err error) error {
	ifr, ierr := unix.NewIfreq("")
	if ierr != nil {
		return fmt.Errorf("%w: ifindex %d: %w", ErrScope, ifindex, err)
	}
	ifr.SetUint32(uint32(ifindex))
	if ierr := unix.IoctlIfreq(fd, unix.SIOCGIFNAME, ifr); ierr != nil {
		if errors.Is(ierr, unix.ENODEV) {
			if del {
				// tcp_v4/v6_parse_md5_keys look the device up for a
				// delete too (TCP_AO_DEL_KEY does not).
				return fmt.Errorf("%w: no device has ifindex %d in the socket's network namespace (the VRF is gone); the kernel cannot delete a %s key scoped to a device that is gone: it stays on the socket, matching no segment, until the socket closes: %w",
					ErrScope, ifindex, mech, err)
			}
			return fmt.Errorf("%w: no device has ifindex %d in the socket's network namespace (the VRF is gone?): %w", ErrScope, ifindex, err)
		}
		return fmt.Errorf("%w: ifindex %d (its name cannot be read: %v): %w", ErrScope, ifindex, ierr, err)
	}
	name := ifr.Name()
	fl, ferr := unix.NewIfreq(name)
	if ferr == nil {
		ferr = unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, fl)
	}
	if ferr == nil && fl.Uint16()&unix.IFF_MASTER == 0 {
		return fmt.Errorf("%w: ifindex %d is %s, which is not a VRF (L3 master) device: %w", ErrScope, ifindex, name, err)
	}
	if mech == "TCP-AO" {
		return fmt.Errorf("%w: ifindex %d (%s) was refused: not a VRF, or a connection not bound to that VRF (an established connection takes only keys scoped to the VRF it is bound to): %w", ErrScope, ifindex, name, err)
	}
	return fmt.Errorf("%w: ifindex %d (%s) was refused (not a VRF device?): %w", ErrScope, ifindex, name, err)
}
