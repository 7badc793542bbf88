//go:build linux

package netns

import "testing"

// End is one end of a veth link: the namespace (its short name, as given to
// Add), the interface name in it and its addresses (CIDR, IPv4 or IPv6).
type End struct {
	NS    string
	If    string
	Addrs []string
}

// Pair is a topology of two namespaces joined by one veth link. A and B are
// the namespaces' full names (what Exec, Do and "ip -n" take).
type Pair struct {
	*Topology
	A, B string
}

// NewPair creates a topology (New(t, tag)) with namespaces a.NS and b.NS
// joined by a veth pair named a.If and b.If, with the ends' addresses.
func NewPair(t testing.TB, tag string, a, b End) *Pair {
	t.Helper()
	tp := New(t, tag)
	p := &Pair{Topology: tp, A: tp.Add(a.NS), B: tp.Add(b.NS)}
	tp.Link(p.A, a.If, a.Addrs, p.B, b.If, b.Addrs)
	return p
}
