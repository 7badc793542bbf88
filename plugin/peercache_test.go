package plugin

import (
	"testing"
	"time"
)

// TestAdvertisedDue: the advertised counts are taken again after 50 times
// their cost, at least every second and at most every 5 minutes.
func TestAdvertisedDue(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		cost, age time.Duration
		due       bool
	}{
		{time.Millisecond, 900 * time.Millisecond, false},
		{time.Millisecond, time.Second, true},
		{2 * time.Second, 99 * time.Second, false},
		{2 * time.Second, 100 * time.Second, true},
		{time.Minute, 4 * time.Minute, false},
		{time.Minute, 5 * time.Minute, true},
	} {
		s := &peerSnapshot{adv: map[advKey]uint64{}, advAt: t0, advCost: c.cost}
		if got := s.advertisedDue(t0.Add(c.age)); got != c.due {
			t.Errorf("cost %v, age %v: due %v, want %v", c.cost, c.age, got, c.due)
		}
	}
	if !(&peerSnapshot{}).advertisedDue(t0) {
		t.Error("no counts yet: not due")
	}
}
