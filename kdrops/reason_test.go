package kdrops

import (
	"slices"
	"testing"
)

func TestReasonNames(t *testing.T) {
	want := map[Reason]string{
		BadDigest:     "bad_digest",
		Missing:       "missing",
		Unexpected:    "unexpected",
		BadOption:     "bad_option",
		AOBad:         "ao_bad",
		AOKeyNotFound: "ao_key_not_found",
		AORequired:    "ao_required",
	}
	all := Reasons()
	if len(all) != len(want) || len(all) != numReasons-1 {
		t.Fatalf("Reasons() = %v, want the %d reasons", all, len(want))
	}
	for _, r := range all {
		if got := r.String(); got != want[r] {
			t.Errorf("Reason(%d).String() = %q, want %q", r, got, want[r])
		}
		if p, ok := ParseReason(r.String()); !ok || p != r {
			t.Errorf("ParseReason(%q) = %v, %v", r.String(), p, ok)
		}
		if !r.Valid() {
			t.Errorf("%v not valid", r)
		}
	}
	wantOrder := []Reason{BadDigest, Missing, Unexpected, BadOption, AOBad, AOKeyNotFound, AORequired}
	if !slices.Equal(all, wantOrder) {
		t.Errorf("Reasons() = %v, want %v", all, wantOrder)
	}
	for _, r := range []Reason{0, numReasons, 255} {
		if r.Valid() {
			t.Errorf("Reason(%d) valid", r)
		}
		if got, want := r.String(), "reason("; len(got) < len(want) || got[:len(want)] != want {
			t.Errorf("Reason(%d).String() = %q", r, got)
		}
	}
	if _, ok := ParseReason("reason(0)"); ok {
		t.Error(`ParseReason("reason(0)") ok`)
	}
	md5 := MD5Reasons()
	if !slices.Equal(md5, []Reason{BadDigest, Missing, Unexpected, BadOption}) {
		t.Errorf("MD5Reasons() = %v", md5)
	}
}

func TestTracepointReason(t *testing.T) {
	for _, c := range []struct {
		name string
		want Reason
		ok   bool
	}{
		{"tcp_hash_md5_mismatch", BadDigest, true},
		{"tcp:tcp_hash_md5_mismatch", BadDigest, true},
		{"tcp_hash_md5_required", Missing, true},
		{"tcp_hash_md5_unexpected", Unexpected, true},
		{"tcp_hash_bad_header", BadOption, true},
		{"tcp_ao_wrong_maclen", BadOption, true},
		{"tcp_ao_mismatch", AOBad, true},
		{"tcp_ao_handshake_failure", AOBad, true},
		{"tcp_ao_key_not_found", AOKeyNotFound, true},
		{"tcp_hash_ao_required", AORequired, true},
		// Not drops.
		{"tcp_ao_rnext_request", 0, false},
		{"tcp_ao_synack_no_key", 0, false},
		{"tcp_retransmit_skb", 0, false},
		{"", 0, false},
		{"tcp:", 0, false},
	} {
		got, ok := tracepointReason(c.name)
		if got != c.want || ok != c.ok {
			t.Errorf("tracepointReason(%q) = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	// Every reason has a tracepoint, every tracepoint a valid reason,
	// and exactly the tcp_hash_* MD5 ones are required.
	seen := map[Reason]bool{}
	for _, tp := range tracepoints {
		if !tp.reason.Valid() {
			t.Errorf("tracepoint %s: invalid reason %v", tp.name, tp.reason)
		}
		seen[tp.reason] = true
		wantReq := slices.Contains(MD5Reasons(), tp.reason) && tp.name[:9] == "tcp_hash_"
		if tp.required != wantReq {
			t.Errorf("tracepoint %s: required = %v, want %v", tp.name, tp.required, wantReq)
		}
	}
	for _, r := range Reasons() {
		if !seen[r] {
			t.Errorf("no tracepoint counts %v", r)
		}
	}
}
