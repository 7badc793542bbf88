// Package e2e holds end-to-end tests: network-namespace topologies in which
// authbgpd (built from this module by the tests) runs against real BGP
// speakers (FRR bgpd, Debian's gobgpd, BIRD 2, ExaBGP), plus the
// containerlab topology files users run (clab/) and the tests that deploy
// them.
//
// The package has no non-test code. Its tests need root (namespaces, veth
// pairs, TCP-MD5 keys, packet capture) and the Debian packages frr, gobgpd,
// bird2, exabgp and tcpdump; without them they skip with the reason, or fail
// when E2E_REQUIRED=1.
//
// harness_test.go has what every test shares: the two-namespace topology
// (newPair, on internal/netns's Pair), waitFor and the /status waits
// (waitPeer, waitShadow, waitDiagnosis), and the authbgpd config builder
// (abConf, abPeer). authbgpd_test.go builds and starts authbgpd
// (StartAuthbgpd); peers_test.go starts the other speakers in a namespace
// (StartFRR, StartGoBGP, StartBIRD, StartExaBGP, all from one PeerConfig)
// and waits for their sessions (WaitSession); tcpdump_test.go runs the
// captures. md5oracle_test.go checks md5auth's RFC 2385 verdicts against
// tcpdump -M on real FRR <-> gobgpd traffic; with UPDATE_CAPTURES=1 it
// refreshes the captures in testdata/, which other packages use as fuzz
// seeds.
package e2e
