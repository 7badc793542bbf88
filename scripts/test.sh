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

if [ "$(id -u)" -ne 0 ]; then
	echo "NOTE: not root: privileged and end-to-end tests will skip with their reasons"
fi

# testing.AllocsPerRun tests skip under the race detector (its
# instrumentation allocates), so the race run below never checks them: run
# them first without -race (the packages that have them).
echo "== go test -run 'Allocs' (allocation tests, without -race)"
go test -count=1 -run 'Allocs' ./md5auth/... ./srv6policy/...

echo "== go test -race ./... (unit, privileged and end-to-end tests)"
go test -race -count=1 -timeout 45m ${GOTESTFLAGS:-} ./...

echo "== done in $(( $(date +%s) - start ))s"
