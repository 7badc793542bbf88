package tcpao

import (
	"crypto/fips140"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestFIPS140Only runs the FIPS checks in a child process with
// GODEBUG=fips140=only: HMAC-SHA-1-96 is refused with ErrFIPS140Only,
// an HMAC-SHA-2 secret under 14 bytes with ErrFIPS140ShortSecret, never a
// panic; the SHA-2 HMACs work with longer secrets; AES-128-CMAC-96 works
// and still meets its RFC 9235 vectors.
func TestFIPS140Only(t *testing.T) {
	if os.Getenv("TCPAO_FIPS_CHILD") == "1" {
		fipsChild(t)
		return
	}
	if testing.Short() {
		t.Skip("short")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFIPS140Only$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "TCPAO_FIPS_CHILD=1", "GODEBUG=fips140=only")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "fips child ok") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func fipsChild(t *testing.T) {
	if !fips140.Enforced() {
		t.Fatal("child runs without fips140=only enforcement")
	}
	conn := Connection{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000"), LocalISN: 1, RemoteISN: 2}
	sha := MasterKey{Alg: HMACSHA1, Secret: []byte("a-long-enough-secret"), IncludeOptions: true}
	if _, err := sha.Keys(conn); !errors.Is(err, ErrFIPS140Only) {
		t.Fatalf("HMAC-SHA-1 keys: %v", err)
	}
	if _, err := DeriveTrafficKey(HMACSHA1, sha.Secret, conn.Context(Send, true)); !errors.Is(err, ErrFIPS140Only) {
		t.Fatalf("KDF_HMAC_SHA1: %v", err)
	}
	if _, err := NewTrafficKey(HMACSHA1, make([]byte, 20), true); !errors.Is(err, ErrFIPS140Only) {
		t.Fatalf("HMAC-SHA-1 traffic key: %v", err)
	}
	// A SHA-1 key prepared where enforcement was lifted must not panic later.
	var k *TrafficKey
	var err error
	fips140.WithoutEnforcement(func() { k, err = NewTrafficKey(HMACSHA1, make([]byte, 20), true) })
	if err != nil {
		t.Fatal(err)
	}
	seg := rfcSegments(t)[2]
	if _, err := k.MAC(nil, 0, seg); !errors.Is(err, ErrFIPS140Only) {
		t.Fatalf("MAC with a SHA-1 key under enforcement: %v", err)
	}
	if ok, err := k.Verify(0, seg); ok || !errors.Is(err, ErrFIPS140Only) {
		t.Fatalf("Verify with a SHA-1 key under enforcement: %v, %v", ok, err)
	}
	// HMAC-SHA-256 works with a secret of 14 bytes or more; a shorter one
	// would key the KDF's HMAC below 112 bits: refused, not a panic.
	short := MasterKey{Alg: HMACSHA256, Secret: []byte("13-byte-key.."), IncludeOptions: true}
	if _, err := short.Keys(conn); !errors.Is(err, ErrFIPS140ShortSecret) {
		t.Fatalf("HMAC-SHA-256, 13-byte secret: %v", err)
	}
	if _, err := DeriveTrafficKey(HMACSHA512, short.Secret, conn.Context(Send, true)); !errors.Is(err, ErrFIPS140ShortSecret) {
		t.Fatalf("KDF HMAC-SHA-512, 13-byte secret: %v", err)
	}
	if _, err := (MasterKey{Alg: AESCMAC, Secret: short.Secret}).Keys(conn); err != nil {
		t.Fatalf("AES-128-CMAC, 13-byte secret: %v", err)
	}
	for _, alg := range []Algorithm{HMACSHA224, HMACSHA256, HMACSHA384, HMACSHA512} {
		mk := MasterKey{Alg: alg, Secret: []byte("14-byte-key..."), SendID: 1, RecvID: 1, MACLen: 16}
		ks, err := mk.Keys(conn)
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		seg := rfcSegments(t)[2]
		if _, err := ks.RecvOther.MAC(nil, 0, seg); err != nil {
			t.Fatalf("%s MAC: %v", alg, err)
		}
	}
	// AES-128-CMAC-96 works: the RFC's IPv4 and IPv6 groups.
	for _, g := range rfc9235 {
		if g.alg != AESCMAC {
			continue
		}
		cc, _ := rfcConnections(t, &g)
		cmk, _ := rfcMasterKeys(&g)
		ks, err := cmk.Keys(cc)
		if err != nil {
			t.Fatalf("%s: %v", g.section, err)
		}
		for _, v := range g.vectors {
			seg, _ := ipSegment(hexBytes(t, v.packet))
			d := Send
			if v.sender == "server" {
				d = Receive
			}
			if err := ks.Verify(d, 0, seg); err != nil {
				t.Fatalf("%s: %v", v.section, err)
			}
		}
	}
	fmt.Println("fips child ok")
}
