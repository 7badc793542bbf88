//go:build linux

package srv6policy

// Unprivileged tests of the SEG6 generic netlink client against
// genltest/nltest: the exact requests, the answers' decoding and the error
// paths. TestKernelKeys and friends check the same against a kernel.

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mdlayher/genetlink"
	"github.com/mdlayher/genetlink/genltest"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
	"golang.org/x/sys/unix"
)

// fakeSEG6 is the family the fake controller serves.
var fakeSEG6 = genetlink.Family{ID: 0x1d, Name: seg6FamilyName, Version: seg6Version}

// fakeKeys opens a KernelKeys on a genltest connection whose SEG6 requests
// go to fn; it fails the test if a request is not to fakeSEG6, version 1.
func fakeKeys(t *testing.T, fn genltest.Func) *KernelKeys {
	t.Helper()
	c := genltest.Dial(genltest.ServeFamily(fakeSEG6, func(greq genetlink.Message, nreq netlink.Message) ([]genetlink.Message, error) {
		if nreq.Header.Type != netlink.HeaderType(fakeSEG6.ID) || greq.Header.Version != seg6Version {
			t.Errorf("request to family %d version %d, want %d version %d", nreq.Header.Type, greq.Header.Version, fakeSEG6.ID, seg6Version)
		}
		return fn(greq, nreq)
	}))
	k, err := newKernelKeys(c)
	if err != nil {
		t.Fatal(err)
	}
	if k.family != fakeSEG6.ID {
		t.Fatalf("family %d, want %d", k.family, fakeSEG6.ID)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// fakeGenl opens a KernelKeys on an nltest connection: a controller that
// serves fakeSEG6, and fn for the SEG6 requests (the generic netlink
// message and its netlink message), which answers with netlink messages
// (see genlAnswer and kernelAck): what genltest cannot send, like a
// kernel's error ack to a dump.
func fakeGenl(t *testing.T, fn func(greq genetlink.Message, nreq netlink.Message) []netlink.Message) *KernelKeys {
	t.Helper()
	c := nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) != 1 {
			return nil, fmt.Errorf("unexpected read (%d requests)", len(reqs))
		}
		req := reqs[0]
		var gm genetlink.Message
		if err := gm.UnmarshalBinary(req.Data); err != nil {
			return nil, err
		}
		if req.Header.Type == unix.GENL_ID_CTRL {
			ae := netlink.NewAttributeEncoder()
			ae.Uint16(unix.CTRL_ATTR_FAMILY_ID, fakeSEG6.ID)
			ae.String(unix.CTRL_ATTR_FAMILY_NAME, fakeSEG6.Name)
			return []netlink.Message{genlAnswer(req, unix.GENL_ID_CTRL, unix.CTRL_CMD_NEWFAMILY, ae)}, nil
		}
		if req.Header.Type != netlink.HeaderType(fakeSEG6.ID) || gm.Header.Version != seg6Version {
			t.Errorf("request to family %d version %d", req.Header.Type, gm.Header.Version)
		}
		return fn(gm, req), nil
	})
	k, err := newKernelKeys(genetlink.NewConn(c))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// genlAnswer is a generic netlink answer to req from family, with the
// attributes of ae.
func genlAnswer(req netlink.Message, family netlink.HeaderType, cmd uint8, ae *netlink.AttributeEncoder) netlink.Message {
	b, err := ae.Encode()
	if err != nil {
		panic(err)
	}
	return netlink.Message{
		Header: netlink.Header{Type: family, Sequence: req.Header.Sequence, PID: req.Header.PID},
		Data:   append([]byte{cmd, 1, 0, 0}, b...),
	}
}

// kernelAck is the kernel's ack to req on a NETLINK_CAP_ACK socket: the
// errno (0: success) and the request's header only.
func kernelAck(req netlink.Message, errno unix.Errno) netlink.Message {
	h, err := netlink.Message{Header: req.Header}.MarshalBinary()
	if err != nil {
		h, _ = netlink.Message{Header: netlink.Header{Length: 16, Type: req.Header.Type, Flags: req.Header.Flags, Sequence: req.Header.Sequence, PID: req.Header.PID}}.MarshalBinary()
	}
	return netlink.Message{
		Header: netlink.Header{Type: netlink.Error, Flags: netlink.Capped, Sequence: req.Header.Sequence, PID: req.Header.PID},
		Data:   append(nativeEndian.AppendUint32(nil, uint32(-int32(errno))), h...),
	}
}

