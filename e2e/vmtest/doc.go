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
// For now the tests prove the guest is what TCP-AO work needs, by
// measuring it: TCP-AO sessions with hmac(sha1) and cmac(aes128) between
// two network namespaces (kernel counters and per-socket TCP_AO_INFO
// counters), the refusal of a client without the key or with a wrong one,
// VRF devices, the tcp_ao tracepoints, and the peers later tests use.
package vmtest
