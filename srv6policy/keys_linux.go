//go:build linux

package srv6policy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The SEG6 generic netlink family (include/uapi/linux/seg6_genl.h).
const (
	seg6FamilyName    = "SEG6"
	seg6Version       = 1
	seg6CmdSetHMAC    = 1
	seg6CmdDumpHMAC   = 2
	seg6AttrHMACKeyID = 3 // u32
	seg6AttrSecret    = 4 // binary
	seg6AttrSecretLen = 5 // u8
	seg6AttrAlgID     = 6 // u8

	genlHdrLen  = 4
	nlaTypeMask = 0x3fff // ^(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
	// enotsupp is the kernel-internal ENOTSUPP (524) that seg6 returns
	// when it is built without CONFIG_IPV6_SEG6_HMAC.
	enotsupp = unix.Errno(524)
)

// recvTimeout bounds every wait for the kernel's answer.
const recvTimeout = 5 * time.Second

// KernelKeys programs the SRv6 HMAC key table of the network namespace in
// which it was opened, through the SEG6 generic netlink family: our own
// client on a NETLINK_GENERIC socket (no netlink library). Methods are safe
// for concurrent use. Secrets sent or dumped are wiped from its buffers.
type KernelKeys struct {
	mu sync.Mutex
	nlSocket
	family uint16
	buf    []byte
}

// OpenKernelKeys opens a generic netlink socket and resolves the SEG6
// family. The socket, and so the key table, belongs to the calling
// thread's network namespace (for another namespace, call it on a thread
// that joined it, e.g. netns.Do). It returns an error wrapping
// ErrNoKernelSupport when the kernel has no SEG6 family.
func OpenKernelKeys() (*KernelKeys, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_GENERIC)
	if err != nil {
		if err == unix.EAFNOSUPPORT || err == unix.EPROTONOSUPPORT {
			return nil, fmt.Errorf("%w: generic netlink: %v", ErrNoKernelSupport, err)
		}
		return nil, fmt.Errorf("srv6policy: generic netlink socket: %w", err)
	}
	k := &KernelKeys{nlSocket: nlSocket{fd: fd, seq: uint32(time.Now().UnixNano()), hdr: genlHdrLen, wipe: true, what: "generic netlink"}, buf: make([]byte, 0, 4096)}
	if err := k.setup(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return k, nil
}

func (k *KernelKeys) setup() error {
	if err := k.init(); err != nil {
		return err
	}
	id, err := k.resolveFamily(seg6FamilyName)
	if err != nil {
		return err
	}
	k.family = id
	return nil
}

// resolveFamily asks the generic netlink controller for a family's ID.
func (k *KernelKeys) resolveFamily(name string) (uint16, error) {
	msg := k.newMsg(unix.GENL_ID_CTRL, unix.NLM_F_REQUEST|unix.NLM_F_ACK, unix.CTRL_CMD_GETFAMILY, 2)
	msg = appendAttr(msg, unix.CTRL_ATTR_FAMILY_NAME, append([]byte(name), 0))
	var id uint16
	err := k.roundTrip(msg, func(_ uint16, attrs []byte) error {
		return walkAttrs(attrs, func(typ uint16, v []byte) {
			if typ == unix.CTRL_ATTR_FAMILY_ID && len(v) >= 2 {
				id = binary.NativeEndian.Uint16(v)
			}
		})
	})
	switch {
	case errors.Is(err, unix.ENOENT):
		return 0, fmt.Errorf("%w: generic netlink family %s not found (kernel without IPv6 segment routing?)", ErrNoKernelSupport, name)
	case err != nil:
		return 0, fmt.Errorf("srv6policy: resolve generic netlink family %s: %w", name, err)
	case id == 0:
		return 0, fmt.Errorf("srv6policy: resolve generic netlink family %s: no family ID in the answer", name)
	}
	return id, nil
}

// Close closes the socket.
func (k *KernelKeys) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.closeFd()
}

// Set installs key id with algorithm alg and secret (1..64 bytes), replacing
// any key with that ID (the kernel deletes and re-adds it: packets that
// arrive in between are dropped, so rotate to a new ID instead of changing a
// key in use).
func (k *KernelKeys) Set(id uint32, alg Algorithm, secret []byte) error {
	if err := ValidateKey(id, alg, secret); err != nil {
		return err
	}
	return k.setHMAC(id, alg, secret)
}

// Delete removes key id. It returns an error wrapping ErrKeyNotFound when
// the kernel has no such key.
func (k *KernelKeys) Delete(id uint32) error {
	if id == 0 {
		return ErrKeyIDZero
	}
	// A secret length of 0 deletes; the kernel still wants an algorithm.
	err := k.setHMAC(id, SHA256, nil)
	if errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("key %d: %w", id, ErrKeyNotFound)
	}
	return err
}

func (k *KernelKeys) setHMAC(id uint32, alg Algorithm, secret []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fd < 0 {
		return errors.New("srv6policy: KernelKeys is closed")
	}
	msg := k.newMsg(k.family, unix.NLM_F_REQUEST|unix.NLM_F_ACK, seg6CmdSetHMAC, seg6Version)
	msg = appendAttr(msg, seg6AttrHMACKeyID, binary.NativeEndian.AppendUint32(nil, id))
	if len(secret) > 0 {
		msg = appendAttr(msg, seg6AttrSecret, secret)
	}
	msg = appendAttr(msg, seg6AttrSecretLen, []byte{uint8(len(secret))})
	msg = appendAttr(msg, seg6AttrAlgID, []byte{uint8(alg)})
	err := k.roundTrip(msg, nil)
	clear(msg) // it held the secret
	if err != nil {
		what := "set"
		if len(secret) == 0 {
			what = "delete"
		}
		return k.wrap(fmt.Sprintf("%s HMAC key %d", what, id), err)
	}
	return nil
}

