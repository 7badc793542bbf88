package aocount

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestAdd(t *testing.T) {
	a := Counts{Good: 1, Bad: 2, KeyNotFound: 3, AORequired: 4, DroppedICMP: 5}
	b := Counts{Good: 10, Bad: 20, KeyNotFound: 30, AORequired: 40, DroppedICMP: 50}
	if got, want := a.Add(b), (Counts{Good: 11, Bad: 22, KeyNotFound: 33, AORequired: 44, DroppedICMP: 55}); got != want {
		t.Fatalf("Add = %+v, want %+v", got, want)
	}
	if got := a.Add(Counts{}); got != a {
		t.Fatalf("Add(zero) = %+v, want %+v", got, a)
	}
}

// TestDelta: the growth of each field; a field below its previous value
// (a new connection, counting from 0) counts whole.
func TestDelta(t *testing.T) {
	for _, c := range []struct {
		name            string
		now, prev, want Counts
	}{
		{"growth", Counts{Good: 10, Bad: 3, DroppedICMP: 7}, Counts{Good: 4, Bad: 1, DroppedICMP: 7}, Counts{Good: 6, Bad: 2}},
		{"reset counts from 0", Counts{Good: 2, KeyNotFound: 1}, Counts{Good: 9}, Counts{Good: 2, KeyNotFound: 1}},
		{"from zero", Counts{AORequired: 5}, Counts{}, Counts{AORequired: 5}},
		{"unchanged", Counts{Good: 5, Bad: 5}, Counts{Good: 5, Bad: 5}, Counts{}},
		{"max", Counts{Good: 1<<64 - 1}, Counts{Good: 1}, Counts{Good: 1<<64 - 2}},
	} {
		if got := c.now.Delta(c.prev); got != c.want {
			t.Errorf("%s: %+v.Delta(%+v) = %+v, want %+v", c.name, c.now, c.prev, got, c.want)
		}
	}
	// Summing the deltas of a connection's reads gives its last read.
	reads := []Counts{{Good: 1}, {Good: 4, Bad: 1}, {Good: 9, Bad: 1, AORequired: 2}}
	var sum, last Counts
	for _, r := range reads {
		sum = sum.Add(r.Delta(last))
		last = r
	}
	if sum != last {
		t.Fatalf("sum of deltas %+v, want %+v", sum, last)
	}
}

// TestJSONNames: the /status contract: good, bad, key_not_found,
// ao_required, dropped_icmp, each present when zero; Each names the
// fields alike, in the same order.
func TestJSONNames(t *testing.T) {
	b, err := json.Marshal(Counts{Good: 1, Bad: 2, KeyNotFound: 3, AORequired: 4, DroppedICMP: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"good":1,"bad":2,"key_not_found":3,"ao_required":4,"dropped_icmp":5}`; got != want {
		t.Fatalf("JSON %s, want %s", got, want)
	}
	if b, _ := json.Marshal(Counts{}); string(b) != `{"good":0,"bad":0,"key_not_found":0,"ao_required":0,"dropped_icmp":0}` {
		t.Fatalf("zero JSON %s", b)
	}
	var names []string
	var vals []uint64
	Counts{Good: 1, Bad: 2, KeyNotFound: 3, AORequired: 4, DroppedICMP: 5}.Each(func(n string, v uint64) {
		names = append(names, n)
		vals = append(vals, v)
	})
	typ := reflect.TypeFor[Counts]()
	if len(names) != typ.NumField() {
		t.Fatalf("Each gave %d counters, the type has %d fields", len(names), typ.NumField())
	}
	for i := range typ.NumField() {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if names[i] != tag || vals[i] != uint64(i+1) {
			t.Errorf("Each #%d = %s %d, want %s %d (field %s)", i, names[i], vals[i], tag, i+1, typ.Field(i).Name)
		}
	}
}
