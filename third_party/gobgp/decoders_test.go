package gobgp_test

import (
	"testing"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
)

// TestDecodersRefuseShortInput holds decoder fixes that no message sent to a
// session reaches as they are (their callers check the length first), by
// calling the decoder itself: each must return an error, never panic.
func TestDecodersRefuseShortInput(t *testing.T) {
	for _, tc := range []struct {
		name, source string
		decode       func() error
	}{
		{"ParseIP6Extended of 8 bytes", "CVE-2026-37461 (fix 362cce3e, patch 0012)", func() error {
			_, err := bgp.ParseIP6Extended([]byte{0, 2, 0, 0, 0, 0, 0, 1})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panicked: %v", tc.source, r)
				}
			}()
			if err := tc.decode(); err == nil {
				t.Fatalf("%s: no error", tc.source)
			}
		})
	}
}
