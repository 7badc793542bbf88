//go:build linux

package srv6policy

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mdlayher/genetlink"
	"github.com/mdlayher/netlink"
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

	// enotsupp is the kernel-internal ENOTSUPP (524) that seg6 returns
	// when it is built without CONFIG_IPV6_SEG6_HMAC.
	enotsupp = unix.Errno(524)
)

// recvTimeout bounds every wait for the kernel's answer.
const recvTimeout = 5 * time.Second

// KernelKeys programs the SRv6 HMAC key table of the network namespace in
// which it was opened, through the SEG6 generic netlink family
// (mdlayher/genetlink). Methods are safe for concurrent use. Secrets sent
// or dumped are wiped from its own buffers (not from the copies the netlink
// library makes while sending and receiving).
type KernelKeys struct {
	mu sync.Mutex
	nlConn
	genl   *genetlink.Conn
	family uint16
}

// OpenKernelKeys opens a generic netlink socket and resolves the SEG6
// family. The socket, and so the key table, belongs to the calling
// thread's network namespace (for another namespace, call it on a thread
// that joined it, e.g. netns.Do). It returns an error wrapping
// ErrNoKernelSupport when the kernel has no SEG6 family.
func OpenKernelKeys() (*KernelKeys, error) {
	// Error acks without a copy of the request, which may hold a secret.
	c, err := dialNetlink(unix.NETLINK_GENERIC, "generic netlink", netlink.CapAcknowledge)
	if err != nil {
		if errors.Is(err, unix.EAFNOSUPPORT) || errors.Is(err, unix.EPROTONOSUPPORT) {
			return nil, fmt.Errorf("%w: generic netlink: %v", ErrNoKernelSupport, err)
		}
		return nil, err
	}
	return newKernelKeys(genetlink.NewConn(c))
}

// newKernelKeys resolves the SEG6 family on c (closed on failure).
func newKernelKeys(c *genetlink.Conn) (*KernelKeys, error) {
	k := &KernelKeys{nlConn: nlConn{t: genlTransport{c}, wipe: true}, genl: c}
	id, err := k.resolveFamily(seg6FamilyName)
	if err != nil {
		c.Close()
		return nil, err
	}
	k.family = id
	return k, nil
}

// resolveFamily asks the generic netlink controller for a family's ID.
func (k *KernelKeys) resolveFamily(name string) (uint16, error) {
	_ = k.genl.SetReadDeadline(time.Now().Add(recvTimeout))
	f, err := k.genl.GetFamily(name)
	if err != nil {
		err = recvErr(err)
	}
	switch {
	case errors.Is(err, unix.ENOENT):
		return 0, fmt.Errorf("%w: generic netlink family %s not found (kernel without IPv6 segment routing?)", ErrNoKernelSupport, name)
	case err != nil:
		return 0, fmt.Errorf("srv6policy: resolve generic netlink family %s: %w", name, err)
	case f.ID == 0:
		return 0, fmt.Errorf("srv6policy: resolve generic netlink family %s: no family ID in the answer", name)
	}
	return f.ID, nil
}

// Close closes the socket.
func (k *KernelKeys) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.close()
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
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(seg6AttrHMACKeyID, id)
	if len(secret) > 0 {
		ae.Bytes(seg6AttrSecret, secret)
	}
	ae.Uint8(seg6AttrSecretLen, uint8(len(secret)))
	ae.Uint8(seg6AttrAlgID, uint8(alg))
	if err := k.request(seg6CmdSetHMAC, netlink.Request|netlink.Acknowledge, ae, nil); err != nil {
		what := "set"
		if len(secret) == 0 {
			what = "delete"
		}
		return k.wrap(fmt.Sprintf("%s HMAC key %d", what, id), err)
	}
	return nil
}

// request sends a SEG6 command with the attributes of ae (nil: none) and
// hands the attributes of each answer to fn. It wipes the request after
// sending: it may hold a secret.
func (k *KernelKeys) request(cmd uint8, flags netlink.HeaderFlags, ae *netlink.AttributeEncoder, fn func(*netlink.AttributeDecoder) error) error {
	var attrs []byte
	if ae != nil {
		var err error
		if attrs, err = ae.Encode(); err != nil {
			return err
		}
		defer clear(attrs)
	}
	data, err := genetlink.Message{Header: genetlink.Header{Command: cmd, Version: seg6Version}, Data: attrs}.MarshalBinary()
	if err != nil {
		return err
	}
	defer clear(data)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.t == nil {
		return errors.New("srv6policy: KernelKeys is closed")
	}
	var each func(netlink.Message) error
	if fn != nil {
		each = func(m netlink.Message) error {
			var gm genetlink.Message
			if err := gm.UnmarshalBinary(m.Data); err != nil {
				return err
			}
			ad, err := netlink.NewAttributeDecoder(gm.Data)
			if err != nil {
				return err
			}
			if err := fn(ad); err != nil {
				return err
			}
			return ad.Err()
		}
	}
	return k.exchange(netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(k.family), Flags: flags}, Data: data}, each)
}

// Dump returns the namespace's HMAC keys, secrets included (in clear inside
// the redacting Secret type: never log them).
func (k *KernelKeys) Dump() ([]KernelKey, error) {
	var keys []KernelKey
	err := k.request(seg6CmdDumpHMAC, netlink.Request|netlink.Dump, nil, func(ad *netlink.AttributeDecoder) error {
		kk := decodeKernelKey(ad)
		if err := ad.Err(); err != nil {
			kk.Secret.Wipe()
			return err
		}
		keys = append(keys, kk)
		return nil
	})
	if err != nil {
		for _, kk := range keys {
			kk.Secret.Wipe()
		}
		return nil, k.wrap("dump HMAC keys", err)
	}
	return keys, nil
}

// decodeKernelKey decodes the attributes of one answer to a SEG6 HMAC dump.
// Attributes of the wrong size are ignored.
func decodeKernelKey(ad *netlink.AttributeDecoder) KernelKey {
	var (
		kk   KernelKey
		slen = -1
		sec  []byte
	)
	for ad.Next() {
		ad.Do(func(v []byte) error {
			switch ad.Type() {
			case seg6AttrHMACKeyID:
				if len(v) >= 4 {
					kk.ID = nativeEndian.Uint32(v)
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
			return nil
		})
	}
	if slen < 0 || slen > len(sec) {
		slen = len(sec)
	}
	kk.Secret = Secret(append([]byte(nil), sec[:slen]...))
	return kk
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