// nlAttr is one decoded attribute, for comparisons.
type nlAttr struct {
	Type uint16
	Data []byte
}

func attrsOf(t *testing.T, b []byte) []nlAttr {
	t.Helper()
	as, err := netlink.UnmarshalAttributes(b)
	if err != nil {
		t.Fatalf("attributes %x: %v", b, err)
	}
	out := make([]nlAttr, 0, len(as))
	for _, a := range as {
		out = append(out, nlAttr{a.Type, a.Data})
	}
	return out
}

func u32b(v uint32) []byte { return nativeEndian.AppendUint32(nil, v) }

// TestGenlFamilyMissing: the controller's ENOENT for "SEG6" (a kernel
// without IPv6 segment routing) is ErrNoKernelSupport; the request is
// CTRL_CMD_GETFAMILY with the name.
func TestGenlFamilyMissing(t *testing.T) {
	var got []nlAttr
	c := genltest.Dial(func(greq genetlink.Message, nreq netlink.Message) ([]genetlink.Message, error) {
		if nreq.Header.Type != unix.GENL_ID_CTRL || greq.Header.Command != unix.CTRL_CMD_GETFAMILY {
			t.Errorf("request type %d command %d", nreq.Header.Type, greq.Header.Command)
		}
		got = attrsOf(t, greq.Data)
		return nil, genltest.Error(int(unix.ENOENT))
	})
	_, err := newKernelKeys(c)
	if !errors.Is(err, ErrNoKernelSupport) || !strings.Contains(err.Error(), "family SEG6 not found") {
		t.Fatalf("missing family: %v", err)
	}
	if want := []nlAttr{{unix.CTRL_ATTR_FAMILY_NAME, []byte("SEG6\x00")}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("GETFAMILY attributes %v, want %v", got, want)
	}
	// Any other error is not "no support".
	c = genltest.Dial(func(genetlink.Message, netlink.Message) ([]genetlink.Message, error) {
		return nil, genltest.Error(int(unix.ENOBUFS))
	})
	if _, err := newKernelKeys(c); err == nil || errors.Is(err, ErrNoKernelSupport) || !errors.Is(err, unix.ENOBUFS) {
		t.Fatalf("ENOBUFS on family lookup: %v", err)
	}
	// An answer without a family ID.
	c = genltest.Dial(func(genetlink.Message, netlink.Message) ([]genetlink.Message, error) {
		return []genetlink.Message{{Header: genetlink.Header{Command: unix.CTRL_CMD_NEWFAMILY}}}, nil
	})
	if _, err := newKernelKeys(c); err == nil || !strings.Contains(err.Error(), "no family ID") {
		t.Fatalf("no family ID: %v", err)
	}
}

