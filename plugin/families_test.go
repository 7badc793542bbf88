package plugin

import "testing"

func TestNegotiatedFamilies(t *testing.T) {
	if f := NegotiatedFamilies(nil); f != nil {
		t.Errorf("nil state: %v", f)
	}
}
