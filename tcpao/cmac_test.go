package tcpao

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// RFC 4493 §4: AES-CMAC test vectors (key, subkeys, examples 1-4).
var (
	rfc4493Key = "2b7e151628aed2a6abf7158809cf4f3c"
	rfc4493K1  = "fbeed618357133667c85e08f7236a8de"
	rfc4493K2  = "f7ddac306ae266ccf90bc11ee46d513b"
	rfc4493Msg = "6bc1bee22e409f96e93d7e117393172a" +
		"ae2d8a571e03ac9c9eb76fac45af8e51" +
		"30c81c46a35ce411e5fbc1191a0a52ef" +
		"f69f2445df4f9b17ad2b417be66c3710"
	rfc4493Examples = []struct {
		n   int // message length
		mac string
	}{
		{0, "bb1d6929e95937287fa37d129b756746"},
		{16, "070a16b46b4d4144f79bdd9dd04a287c"},
		{40, "dfa66747de9ae63030ca32611497c827"},
		{64, "51f0bebf7e3b9d92fc49741779363cfe"},
	}
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCMACRFC4493(t *testing.T) {
	key := unhex(t, rfc4493Key)
	msg := unhex(t, rfc4493Msg)
	c, err := newCMAC(key)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.k1[:], unhex(t, rfc4493K1)) || !bytes.Equal(c.k2[:], unhex(t, rfc4493K2)) {
		t.Fatal("subkeys K1/K2 differ from RFC 4493 §4")
	}
	for _, ex := range rfc4493Examples {
		want := unhex(t, ex.mac)
		got, err := cmacSum(key, msg[:ex.n])
		if err != nil || !bytes.Equal(got[:], want) {
			t.Fatalf("example with %d bytes: %x, want %x (%v)", ex.n, got, want, err)
		}
		// The same message written in every split into two or three
		// pieces must give the same MAC (the streaming path).
		for i := 0; i <= ex.n; i++ {
			for j := i; j <= ex.n; j++ {
				c.reset()
				c.write(msg[:i])
				c.write(msg[i:j])
				c.write(msg[j:ex.n])
				var out [16]byte
				c.sum(out[:])
				if !bytes.Equal(out[:], want) {
					t.Fatalf("example with %d bytes split at %d,%d: %x, want %x", ex.n, i, j, out, want)
				}
			}
		}
	}
}

// TestCMACStreaming compares random splits of random messages with the
// one-shot MAC.
func TestCMACStreaming(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	key := make([]byte, 16)
	for i := 0; i < 300; i++ {
		for j := range key {
			key[j] = byte(r.Uint32())
		}
		msg := make([]byte, r.IntN(200))
		for j := range msg {
			msg[j] = byte(r.Uint32())
		}
		want, _ := cmacSum(key, msg)
		c, _ := newCMAC(key)
		for rounds := 0; rounds < 3; rounds++ {
			c.reset()
			rest := msg
			for len(rest) > 0 {
				n := r.IntN(len(rest) + 1)
				c.write(rest[:n])
				rest = rest[n:]
			}
			var got [16]byte
			c.sum(got[:])
			if got != want {
				t.Fatalf("case %d: %d-byte message split randomly: MAC differs", i, len(msg))
			}
		}
	}
}