// TestGenlKeySetDelete: Set and Delete send SEG6_CMD_SETHMAC with
// NLM_F_REQUEST|NLM_F_ACK and exactly the attributes iproute2 sends.
func TestGenlKeySetDelete(t *testing.T) {
	var reqs []genetlink.Message
	var flags []netlink.HeaderFlags
	answer := error(genltest.Error(0)) // an ack
	k := fakeKeys(t, func(greq genetlink.Message, nreq netlink.Message) ([]genetlink.Message, error) {
		greq.Data = bytes.Clone(greq.Data)
		reqs, flags = append(reqs, greq), append(flags, nreq.Header.Flags)
		return nil, answer
	})
	if err := k.Set(7, SHA1, []byte("a-secret")); err != nil {
		t.Fatal(err)
	}
	if err := k.Set(4294967295, SHA256, bytes.Repeat([]byte{0xa5}, MaxSecretLen)); err != nil {
		t.Fatal(err)
	}
	if err := k.Delete(9); err != nil {
		t.Fatal(err)
	}
	want := [][]nlAttr{
		{{seg6AttrHMACKeyID, u32b(7)}, {seg6AttrSecret, []byte("a-secret")}, {seg6AttrSecretLen, []byte{8}}, {seg6AttrAlgID, []byte{1}}},
		{{seg6AttrHMACKeyID, u32b(4294967295)}, {seg6AttrSecret, bytes.Repeat([]byte{0xa5}, 64)}, {seg6AttrSecretLen, []byte{64}}, {seg6AttrAlgID, []byte{2}}},
		{{seg6AttrHMACKeyID, u32b(9)}, {seg6AttrSecretLen, []byte{0}}, {seg6AttrAlgID, []byte{2}}},
	}
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		if r.Header.Command != seg6CmdSetHMAC || flags[i] != netlink.Request|netlink.Acknowledge {
			t.Errorf("request %d: command %d flags %v", i, r.Header.Command, flags[i])
		}
		if got := attrsOf(t, r.Data); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("request %d: attributes %v, want %v", i, got, want[i])
		}
	}
	// Arguments are checked before anything is sent.
	n := len(reqs)
	for _, err := range []error{k.Set(0, SHA256, []byte("x")), k.Set(1, 3, []byte("x")), k.Set(1, SHA256, nil), k.Delete(0)} {
		if err == nil {
			t.Error("invalid key accepted")
		}
	}
	if len(reqs) != n {
		t.Fatalf("invalid keys were sent")
	}
	// Delete of a key the kernel does not have.
	answer = genltest.Error(int(unix.ENOENT))
	if err := k.Delete(9); !errors.Is(err, ErrKeyNotFound) || err.Error() != "key 9: "+ErrKeyNotFound.Error() {
		t.Fatalf("Delete of a missing key: %v", err)
	}
	// ENOENT on Set is not "not found".
	if err := k.Set(9, SHA256, []byte("x")); errors.Is(err, ErrKeyNotFound) || !errors.Is(err, unix.ENOENT) {
		t.Fatalf("Set with ENOENT: %v", err)
	}
}

// TestGenlKeyErrors: EPERM/EACCES are ErrPermission (and EPERM,
// os.ErrPermission), ENOTSUPP/EOPNOTSUPP ErrNoKernelSupport; no error shows
// the secret; a closed KernelKeys sends nothing.
func TestGenlKeyErrors(t *testing.T) {
	var errno unix.Errno
	sent := 0
	k := fakeKeys(t, func(genetlink.Message, netlink.Message) ([]genetlink.Message, error) {
		sent++
		return nil, genltest.Error(int(errno))
	})
	// genltest echoes the request's flags in its error acks, and a dump's
	// NLM_F_DUMP reads as NLM_F_CAPPED|NLM_F_ACK_TLVS there: dumps fail on
	// a kernel-like ack.
	kd := fakeGenl(t, func(_ genetlink.Message, req netlink.Message) []netlink.Message {
		return []netlink.Message{kernelAck(req, errno)}
	})
	for _, c := range []struct {
		errno unix.Errno
		want  []error
	}{
		{unix.EPERM, []error{ErrPermission, unix.EPERM, os.ErrPermission}},
		{unix.EACCES, []error{ErrPermission, unix.EACCES}},
		{enotsupp, []error{ErrNoKernelSupport}},
		{unix.EOPNOTSUPP, []error{ErrNoKernelSupport}},
		{unix.EINVAL, []error{unix.EINVAL}},
	} {
		errno = c.errno
		setErr := k.Set(5, SHA256, []byte("secret-not-in-errors"))
		_, dumpErr := kd.Dump()
		tsErr := k.SetTunnelSource(netip.MustParseAddr("fc00::1"))
		for _, err := range []error{setErr, dumpErr, tsErr} {
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Errorf("%v: %v is not %v", c.errno, err, w)
				}
			}
			if err != nil && strings.Contains(err.Error(), "secret-not-in-errors") {
				t.Errorf("error shows the secret: %v", err)
			}
		}
		if c.errno == unix.EINVAL && setErr.Error() != "srv6policy: kernel: set HMAC key 5: invalid argument" {
			t.Errorf("EINVAL: %q", setErr)
		}
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	n := sent
	_, dumpErr := k.Dump()
	for _, err := range []error{k.Set(5, SHA256, []byte("x")), k.Delete(5), dumpErr, k.SetTunnelSource(netip.IPv6Unspecified())} {
		if err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("closed: %v", err)
		}
	}
	if sent != n || k.Close() != nil {
		t.Fatal("a closed KernelKeys sent a request, or failed to close again")
	}
}