// Dump returns the namespace's HMAC keys, secrets included (in clear inside
// the redacting Secret type: never log them).
func (k *KernelKeys) Dump() ([]KernelKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fd < 0 {
		return nil, errors.New("srv6policy: KernelKeys is closed")
	}
	msg := k.newMsg(k.family, unix.NLM_F_REQUEST|unix.NLM_F_DUMP, seg6CmdDumpHMAC, seg6Version)
	var keys []KernelKey
	err := k.roundTrip(msg, func(typ uint16, attrs []byte) error {
		if typ != k.family {
			return nil
		}
		var (
			kk   KernelKey
			slen = -1
			sec  []byte
		)
		if err := walkAttrs(attrs, func(t uint16, v []byte) {
			switch t {
			case seg6AttrHMACKeyID:
				if len(v) >= 4 {
					kk.ID = binary.NativeEndian.Uint32(v)
				}
			case seg6AttrSecretLen:
				if len(v) >= 1 {
					slen = int(v[0])
				}
			case seg6AttrSecret:
				sec = v
			case seg6AttrAlgID:
				if len(v) >= 1 {
					kk.Algorithm = Algorithm(v[0])
				}
			}
		}); err != nil {
			return err
		}
		if slen < 0 || slen > len(sec) {
			slen = len(sec)
		}
		kk.Secret = Secret(append([]byte(nil), sec[:slen]...))
		keys = append(keys, kk)
		return nil
	})
	if err != nil {
		for _, kk := range keys {
			clear(kk.Secret)
		}
		return nil, k.wrap("dump HMAC keys", err)
	}
	return keys, nil
}

// wrap turns a kernel error into one of ours.
func (k *KernelKeys) wrap(op string, err error) error {
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return fmt.Errorf("%w: %s: %w", ErrPermission, op, err)
	case errors.Is(err, enotsupp), errors.Is(err, unix.EOPNOTSUPP):
		return fmt.Errorf("%w: %s: %v", ErrNoKernelSupport, op, err)
	}
	return fmt.Errorf("srv6policy: kernel: %s: %w", op, err)
}

// newMsg starts a generic netlink request in k.buf (which it reuses).
func (k *KernelKeys) newMsg(typ uint16, flags uint16, cmd, version uint8) []byte {
	k.seq++
	b := k.buf[:0]
	b = binary.NativeEndian.AppendUint32(b, 0) // length, set by roundTrip
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = binary.NativeEndian.AppendUint16(b, flags)
	b = binary.NativeEndian.AppendUint32(b, k.seq)
	b = binary.NativeEndian.AppendUint32(b, 0) // port ID: the kernel fills it in
	return append(b, cmd, version, 0, 0)
}

func appendAttr(b []byte, typ uint16, v []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(unix.SizeofNlAttr+len(v)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// walkAttrs calls fn for each netlink attribute in b.
func walkAttrs(b []byte, fn func(typ uint16, v []byte)) error {
	for len(b) >= unix.SizeofNlAttr {
		l := int(binary.NativeEndian.Uint16(b[0:2]))
		typ := binary.NativeEndian.Uint16(b[2:4]) & nlaTypeMask
		if l < unix.SizeofNlAttr || l > len(b) {
			return fmt.Errorf("malformed netlink attribute (length %d, %d bytes left)", l, len(b))
		}
		fn(typ, b[unix.SizeofNlAttr:l])
		al := (l + 3) &^ 3
		if al > len(b) {
			break
		}
		b = b[al:]
	}
	return nil
}

func recvErr(err error) error {
	if err == unix.EAGAIN || err == unix.EWOULDBLOCK {
		return fmt.Errorf("no answer from the kernel in %v: %w", recvTimeout, os.ErrDeadlineExceeded)
	}
	return fmt.Errorf("receive: %w", err)
}

// netlinkError is an error ack: the errno and the kernel's message.
type netlinkError struct {
	errno unix.Errno
	msg   string
}

func (e *netlinkError) Error() string {
	if e.msg != "" {
		return e.errno.Error() + " (" + e.msg + ")"
	}
	return e.errno.Error()
}

func (e *netlinkError) Unwrap() error { return e.errno }

// ackErr decodes an NLMSG_ERROR message: nil for a plain ack.
func ackErr(m []byte, flags uint16) error {
	if len(m) < unix.NLMSG_HDRLEN+4 {
		return errors.New("truncated netlink error message")
	}
	e := int32(binary.NativeEndian.Uint32(m[16:20]))
	if e == 0 {
		return nil
	}
	ne := &netlinkError{errno: unix.Errno(-e)}
	if flags&unix.NLM_F_ACK_TLVS != 0 {
		// After the errno: the request's header (and, unless capped, its
		// payload), then the extended-ack attributes.
		off := unix.NLMSG_HDRLEN + 4 + unix.NLMSG_HDRLEN
		if flags&unix.NLM_F_CAPPED == 0 && len(m) >= unix.NLMSG_HDRLEN+4+4 {
			ol := int(binary.NativeEndian.Uint32(m[20:24]))
			off = unix.NLMSG_HDRLEN + 4 + (ol+3)&^3
		}
		if off < len(m) {
			_ = walkAttrs(m[off:], func(typ uint16, v []byte) {
				if typ == unix.NLMSGERR_ATTR_MSG {
					for len(v) > 0 && v[len(v)-1] == 0 {
						v = v[:len(v)-1]
					}
					ne.msg = string(v)
				}
			})
		}
	}
	return ne
}
