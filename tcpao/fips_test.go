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
// never a panic; AES-128-CMAC-96 works and still meets its RFC 9235
// vectors.
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
