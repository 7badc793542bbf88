package plugin

import (
	"errors"
	"net/netip"
	"syscall"
	"testing"
)

// TestListenControl: GoBGP's listener Control reaches the hook with the
// instance's VRF and the listening address parsed (unmapped); the hook's
// error is the listener's; with no hook set, the listener goes on.
func TestListenControl(t *testing.T) {
	h := &Host{}
	if err := h.listenControlIn("")("tcp4", "0.0.0.0:179", nil); err != nil {
		t.Fatalf("no hook: %v", err)
	}
	refused := errors.New("refused")
	var gotV string
	var gotL netip.AddrPort
	h.OnListen(func(vrf string, local netip.AddrPort, _ syscall.RawConn) error {
		gotV, gotL = vrf, local
		return refused
	})
	if err := h.listenControlIn("blue")("tcp6", "[::ffff:192.0.2.1]:179", nil); !errors.Is(err, refused) {
		t.Fatalf("the hook's error: %v", err)
	}
	if gotV != "blue" || gotL != netip.MustParseAddrPort("192.0.2.1:179") {
		t.Fatalf("hook got %q %v", gotV, gotL)
	}
	if err := h.listenControlIn("")("tcp4", "not-an-address", nil); err == nil {
		t.Fatal("an address that does not parse must abort the listener")
	}
}
