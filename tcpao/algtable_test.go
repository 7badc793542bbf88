package tcpao

import (
	"slices"
	"strings"
	"testing"
)

// TestAlgorithmTable: the table's rows are in the constants' order from 1
// (row relies on it), every name is one row's only, every name and Linux
// name parses to its row, an HMAC's digest is its hash's size, and
// ConfigNames has every name once, the "-96" ones first.
func TestAlgorithmTable(t *testing.T) {
	seen := map[string]Algorithm{}
	for i, r := range algorithmTable {
		if int(r.alg) != i+1 || r.alg.row() != i {
			t.Fatalf("row %d is algorithm %d: rows must follow the constants from 1", i, r.alg)
		}
		if r.alg.String() != r.names[0] || r.alg.LinuxName() != r.linux || r.alg.DigestSize() != r.digest {
			t.Errorf("%v: String %q, LinuxName %q, DigestSize %d from its row", r.alg, r.alg.String(), r.alg.LinuxName(), r.alg.DigestSize())
		}
		if r.hash != nil && r.hash().Size() != r.digest {
			t.Errorf("%v: digest %d, its hash's size %d", r.alg, r.digest, r.hash().Size())
		}
		for _, n := range append(append(slices.Clone(r.names), r.linux), r.aliases...) {
			if other, ok := seen[n]; ok && other != r.alg {
				t.Errorf("name %q is %v's and %v's", n, other, r.alg)
			}
			seen[n] = r.alg
			for _, c := range []string{n, strings.ToUpper(n)} {
				if a, err := ParseAlgorithm(c); err != nil || a != r.alg {
					t.Errorf("ParseAlgorithm(%q) = %v, %v; want %v", c, a, err, r.alg)
				}
			}
		}
	}
	names := ConfigNames()
	want := 0
	for _, r := range algorithmTable {
		want += len(r.names)
	}
	if len(names) != want {
		t.Fatalf("ConfigNames %v: %d names, the table has %d", names, len(names), want)
	}
	for i, n := range names {
		if strings.HasSuffix(n, "-96") && i > 0 && !strings.HasSuffix(names[i-1], "-96") {
			t.Fatalf("ConfigNames %v: a -96 name after another", names)
		}
	}
	if Algorithm(0).Valid() || Algorithm(len(algorithmTable)+1).Valid() || Algorithm(0).String() != "algorithm(0)" {
		t.Fatal("an algorithm outside the table is valid")
	}
}
