package keys

import (
	"testing"
	"time"
)

func day(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }

// chain: key 1 always, key 2 from day 10, key 3 from day 20 (listed out of
// order on purpose).
var chain = Schedule{{ID: 3, SendFrom: day(20)}, {ID: 1}, {ID: 2, SendFrom: day(10)}}

// future: every key starts later than day 10.
var future = Schedule{{ID: 5, SendFrom: day(10)}, {ID: 6, SendFrom: day(20)}}

// pinCase is a schedule, a time and a pin.
type pinCase struct {
	name string
	s    Schedule
	t    time.Time
	pin  int
}

func idAt(s Schedule, i int) int {
	if i < 0 {
		return -1
	}
	return s[i].ID
}

func TestActive(t *testing.T) {
	tied := Schedule{{ID: 7, SendFrom: day(10)}, {ID: 8, SendFrom: day(10)}}
	cases := []struct {
		pinCase
		want int // key id, -1: none
	}{
		{pinCase{"start", chain, day(1), -1}, 1},
		{pinCase{"just before", chain, day(10).Add(-time.Nanosecond), -1}, 1},
		{pinCase{"send-from is inclusive", chain, day(10), -1}, 2},
		{pinCase{"between", chain, day(15), -1}, 2},
		{pinCase{"last", chain, day(20), -1}, 3},
		{pinCase{"long after", chain, day(31), -1}, 3},
		{pinCase{"pinned ahead", chain, day(1), 3}, 3},
		{pinCase{"pinned behind wins too", chain, day(25), 1}, 1},
		{pinCase{"pin not in chain", chain, day(15), 9}, 2},
		{pinCase{"pin to the scheduled key", chain, day(15), 2}, 2},
		{pinCase{"all in the future", future, day(1), -1}, -1},
		{pinCase{"all in the future, pinned", future, day(1), 6}, 6},
		{pinCase{"future reached", future, day(21), -1}, 6},
		{pinCase{"empty", nil, day(1), -1}, -1},
		{pinCase{"empty pinned", nil, day(1), 1}, -1},
		{pinCase{"tie: first listed", tied, day(11), -1}, 7},
		{pinCase{"password id -1 is not a pin", Schedule{{ID: -1}}, day(1), -1}, -1},
	}
	for _, c := range cases {
		if got := idAt(c.s, c.s.Active(c.t, c.pin)); got != c.want {
			t.Errorf("%s: Active(%v, %d) = key %d, want %d", c.name, c.t, c.pin, got, c.want)
		}
	}
	// A lone password (id -1, no send-from) is the schedule's choice.
	if i := (Schedule{{ID: -1}}).Active(day(1), -1); i != 0 {
		t.Errorf("password schedule: Active = %d, want 0", i)
	}
}

func TestAhead(t *testing.T) {
	cases := []struct {
		pinCase
		want bool
	}{
		{pinCase{"no pin", chain, day(1), -1}, false},
		{pinCase{"newer than the schedule", chain, day(1), 2}, true},
		{pinCase{"two ahead", chain, day(1), 3}, true},
		{pinCase{"schedule reached it", chain, day(10), 2}, false},
		{pinCase{"schedule passed it", chain, day(20), 2}, false},
		{pinCase{"older than the schedule", chain, day(15), 1}, false},
		{pinCase{"left the chain", chain, day(1), 9}, false},
		{pinCase{"schedule has nothing yet", future, day(1), 5}, true},
		{pinCase{"schedule has nothing yet, later key", future, day(1), 6}, true},
		{pinCase{"empty", nil, day(1), 1}, false},
	}
	for _, c := range cases {
		if got := c.s.Ahead(c.t, c.pin); got != c.want {
			t.Errorf("%s: Ahead(%v, %d) = %v, want %v", c.name, c.t, c.pin, got, c.want)
		}
	}
}

func TestNextSwitch(t *testing.T) {
	cases := []struct {
		s    Schedule
		t    time.Time
		want time.Time // zero: none
	}{
		{chain, day(1), day(10)},
		{chain, day(10).Add(-time.Nanosecond), day(10)},
		{chain, day(10), day(20)}, // strictly after
		{chain, day(20), time.Time{}},
		{Schedule{{ID: 1}}, day(1), time.Time{}},
		{nil, day(1), time.Time{}},
	}
	for _, c := range cases {
		next, ok := c.s.NextSwitch(c.t)
		if ok != !c.want.IsZero() || !next.Equal(c.want) {
			t.Errorf("NextSwitch(%v) = %v %v, want %v", c.t, next, ok, c.want)
		}
	}
}

func TestNewerAndStartsAfter(t *testing.T) {
	cases := []struct {
		id, than int
		want     bool
	}{
		{2, 1, true},
		{3, 2, true},
		{1, 2, false},
		{2, 2, false},
		{9, 1, false}, // unknown id: never newer
		{1, 9, true},  // unknown than: older than every key
		{9, 9, false},
	}
	for _, c := range cases {
		if got := chain.Newer(c.id, c.than); got != c.want {
			t.Errorf("Newer(%d, %d) = %v, want %v", c.id, c.than, got, c.want)
		}
	}
	if !chain.StartsAfter(3, day(19)) || chain.StartsAfter(3, day(20)) || chain.StartsAfter(1, day(1).AddDate(-10, 0, 0)) || chain.StartsAfter(9, day(1)) {
		t.Errorf("StartsAfter wrong")
	}
	if chain.Index(2) != 2 || chain.Index(9) != -1 {
		t.Errorf("Index wrong")
	}
}

func TestScheduleZeroAllocs(t *testing.T) {
	now := day(15)
	if n := testing.AllocsPerRun(100, func() {
		_ = chain.Active(now, 3)
		_ = chain.Ahead(now, 3)
		_, _ = chain.NextSwitch(now)
		_ = chain.Newer(3, 2)
	}); n != 0 {
		t.Fatalf("schedule allocates %v times", n)
	}
}
