#!/usr/bin/env bash
# Runs every test: installs missing test dependencies (as root), then
# go vet, then all Go tests with the race detector, then the allocation
# tests (testing.AllocsPerRun) again without it, since they skip under
# -race. As root that includes the privileged and end-to-end tests (network
# namespaces, TCP-MD5 sockets, FRR, gobgpd, tcpdump); without root they skip
# and print why. E2E_REQUIRED=1 turns such skips into failures (CI sets it).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
bash scripts/deps.sh

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$bad" ]; then
	echo "gofmt needed on:"; echo "$bad"; exit 1
fi

echo "== promtool check rules, promtool test rules (deploy/prometheus)"
if command -v promtool >/dev/null 2>&1; then
	promtool check rules deploy/prometheus/authbgpd-rules.yml
	(cd deploy/prometheus && promtool test rules authbgpd-rules_test.yml)
elif [ "${E2E_REQUIRED:-}" = 1 ]; then
	echo "promtool missing (Debian package prometheus) and E2E_REQUIRED=1"; exit 1
else
	echo "SKIP: promtool missing (Debian package prometheus): alert rules not checked"
fi

echo "== go vet ./..."
go vet ./...

# The carried GoBGP (third_party/gobgp/v3, a module of its own: ./... does
# not reach it) with our patches applied: GoBGP's own tests of its server.
# Not under -race: the pristine release's TestWatchEvent races in its own
# test code. And not TestWatchEvent at all: its callback closes a channel
# when it has counted two paths, and again when one more event without
# paths follows (a panic: 6 runs of 30 on the pristine release, alone).
echo "== go test ./pkg/server/ in third_party/gobgp/v3 (GoBGP's own tests, patched)"
echo "SKIP: GoBGP's TestWatchEvent (its own test closes a channel twice in about 1 run of 5, pristine release included)"
(cd third_party/gobgp/v3 && go test -count=1 -skip '^TestWatchEvent$' ./pkg/server/)
# And of the other packages the patches change (the decoders, the table's
# processing of a received UPDATE, the API conversion), with the seeds of
# patch 0090's Fuzz4ByteAs (pkg/server's FuzzRecvUpdate ran above).
echo "== go test ./pkg/packet/bgp/ ./internal/pkg/table/ ./pkg/apiutil/ in third_party/gobgp/v3 (GoBGP's own tests, patched; fuzz seeds)"
(cd third_party/gobgp/v3 && go test -count=1 ./pkg/packet/bgp/ ./internal/pkg/table/ ./pkg/apiutil/)

if [ "$(id -u)" -ne 0 ]; then
	echo "NOTE: not root: privileged and end-to-end tests will skip with their reasons"
fi

# testing.AllocsPerRun tests skip under the race detector (its
# instrumentation allocates), so the race run below never checks them: run
# them first without -race (the packages that have them).
echo "== go test -run 'Allocs' (allocation tests, without -race)"
go test -count=1 -run 'Allocs' ./md5auth/... ./tcpsock/... ./srv6policy/...

echo "== go test -race ./... (unit, privileged and end-to-end tests)"
go test -race -count=1 -timeout 45m ${GOTESTFLAGS:-} ./...

# The tests that need TCP-AO and VRF devices (this kernel may lack them) run
# in a VM (scripts/vm.sh, e2e/vmtest; its kernel is built once, ~6 min). A VM
# that cannot run here is a SKIP, or a failure with E2E_REQUIRED=1.
vmstart=$(date +%s)
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: make vmtest (TCP-AO VM) needs root"
	[ "${E2E_REQUIRED:-}" != 1 ] || { echo "E2E_REQUIRED=1 and not root: the TCP-AO VM tests cannot run"; exit 1; }
elif bash scripts/vm.sh --check; then
	echo "== make vmtest (e2e/vmtest in the TCP-AO VM)"
	make vmtest
elif [ "${E2E_REQUIRED:-}" = 1 ]; then
	echo "the TCP-AO VM cannot run (scripts/vm.sh --check above says why) and E2E_REQUIRED=1"; exit 1
else
	echo "SKIP: the TCP-AO VM cannot run here (scripts/vm.sh --check above says why): e2e/vmtest not run"
fi
echo "== TCP-AO VM part done in $(( $(date +%s) - vmstart ))s"

echo "== done in $(( $(date +%s) - start ))s"
