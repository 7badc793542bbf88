# authbgpd — see README.md.
.PHONY: all build image test quickstart bench fuzz soak soak-vm clean vmtest

all: build

build:
	CGO_ENABLED=0 go build -trimpath -o bin/authbgpd ./cmd/authbgpd

# The container image authbgpd:latest (Dockerfile), with docker if an engine
# answers, else podman (base images made locally when no registry is reachable).
image:
	bash scripts/images.sh

# Every test: installs missing test dependencies (root), vet, race tests,
# privileged and end-to-end tests.
test:
	bash scripts/test.sh

# The tests that need a kernel with TCP-AO and VRF (e2e/vmtest), in a
# Linux 6.12 VM (scripts/vm.sh; root; the first run builds its kernel, about
# 6 minutes). The test binary is built here and run in the guest, and so are
# tcpsock's, netdev's and srv6policy's, which it runs there (TestTCPSockInGuest,
# TestNetdevInGuest, TestSRv6PolicyInGuest: their VRF, TCP-AO and SRv6 HMAC
# tests skip on a host kernel without them).
VMTEST_FLAGS ?=
vmtest:
	bash scripts/deps.sh
	CGO_ENABLED=0 go build -trimpath -o bin/authbgpd ./cmd/authbgpd
	CGO_ENABLED=0 go test -c -o bin/vmtest.test ./e2e/vmtest
	CGO_ENABLED=0 go test -c -o bin/tcpsock.test ./tcpsock
	CGO_ENABLED=0 go test -c -o bin/netdev.test ./netdev
	CGO_ENABLED=0 go test -c -o bin/srv6policy.test ./srv6policy
	bash scripts/vm.sh bin/vmtest.test -test.v -test.count=1 -test.timeout=20m $(VMTEST_FLAGS)

# The TCP-AO soak in the VM (root): TestBGPTCPAOSoak for VMSOAK_SECONDS
# (default 600) with its figures printed (make vmtest runs it for 60 s),
# then TestTCPAOSNEWrap: a kernel TCP-AO session of more than 4 GiB each
# way, past the sequence number wrap, through the live checker and
# verify-pcap (about 7 minutes without KVM; make vmtest skips it).
soak-vm:
	VMSOAK_SECONDS=$${VMSOAK_SECONDS:-600} $(MAKE) vmtest VMTEST_FLAGS='-test.run=TestBGPTCPAOSoak -test.timeout=90m'
	VMSOAK_WRAP=1 $(MAKE) vmtest VMTEST_FLAGS='-test.run=TestTCPAOSNEWrap -test.timeout=30m'

quickstart:
	bash scripts/quickstart.sh

# Micro-benchmarks and the BGP benchmarks (100k prefixes, 200 peers; root).
bench:
	bash scripts/bench.sh

# The fault soak (root): TestSoak for SOAK_SECONDS (default 300) with its
# figures printed; `go test ./...` runs a bounded version (one cycle, ~50 s).
soak:
	SOAK_SECONDS=$${SOAK_SECONDS:-300} go test -count=1 -v -run '^TestSoak$$' -timeout 30m ./e2e/

# Short fuzzing runs of every fuzz target (set FUZZTIME to change; FUZZFLAGS
# adds go test flags, e.g. FUZZFLAGS='-parallel 1' on a shared machine).
FUZZTIME ?= 20s
FUZZFLAGS ?=
FUZZ_TARGETS = \
	./tcpopt:FuzzParse \
	./tcpsock:FuzzParseDiag \
	./tcpsock:FuzzParseNetstat \
	./frame:FuzzDecodeTCP \
	./shadow:FuzzCheckAO \
	./capture/capfile:FuzzReader \
	./config:FuzzParse \
	./srv6policy:FuzzDecodeSRH \
	./srv6policy:FuzzHMAC \
	./srv6policy:FuzzDecodePath \
	./srv6policy:FuzzDecodeRoute \
	./tcpao:FuzzSNE \
	./tcpao:FuzzVerify \
	./kdrops:FuzzKeyRoundTrip \
	./third_party/gobgp:FuzzParseMessage \
	./third_party/gobgp:FuzzTunnelEncap \
	./third_party/gobgp:FuzzPrefixSID
# The targets inside the carried GoBGP (patch 0090; a module of its own, so
# they run in its directory): DIR:PKG:NAME. A crasher they find is written
# under DIR's package, which makes v3/ differ from pristine + patches
# (carry_test.go) until it is moved to third_party/gobgp/testdata/fuzz.
FUZZ_CARRIED_TARGETS = \
	third_party/gobgp/v3:./pkg/server:FuzzRecvUpdate \
	third_party/gobgp/v3:./internal/pkg/table:Fuzz4ByteAs
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg)"; \
		go test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg || exit 1; \
	done
	@for t in $(FUZZ_CARRIED_TARGETS); do \
		dir=$${t%%:*}; rest=$${t#*:}; pkg=$${rest%%:*}; name=$${rest##*:}; \
		echo "== $$name ($$dir $$pkg)"; \
		(cd $$dir && go test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg) || exit 1; \
	done

clean:
	rm -rf bin
