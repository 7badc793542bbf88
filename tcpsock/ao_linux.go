//go:build linux

package tcpsock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrNoTCPAOKeys marks a socket without any TCP-AO key (ENOENT).
var ErrNoTCPAOKeys = errors.New("tcpsock: the socket has no TCP-AO keys")

func setsockoptBytes(fd, opt int, b []byte) error {
	_, _, e := unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, uintptr(opt),
		uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0)
	if e != 0 {
		return e
	}
	return nil
}

// getsockoptBytes reads option opt into b, telling the kernel optlen
// (TCP_AO_GET_KEYS takes the size of one struct and writes several).
func getsockoptBytes(fd, opt int, b []byte, optlen int) (int, error) {
	n := uint32(optlen)
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, uintptr(opt),
		uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// classifyAO adds meaning to a TCP-AO setsockopt errno.
func classifyAO(err error) error {
	switch {
	case errors.Is(err, unix.ENOPROTOOPT):
		return fmt.Errorf("%w: %w", ErrNoTCPAO, err)
	case errors.Is(err, unix.EKEYREJECTED):
		return fmt.Errorf("%w (the socket has TCP-MD5 keys for this peer: one mechanism per peer)", err)
	case errors.Is(err, unix.EEXIST):
		// tcp_ao_add_cmd: the KeyIDs overlap an MKT of an overlapping
		// scope. An unscoped MKT overlaps every VRF: a scoped MKT cannot
		// reuse its SendID or RecvID (the other way round the kernel
		// allows it).
		return fmt.Errorf("%w (an MKT for an overlapping scope already uses this SendID or RecvID; an unscoped MKT overlaps every VRF)", err)
	case errors.Is(err, unix.EBUSY):
		return fmt.Errorf("%w (the key is the current or RNext key of a connection)", err)
	case errors.Is(err, unix.ENOENT):
		return fmt.Errorf("%w: %w", ErrNoTCPAOKeys, err)
	case errors.Is(err, unix.ENOMEM):
		return fmt.Errorf("%w: %w", ErrKeyMemory, err)
	}
	return err
}

func (s *Socket) aoOp(what string, op func(fd int) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd < 0 {
		return fmt.Errorf("tcpsock: %s on %s: %w", what, s, ErrSocketClosed)
	}
	if err := op(s.fd); err != nil {
		return fmt.Errorf("tcpsock: %s on %s: %w", what, s, classifyAO(err))
	}
	return nil
}

// AddAOKey adds (or replaces) the MKT k on the socket; setCurrent makes it
// the key we send with, setRNext the one we ask the peer to send with.
func (s *Socket) AddAOKey(k AOKey, setCurrent, setRNext bool) error {
	if err := k.Validate(); err != nil {
		return err
	}
	var b [aoAddSize]byte
	defer clear(b[:])
	if err := encodeAOAdd(&b, s.Family, k, setCurrent, setRNext); err != nil {
		return fmt.Errorf("tcpsock: add %s on %s: %w", k, s, err)
	}
	return s.aoOp("add "+k.String(), func(fd int) error {
		err := setsockoptBytes(fd, tcpAOAddKey, b[:])
		if errors.Is(err, unix.EINVAL) && k.IfIndex != 0 {
			return scopeError(fd, k.IfIndex, "TCP-AO", false, err)
		}
		return err
	})
}

// DeleteAOKey removes the MKT with k's scope and KeyIDs from the socket.
func (s *Socket) DeleteAOKey(k AOKey) error {
	var b [aoDelSize]byte
	if err := encodeAODel(&b, s.Family, k); err != nil {
		return fmt.Errorf("tcpsock: delete %s on %s: %w", k, s, err)
	}
	return s.aoOp("delete "+k.String(), func(fd int) error { return setsockoptBytes(fd, tcpAODelKey, b[:]) })
}

// SetAOInfo sets the socket's current key (a SendID) and RNext (a
// RecvID) — negative leaves one as it is —, whether segments without
// TCP-AO are refused, and whether ICMP hard errors are acted on.
func (s *Socket) SetAOInfo(current, rnext int, required, acceptICMPs bool) error {
	var b [aoInfoSize]byte
	encodeAOInfoSet(&b, current, rnext, required, acceptICMPs)
	what := fmt.Sprintf("set TCP-AO current key %d, RNext %d, accept ICMPs %v", current, rnext, acceptICMPs)
	return s.aoOp(what, func(fd int) error { return setsockoptBytes(fd, tcpAOInfo, b[:]) })
}

// AOInfo reads the socket's TCP-AO state and counters. A socket without
// TCP-AO keys fails with ErrNoTCPAOKeys.
func (s *Socket) AOInfo() (AOInfo, error) {
	var b [aoInfoSize]byte
	err := s.aoOp("read TCP-AO info", func(fd int) error {
		_, err := getsockoptBytes(fd, tcpAOInfo, b[:], len(b))
		return err
	})
	if err != nil {
		return AOInfo{}, err
	}
	return decodeAOInfo(b[:]), nil
}

// AOKeys reads every MKT the socket holds (the secrets included: wipe
// them when done).
//
// The kernel says how many keys there are when the room given is too
// small; the read is then made again with room for them all (a listener
// holds every MKT of every peer), never cut short: a short list would look
// like missing keys to the reconciler.
func (s *Socket) AOKeys() ([]ObservedAOKey, error) {
	room := uint32(64)
	for {
		keys, n, err := s.aoKeys(room)
		if err != nil || n <= room {
			return keys, err
		}
		wipeObservedAO(keys)
		if n > maxAOKeysRead {
			return nil, fmt.Errorf("tcpsock: read TCP-AO keys on %s: %d keys, more than %d", s, n, maxAOKeysRead)
		}
		room = n
	}
}

// maxAOKeysRead bounds the MKTs read from one socket (each is 304 bytes of
// buffer).
const maxAOKeysRead = 1 << 16

// aoKeys reads up to room keys, and how many the socket has.
func (s *Socket) aoKeys(room uint32) ([]ObservedAOKey, uint32, error) {
	buf := make([]byte, aoGetSize*int(room))
	defer clear(buf)
	// The first struct is the request: get_all, nkeys = room.
	buf[276] = 4 // get_all
	binary.NativeEndian.PutUint32(buf[272:], room)
	var n uint32
	err := s.aoOp("read TCP-AO keys", func(fd int) error {
		_, err := getsockoptBytes(fd, tcpAOGetKeys, buf, aoGetSize)
		n = binary.NativeEndian.Uint32(buf[272:])
		return err
	})
	if errors.Is(err, ErrNoTCPAOKeys) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if n > room {
		return nil, n, nil
	}
	out := make([]ObservedAOKey, 0, n)
	for i := 0; i < int(n); i++ {
		k, err := decodeAOGet(buf[i*aoGetSize : (i+1)*aoGetSize])
		if err != nil {
			wipeObservedAO(out)
			return nil, 0, fmt.Errorf("tcpsock: read TCP-AO keys on %s: %w", s, err)
		}
		out = append(out, k)
	}
	return out, n, nil
}
