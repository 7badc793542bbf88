// Package e2e holds end-to-end tests: network-namespace topologies with real
// BGP speakers (FRR bgpd, Debian's gobgpd, BIRD 2, ExaBGP) and, later,
// authbgpd itself, plus the containerlab topology files users run.
//
// The package has no non-test code. Its tests need root (namespaces, veth
// pairs, TCP-MD5 keys, packet capture) and the Debian packages frr, gobgpd,
// bird2, exabgp and tcpdump; without them they skip with the reason, or fail
// when E2E_REQUIRED=1.
//
// peers_test.go has the helpers that start those speakers in a namespace
// (StartFRR, StartGoBGP, StartBIRD, StartExaBGP, all from one PeerConfig) and
// wait for their sessions (WaitSession). md5oracle_test.go checks md5auth's
// RFC 2385 verdicts against tcpdump -M on real FRR <-> gobgpd traffic; with
// UPDATE_CAPTURES=1 it refreshes the captures in testdata/, which other
// packages use as fuzz seeds.
package e2e
