package tcpsock

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/tcpao"
)

// linux72 answers a probe as Linux 7.2 would: HMAC-SHA-1, AES-128-CMAC and
// HMAC-SHA-256 taken, the other HMACs refused.
func linux72(asked *[]string) func(string) error {
	return func(name string) error {
		*asked = append(*asked, name)
		switch name {
		case "hmac(sha1)", "cmac(aes128)", "hmac(sha256)":
			return nil
		}
		return errors.New("ENOENT (no such file or directory)")
	}
}

// TestProbeAOSortsAnswers: every algorithm is asked by its kernel name;
// the kernel's refusals, a kernel without TCP-AO and a probe that could
// not ask are told apart, and only a refusal makes Check fail, with an
// error naming the config's algorithm, the kernel and the kernel's answer.
func TestProbeAOSortsAnswers(t *testing.T) {
	var asked []string
	a := probeAO("7.2.0", linux72(&asked))
	want := []string{"hmac(sha1)", "cmac(aes128)", "hmac(sha224)", "hmac(sha256)", "hmac(sha384)", "hmac(sha512)"}
	if !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if !a.Probed() || !slices.Equal(a.Accepted, []tcpao.Algorithm{tcpao.HMACSHA1, tcpao.AESCMAC, tcpao.HMACSHA256}) || len(a.Refused) != 3 || len(a.Unknown) != 0 {
		t.Fatalf("probe: %+v", a)
	}
	for _, ok := range []string{"hmac-sha-1-96", "hmac-sha-1", "aes-128-cmac-96", "aes-128-cmac", "hmac-sha-256"} {
		if err := a.Check(ok); err != nil {
			t.Errorf("Check(%s): %v", ok, err)
		}
	}
	for _, c := range []struct{ name, kernel string }{{"hmac-sha-224", "hmac(sha224)"}, {"hmac-sha-384", "hmac(sha384)"}, {"hmac-sha-512", "hmac(sha512)"}} {
		err := a.Check(c.name)
		var ae *AOAlgorithmError
		if !errors.Is(err, ErrAOAlgorithm) || !errors.As(err, &ae) || ae.Kernel != "7.2.0" {
			t.Fatalf("Check(%s): %v", c.name, err)
		}
		msg := err.Error()
		for _, w := range []string{"tcp-ao algorithm " + c.name + " is not offered by this kernel (Linux 7.2.0)", c.kernel, "ENOENT"} {
			if !strings.Contains(msg, w) {
				t.Errorf("Check(%s): %q lacks %q", c.name, msg, w)
			}
		}
		if strings.Contains(msg, string(probeSecret)) {
			t.Errorf("Check(%s): the probe's key in %q", c.name, msg)
		}
	}
	if err := a.Check("hmac-md5"); !errors.Is(err, tcpao.ErrAlgorithm) || errors.Is(err, ErrAOAlgorithm) {
		t.Errorf("Check(hmac-md5): %v", err)
	}

	// No TCP-AO at all: the first answer ends the probe, nothing is known
	// and nothing is refused (CheckTCPAO's verdict holds TCP-AO peers).
	asked = nil
	none := probeAO("6.18.0", func(name string) error {
		asked = append(asked, name)
		return fmt.Errorf("%w: protocol not available", ErrNoTCPAO)
	})
	if !errors.Is(none.Err, ErrNoTCPAO) || none.Probed() || len(asked) != 1 || len(none.Accepted)+len(none.Refused) != 0 || none.Check("hmac-sha-512") != nil {
		t.Errorf("no TCP-AO: %+v after %q", none, asked)
	}

	// A question that could not be asked is unknown, not refused.
	part := probeAO("6.12.0", func(name string) error {
		if name == "hmac(sha384)" {
			return fmt.Errorf("%w: socket: too many open files", errAOProbe)
		}
		return nil
	})
	if len(part.Accepted) != 5 || len(part.Refused) != 0 || part.Unknown[tcpao.HMACSHA384] == nil || part.Check("hmac-sha-384") != nil {
		t.Errorf("a failed question: %+v", part)
	}
}

// TestAOAlgorithmErrorUnknownRelease: without uname's release the error
// says so rather than "Linux ".
func TestAOAlgorithmErrorUnknownRelease(t *testing.T) {
	e := &AOAlgorithmError{Name: "hmac-sha-512", Alg: tcpao.HMACSHA512, Err: errors.New("EINVAL")}
	if s := e.Error(); !strings.Contains(s, "(Linux release unknown)") {
		t.Error(s)
	}
}