// keyAttrs are the attributes of one answer to a SEG6 HMAC dump.
func keyAttrs(id uint32, alg Algorithm, slen int, secret []byte) *netlink.AttributeEncoder {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(seg6AttrHMACKeyID, id)
	ae.Bytes(seg6AttrSecret, secret)
	ae.Uint8(seg6AttrSecretLen, uint8(slen))
	ae.Uint8(seg6AttrAlgID, uint8(alg))
	return ae
}

// TestGenlKeyDump: Dump sends SEG6_CMD_DUMPHMAC with NLM_F_REQUEST|
// NLM_F_DUMP and decodes a multipart answer spread over several reads,
// skipping a stale answer to another request, and wipes the answers.
func TestGenlKeyDump(t *testing.T) {
	var answers []netlink.Message
	var dumpReq netlink.Message
	var dumpCmd genetlink.Message
	k := fakeGenl(t, func(gm genetlink.Message, req netlink.Message) []netlink.Message {
		dumpReq, dumpCmd = req, gm
		answers = nil
		for i, ae := range []*netlink.AttributeEncoder{
			keyAttrs(7, SHA1, 8, []byte("secret-1")),
			keyAttrs(8, SHA256, 3, []byte("abc-tail")), // SECRETLEN shorter than SECRET
			keyAttrs(9, SHA256, 99, []byte("xyz")),     // longer: the attribute wins
		} {
			if i == 1 {
				stale := req
				stale.Header.Sequence--
				answers = append(answers, genlAnswer(stale, netlink.HeaderType(fakeSEG6.ID), seg6CmdDumpHMAC, keyAttrs(66, SHA1, 5, []byte("stale"))))
			}
			answers = append(answers, genlAnswer(req, netlink.HeaderType(fakeSEG6.ID), seg6CmdDumpHMAC, ae))
		}
		answers = append(answers, netlink.Message{Header: netlink.Header{Sequence: req.Header.Sequence, PID: req.Header.PID}, Data: make([]byte, 4)})
		answers, _ = nltest.Multipart(answers)
		return answers
	})
	keys, err := k.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if gm := dumpCmd; gm.Header.Command != seg6CmdDumpHMAC || gm.Header.Version != seg6Version || len(gm.Data) != 0 {
		t.Fatalf("dump request %+v", gm)
	}
	if dumpReq.Header.Type != netlink.HeaderType(fakeSEG6.ID) || dumpReq.Header.Flags != netlink.Request|netlink.Dump {
		t.Fatalf("dump request header %+v", dumpReq.Header)
	}
	want := []KernelKey{{7, SHA1, Secret("secret-1")}, {8, SHA256, Secret("abc")}, {9, SHA256, Secret("xyz")}}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("dumped %v, want %v", keys, want)
	}
	for i, a := range answers[:len(answers)-1] {
		if a.Header.Sequence != dumpReq.Header.Sequence {
			continue // the stale one is skipped, not read
		}
		if bytes.Contains(a.Data, []byte("secret-1")) || bytes.Contains(a.Data, []byte("abc")) || bytes.Contains(a.Data, []byte("xyz")) {
			t.Errorf("answer %d not wiped: %x", i, a.Data)
		}
	}
}

