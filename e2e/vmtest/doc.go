// Package vmtest holds tests that run inside the TCP-AO VM (scripts/vm.sh:
// a Linux 6.12 guest built with TCP_AO, TCP_MD5SIG, NET_VRF and SEG6 HMAC,
// whose root filesystem is the host's, read-only). `make vmtest` builds the
// test binary on the host (go test -c) and runs it in the guest.
//
// Anywhere else every test skips with "not in the TCP-AO VM; run make
// vmtest", so `go test ./...` on the host stays green. In the guest, a
// missing kernel feature is a failure (the VM exists to have it), and a
// missing program (FRR, ExaBGP, tcpdump) skips, or fails with
// E2E_REQUIRED=1.
//
// The guest tests prove the guest is what TCP-AO work needs, by measuring
// it: TCP-AO sessions with hmac(sha1) and cmac(aes128) between two network
// namespaces (kernel counters and per-socket TCP_AO_INFO counters), the
// refusal of a client without the key or with a wrong one, VRF devices,
// the tcp_ao tracepoints, and the peers the BGP tests use. The BGP tests
// run the daemon (bin/authbgpd, built by make vmtest) against real peers
// speaking TCP-AO: ExaBGP with its MD5() replaced (exabgp_ao.py) and FRR
// through an LD_PRELOAD shim (testdata/ao_preload.c): sessions up with both
// algorithms, v4 and v6, a static peer and a range; wrong keys, unsigned
// peers, unknown KeyIDs and an options mismatch held out and diagnosed;
// scheduled and reloaded key changes without a reset; MD5 <-> TCP-AO
// migration; every MAC of the capture re-checked by verify-pcap and scapy;
// unsigned and TCP-MD5 SYN floods from a TCP-AO peer's address unanswered.
// authbgpd dials its TCP-AO peers too (the carried GoBGP's dial hook signs
// the SYN): two authbgpd routers with TCP-AO for each other, neither
// passive, come up at once, change keys on both sides by send-from and by
// reload without a reset, re-dial a killed and restarted router within
// connect-retry, and keep one connection when both dial at once
// (TestBGPTCPAOTwoRouters); authbgpd dials a passive ExaBGP whose listener
// carries the MKTs (TestBGPTCPAOPassiveFarEnd). Their captures hold no
// unsigned segment from an authbgpd, SYNs included, and scapy and
// verify-pcap verify every MAC both ways, whoever dialed.
// The guest kernel has BTF, so package kdrops counts the kernel's TCP-AO
// drops per peer there (TestKernelDropsAO, and kernel_drops of the
// held-out ExaBGP peers): the host's kernel has no TCP-AO tracepoints to
// fire. The TCP-AO soak (TestBGPTCPAOSoak; 60 s here, VMSOAK_SECONDS with make
// soak-vm) cycles key changes on both ends, peer restarts, wrong-key peers
// and flaps under a constant SYN flood from the peers' addresses, beside an
// authbgpd-authbgpd session: no flood SYN answered, none of the routers'
// segments unsigned or invalid. The SNE (RFC 5925 sequence number
// extension) test (TestTCPAOSNEWrap; VMSOAK_WRAP=1, with make soak-vm)
// carries 4 GiB + 64 MiB each way over a kernel TCP-AO session, so both
// directions cross the 2^32 sequence wrap: the live checker verifies every
// segment it sees, those past each wrap among them, and verify-pcap every
// segment of tcpdump windows no more than 1 GiB apart, around each wrap.
package vmtest
