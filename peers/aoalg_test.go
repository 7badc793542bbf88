package peers

import (
	"testing"
	"time"

	"github.com/authbgp/authbgpd/tcpsock"
)

// TestTCPAOAlgorithmsToKernel: a keychain's algorithm and mac-length reach
// the MKTs as the kernel's name and maclen, and a changed mac-length is a
// changed key.
func TestTCPAOAlgorithmsToKernel(t *testing.T) {
	doc := func(alg, macLen string) string {
		return `
[[keychains]]
name = "ao"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  algorithm = "hmac-sha-1-96"
  secret = "Alg-Key-One"
  [[keychains.keys]]
  id = 2
  algorithm = "` + alg + `"
  ` + macLen + `
  secret = "Alg-Key-Two"
  send-from = 2030-01-01T00:00:00Z
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "ao"
`
	}
	for _, c := range []struct {
		alg, macLen, kernel string
		n                   uint8
	}{
		{"aes-128-cmac-96", "", tcpsock.AOAlgAESCMAC, 12},
		{"aes-128-cmac", "mac-length = 16", tcpsock.AOAlgAESCMAC, 16},
		{"hmac-sha-1", "mac-length = 4", tcpsock.AOAlgHMACSHA1, 4},
		{"hmac-sha-224", "", tcpsock.AOAlgHMACSHA224, 12},
		{"hmac-sha-256", "mac-length = 16", tcpsock.AOAlgHMACSHA256, 16},
		{"hmac-sha-384", "", tcpsock.AOAlgHMACSHA384, 12},
		{"hmac-sha-512", "mac-length = 8", tcpsock.AOAlgHMACSHA512, 8},
	} {
		c1 := cfg(t, doc(c.alg, c.macLen))
		k, _, err := aoKey(c1, c1.Peer("192.0.2.2"), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if len(k.AO.Keys) != 2 || k.AO.Keys[0].Alg != tcpsock.AOAlgHMACSHA1 || k.AO.Keys[0].MACLen != 12 ||
			k.AO.Keys[1].Alg != c.kernel || k.AO.Keys[1].MACLen != c.n {
			t.Errorf("%s %s: MKTs %v %q/%d", c.alg, c.macLen, k.AO.Keys, k.AO.Keys[1].Alg, k.AO.Keys[1].MACLen)
		}
		for _, mk := range k.AO.Keys {
			if err := mk.Validate(); err != nil {
				t.Errorf("%s: %v", c.alg, err)
			}
		}
	}
	c1, c2 := cfg(t, doc("hmac-sha-256", "")), cfg(t, doc("hmac-sha-256", "mac-length = 16"))
	k1, _, _ := aoKey(c1, c1.Peer("192.0.2.2"), time.Now())
	k2, _, _ := aoKey(c2, c2.Peer("192.0.2.2"), time.Now())
	if k1.Equal(k2) || !k1.Equal(k1) {
		t.Error("a changed mac-length is not a changed key")
	}
}
