package tcpao

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestFuzzSeeds keeps the committed seed corpora (testdata/fuzz) equal to
// what the RFC 9235 vectors give: tcpopt's FuzzParse gets the option list
// of each of the 32 segments (with the old FuzzParseOptions' own seeds, in
// ../tcpopt/testdata/fuzz/FuzzParse/tcpao-*), FuzzVerify each segment,
// FuzzSNE each direction's ISN and segments.
// Regenerate with TCPAO_WRITE_SEEDS=1 go test -run TestFuzzSeeds ./tcpao.
// parseSeeds is where tcpopt's FuzzParse corpus is, relative to testdata/fuzz.
var parseSeeds = filepath.Join("..", "..", "..", "tcpopt", "testdata", "fuzz", "FuzzParse")

func TestFuzzSeeds(t *testing.T) {
	want := map[string][]byte{}
	i := 0
	for _, g := range rfc9235 {
		for _, v := range g.vectors {
			opts := rfcOptionLists(t)[i]
			seg := rfcSegments(t)[i]
			i++
			want[filepath.Join(parseSeeds, "tcpao-rfc9235-"+v.section)] = []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", opts))
			want[filepath.Join("FuzzVerify", "rfc9235-"+v.section)] = []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbool(%v)\nuint32(0)\n", seg.TCP, g.ipv6))
		}
	}
	for i, opts := range [][]byte{nil, aoOpt, linuxSYN, md5Opt, {OptNOP}, {OptAO}, {OptAO, 4, 0, 0}} {
		want[filepath.Join(parseSeeds, fmt.Sprintf("tcpao-%d", i))] = []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", opts))
	}
	for _, s := range rfcSNESeeds() {
		want[filepath.Join("FuzzSNE", s.name)] = []byte(fmt.Sprintf("go test fuzz v1\nuint32(%d)\n[]byte(%q)\n", s.isn, s.steps))
	}
	write := os.Getenv("TCPAO_WRITE_SEEDS") == "1"
	for name, content := range want {
		path := filepath.Join("testdata", "fuzz", name)
		if write {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, content) {
			t.Errorf("%s is missing or stale (%v); regenerate with TCPAO_WRITE_SEEDS=1", path, err)
		}
	}
	if len(want) != 32+7+32+16 {
		t.Fatalf("%d seeds", len(want))
	}
}