// TestGenlKeyDumpMalformed: a malformed attribute fails the dump, and the
// keys decoded so far are not returned.
func TestGenlKeyDumpMalformed(t *testing.T) {
	k := fakeKeys(t, func(genetlink.Message, netlink.Message) ([]genetlink.Message, error) {
		return []genetlink.Message{
			{Header: genetlink.Header{Command: seg6CmdDumpHMAC, Version: 1}, Data: nltest.MustMarshalAttributes([]netlink.Attribute{{Type: seg6AttrHMACKeyID, Data: u32b(7)}, {Type: seg6AttrSecret, Data: []byte("secret-1")}})},
			{Header: genetlink.Header{Command: seg6CmdDumpHMAC, Version: 1}, Data: []byte{200, 0, 3, 0, 1}},
		}, nil
	})
	keys, err := k.Dump()
	if err == nil || keys != nil || strings.Contains(err.Error(), "secret-1") {
		t.Fatalf("malformed dump: %v, %v", keys, err)
	}
}

// TestGenlTunnelSource: SEG6_CMD_GETTUNSRC (no ack: the answer is the
// address) and SEG6_CMD_SETTUNSRC with SEG6_ATTR_DST.
func TestGenlTunnelSource(t *testing.T) {
	src := netip.MustParseAddr("fc00:0:1::1")
	var got []genetlink.Message
	var flags []netlink.HeaderFlags
	reply := []genetlink.Message{{Header: genetlink.Header{Command: seg6CmdGetTunsrc, Version: 1}, Data: nltest.MustMarshalAttributes([]netlink.Attribute{{Type: seg6AttrDst, Data: src.AsSlice()}})}}
	k := fakeKeys(t, func(greq genetlink.Message, nreq netlink.Message) ([]genetlink.Message, error) {
		greq.Data = bytes.Clone(greq.Data)
		got, flags = append(got, greq), append(flags, nreq.Header.Flags)
		if greq.Header.Command == seg6CmdGetTunsrc {
			return reply, nil
		}
		return nil, genltest.Error(0)
	})
	a, err := k.TunnelSource()
	if err != nil || a != src {
		t.Fatalf("TunnelSource: %v, %v", a, err)
	}
	if err := k.SetTunnelSource(src); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Header.Command != seg6CmdGetTunsrc || flags[0] != netlink.Request || len(got[0].Data) != 0 ||
		got[1].Header.Command != seg6CmdSetTunsrc || flags[1] != netlink.Request|netlink.Acknowledge {
		t.Fatalf("requests %+v flags %v", got, flags)
	}
	if a := attrsOf(t, got[1].Data); !reflect.DeepEqual(a, []nlAttr{{seg6AttrDst, src.AsSlice()}}) {
		t.Fatalf("SETTUNSRC attributes %v", a)
	}
	for _, bad := range []netip.Addr{{}, netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("::ffff:192.0.2.1"), netip.MustParseAddr("fe80::1%eth0")} {
		if err := k.SetTunnelSource(bad); err == nil {
			t.Errorf("SetTunnelSource(%v) accepted", bad)
		}
	}
	if len(got) != 2 {
		t.Fatal("invalid tunnel sources were sent")
	}
	// An answer without the address.
	reply = []genetlink.Message{{Header: genetlink.Header{Command: seg6CmdGetTunsrc, Version: 1}}}
	if _, err := k.TunnelSource(); err == nil || !strings.Contains(err.Error(), "no address") {
		t.Fatalf("no address: %v", err)
	}
}

// TestNLRecvErr: a timeout says so and wraps os.ErrDeadlineExceeded; an
// error ack with an extended-ack message shows it.
func TestNLRecvErr(t *testing.T) {
	err := recvErr(&netlink.OpError{Op: "receive", Err: os.ErrDeadlineExceeded})
	if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "no answer from the kernel in 5s") {
		t.Fatalf("timeout: %v", err)
	}
	err = recvErr(&netlink.OpError{Op: "receive", Err: unix.EINVAL, Message: "bad SRH"})
	if !errors.Is(err, unix.EINVAL) || err.Error() != "invalid argument (bad SRH)" {
		t.Fatalf("error ack: %v", err)
	}
	err = recvErr(&netlink.OpError{Op: "receive", Err: os.NewSyscallError("recvmsg", unix.EBADF)})
	if !errors.Is(err, unix.EBADF) || !strings.HasPrefix(err.Error(), "receive: ") {
		t.Fatalf("socket error: %v", err)
	}
}
