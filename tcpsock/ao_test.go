package tcpsock

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/aocount"
	"github.com/authbgp/authbgpd/keys"
)

// TestEncodeAOAdd checks struct tcp_ao_add's layout field by field
// (include/uapi/linux/tcp.h: addr 0..128, alg_name 128..192, ifindex 192,
// the set_current/set_rnext bits 196, prefix 202, sndid 203, rcvid 204,
// maclen 205, keyflags 206, keylen 207, key 208..288).
func TestEncodeAOAdd(t *testing.T) {
	var b [aoAddSize]byte
	k := AOKey{Prefix: netip.MustParsePrefix("192.0.2.0/24"), Alg: AOAlgAESCMAC, Secret: keys.Secret("AO-Layout-Key"),
		SendID: 7, RecvID: 9, ExcludeOptions: true, IfIndex: 5}
	if err := encodeAOAdd(&b, afInet6, k, true, false); err != nil {
		t.Fatal(err)
	}
	if f := binary.NativeEndian.Uint16(b[0:]); f != afInet6 {
		t.Fatalf("family %d", f)
	}
	if a := netip.AddrFrom16([16]byte(b[8:24])); a != netip.MustParseAddr("::ffff:192.0.2.0") {
		t.Fatalf("address %s (an IPv4 key on an IPv6 socket is v4-mapped)", a)
	}
	if alg := strings.TrimRight(string(b[128:192]), "\x00"); alg != AOAlgAESCMAC {
		t.Fatalf("alg %q", alg)
	}
	if ifi := binary.NativeEndian.Uint32(b[192:]); ifi != 5 {
		t.Fatalf("ifindex %d", ifi)
	}
	if bits := binary.NativeEndian.Uint32(b[196:]); bits != 1 {
		t.Fatalf("bits %#x, want set_current only", bits)
	}
	if b[202] != 24 || b[203] != 7 || b[204] != 9 || b[205] != 0 || b[206] != aoKeyfIfindex|aoKeyfExcludeOpt || b[207] != 13 {
		t.Fatalf("prefix/ids/maclen/flags/keylen: % x", b[202:208])
	}
	if string(b[208:221]) != "AO-Layout-Key" || b[221] != 0 {
		t.Fatal("key bytes")
	}
	if err := encodeAOAdd(&b, afInet, AOKey{Prefix: netip.MustParsePrefix("2001:db8::/64"), Alg: AOAlgHMACSHA1, Secret: keys.Secret("x")}, false, false); !errors.Is(err, ErrFamilyMismatch) {
		t.Fatalf("IPv6 key on an AF_INET socket: %v", err)
	}
}

// TestEncodeAODelAndInfo checks struct tcp_ao_del and tcp_ao_info_opt.
func TestEncodeAODelAndInfo(t *testing.T) {
	var d [aoDelSize]byte
	if err := encodeAODel(&d, afInet, AOKey{Prefix: netip.MustParsePrefix("192.0.2.2/32"), SendID: 3, RecvID: 4}); err != nil {
		t.Fatal(err)
	}
	if binary.NativeEndian.Uint16(d[0:]) != afInet || netip.AddrFrom4([4]byte(d[4:8])) != netip.MustParseAddr("192.0.2.2") ||
		d[138] != 32 || d[139] != 3 || d[140] != 4 || d[143] != 0 {
		t.Fatalf("tcp_ao_del % x", d[128:144])
	}
	var in [aoInfoSize]byte
	encodeAOInfoSet(&in, 7, -1, false, true)
	// set_current, accept_icmps (linux/tcp.h: set_current:1, set_rnext:1,
	// ao_required:1, set_counters:1, accept_icmps:1).
	if bits := binary.NativeEndian.Uint32(in[0:]); bits != 1|1<<4 || in[6] != 7 {
		t.Fatalf("info set with ICMPs: bits %#x current %d", bits, in[6])
	}
	if !decodeAOInfo(in[:]).AcceptICMPs || decodeAOInfo(in[:]).Required {
		t.Fatalf("decoded %+v", decodeAOInfo(in[:]))
	}
	encodeAOInfoSet(&in, -1, 12, true, false)
	if bits := binary.NativeEndian.Uint32(in[0:]); bits != 2|4 || in[7] != 12 {
		t.Fatalf("info set: bits %#x rnext %d", bits, in[7])
	}
	binary.NativeEndian.PutUint64(in[8:], 10)
	binary.NativeEndian.PutUint64(in[16:], 2)
	binary.NativeEndian.PutUint64(in[24:], 3)
	binary.NativeEndian.PutUint64(in[32:], 4)
	in[6] = 11
	got := decodeAOInfo(in[:])
	if got != (AOInfo{Current: 11, RNext: 12, Required: true, Counts: aocount.Counts{Good: 10, Bad: 2, KeyNotFound: 3, AORequired: 4}}) {
		t.Fatalf("decoded %+v", got)
	}
}

// TestDecodeAOGet reads struct tcp_ao_getsockopt (alg_name 128, key 192,
// nkeys 272, is_current/is_rnext 276, sndid 278, rcvid 279, prefix 280,
// keyflags 282, keylen 283, ifindex 284, pkt_good 288, pkt_bad 296).
func TestDecodeAOGet(t *testing.T) {
	b := make([]byte, aoGetSize)
	binary.NativeEndian.PutUint16(b[0:], afInet6)
	a := netip.MustParseAddr("::ffff:198.51.100.0").As16()
	copy(b[8:24], a[:])
	copy(b[128:], AOAlgHMACSHA1)
	copy(b[192:], "Get-Key")
	binary.NativeEndian.PutUint16(b[276:], 2)
	b[278], b[279], b[280], b[282], b[283] = 1, 2, 24, aoKeyfExcludeOpt, 7
	binary.NativeEndian.PutUint64(b[288:], 5)
	binary.NativeEndian.PutUint64(b[296:], 6)
	k, err := decodeAOGet(b)
	if err != nil {
		t.Fatal(err)
	}
	if k.Prefix != netip.MustParsePrefix("198.51.100.0/24") || k.Alg != AOAlgHMACSHA1 || string(k.Secret) != "Get-Key" ||
		k.IsCurrent || !k.IsRNext || k.SendID != 1 || k.RecvID != 2 || !k.ExcludeOptions || k.Good != 5 || k.Bad != 6 {
		t.Fatalf("decoded %+v", k)
	}
	if s := k.String(); strings.Contains(s, "Get-Key") {
		t.Fatal("secret in String")
	}
}
