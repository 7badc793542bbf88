package metrics

import (
	"fmt"
	"testing"
)

// BenchmarkScrapePeers: one scrape of the peer collector's series at 1,000
// configured peers with two families each (the reader's answer given).
func BenchmarkScrapePeers(b *testing.B) {
	peers := make([]PeerState, 1000)
	for i := range peers {
		peers[i] = PeerState{Peer: fmt.Sprintf("192.0.%d.%d", i/250, i%250+1), Up: true,
			Prefixes:            []FamilyPrefixes{{Family: "ipv4-unicast", Received: 10, Accepted: 10, Sent: 3}, {Family: "ipv6-unicast", Received: 5}},
			MaxPrefixesExceeded: uint64(i % 3)}
	}
	m := New("bench")
	if err := m.ReadPeers(func() ([]PeerState, error) { return peers, nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Registry().Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
