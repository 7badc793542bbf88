package plugin

import (
	"context"
	"errors"
	"net/netip"
	"syscall"
	"testing"
)

// TestDialControl: GoBGP's dial Control reaches the hook with the
// instance's VRF, the neighbor and the dialed address parsed; with RequireDialHook and no hook set, the
// dial is refused (GoBGP holds no keys: an unhooked dial would go out
// unsigned); the hook's error is the dial's.
func TestDialControl(t *testing.T) {
	ctx := context.Background()
	h := &Host{opts: Options{RequireDialHook: true}}
	if err := h.dialControlIn("")(ctx, "192.0.2.2", "tcp4", "192.0.2.2:179", nil); !errors.Is(err, ErrNoDialHook) {
		t.Fatalf("no hook: %v, want ErrNoDialHook", err)
	}
	if err := (&Host{}).dialControlIn("")(ctx, "192.0.2.2", "tcp4", "192.0.2.2:179", nil); err != nil {
		t.Fatalf("no hook, not required: %v", err)
	}
	refused := errors.New("refused")
	var gotV string
	var gotN netip.Addr
	var gotR netip.AddrPort
	h.OnDial(func(_ context.Context, vrf string, n netip.Addr, r netip.AddrPort, _ syscall.RawConn) error {
		gotV, gotN, gotR = vrf, n, r
		return refused
	})
	if err := h.dialControlIn("")(ctx, "::ffff:192.0.2.2", "tcp6", "[::ffff:192.0.2.2]:179", nil); !errors.Is(err, refused) {
		t.Fatalf("hook's error: %v", err)
	}
	if gotV != "" || gotN != netip.MustParseAddr("192.0.2.2") || gotR.Port() != 179 {
		t.Fatalf("hook got %q %v %v", gotV, gotN, gotR)
	}
	// The same address dialed by VRF blue's instance: the hook is told so.
	if err := h.dialControlIn("blue")(ctx, "192.0.2.2", "tcp4", "192.0.2.2:179", nil); !errors.Is(err, refused) || gotV != "blue" || gotN != netip.MustParseAddr("192.0.2.2") {
		t.Fatalf("blue's dial: %v; hook got %q %v", err, gotV, gotN)
	}
	if err := h.dialControlIn("")(ctx, "not-an-address", "tcp4", "192.0.2.2:179", nil); err == nil {
		t.Fatal("a neighbor that is no address must refuse the dial")
	}
}
