package plugin

import (
	"context"
	"errors"
	"testing"
)

type recService struct {
	started, stopped int
	err              error
}

func (r *recService) Name() string                { return "rec" }
func (r *recService) Start(context.Context) error { r.started++; return r.err }
func (r *recService) Stop(context.Context) error  { r.stopped++; return nil }

// TestDetached: a Service registered through Detached is started and
// stopped as a plugin, its name and Start's error kept.
func TestDetached(t *testing.T) {
	boom := errors.New("boom")
	r := &recService{err: boom}
	p := Detached(r)
	if p.Name() != "rec" {
		t.Fatalf("name %q", p.Name())
	}
	if err := p.Start(context.Background(), nil); !errors.Is(err, boom) || r.started != 1 {
		t.Fatalf("Start: %v, started %d", err, r.started)
	}
	if err := p.Stop(context.Background()); err != nil || r.stopped != 1 {
		t.Fatalf("Stop: %v, stopped %d", err, r.stopped)
	}
}
