package keys

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const distinctiveSecret = "Zebra-Quokka-7731"

type holder struct {
	Name   string
	Secret Secret
}

func TestSecretNeverFormats(t *testing.T) {
	s := Secret(distinctiveSecret)
	h := holder{"a", s}
	hexed := fmt.Sprintf("%x", distinctiveSecret)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v", "%10s", "%-8q"} {
		for _, v := range []any{s, &s, h, &h, []Secret{s}, map[string]Secret{"a": s}, []holder{h}} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, distinctiveSecret) || strings.Contains(strings.ToLower(out), hexed) {
				t.Fatalf("%s of %T leaks: %s", verb, v, out)
			}
		}
	}
	if s.String() != Redacted || s.GoString() != "keys.Secret(<redacted>)" {
		t.Fatalf("String %q GoString %q", s.String(), s.GoString())
	}
	if b, _ := s.MarshalText(); string(b) != Redacted {
		t.Fatalf("MarshalText = %q", b)
	}
	b, err := json.Marshal(h)
	var back map[string]string
	if err != nil || strings.Contains(string(b), distinctiveSecret) || json.Unmarshal(b, &back) != nil || back["Secret"] != Redacted {
		t.Fatalf("json = %s, %v", b, err)
	}
}

func TestSecretEqual(t *testing.T) {
	cases := []struct {
		a, b Secret
		want bool
	}{
		{Secret("abc"), Secret("abc"), true},
		{Secret("abc"), Secret("abd"), false},
		{Secret("abc"), Secret("abcd"), false},
		{nil, Secret{}, true},
		{nil, Secret("a"), false},
	}
	for _, c := range cases {
		if got := c.a.Equal(c.b); got != c.want {
			t.Errorf("%q.Equal(%q) = %v, want %v", string(c.a), string(c.b), got, c.want)
		}
	}
}

func TestSecretWipe(t *testing.T) {
	buf := []byte(distinctiveSecret)
	s := Secret(buf)
	s.Wipe()
	if len(s) != len(distinctiveSecret) {
		t.Fatalf("Wipe changed the length to %d", len(s))
	}
	for i, c := range buf {
		if c != 0 {
			t.Fatalf("byte %d not wiped", i)
		}
	}
	Secret(nil).Wipe() // no panic
}
