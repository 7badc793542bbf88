#!/usr/bin/env bash
# Performance figures of authbgpd (issue 3, "Performance"): the md5auth
# micro-benchmarks, then the BGP benchmarks of e2e/perf_test.go (as root:
# network namespaces, FRR, gobgpd), then one summary table.
#
#   bash scripts/bench.sh              everything
#   BENCH_BGP=0 bash scripts/bench.sh  only the md5auth micro-benchmarks
#   BENCH_SCALE=1 bash scripts/bench.sh  also the scale benchmarks of
#                                      e2e/scale_test.go (issue 12: 1M IPv4 and
#                                      200k IPv6 prefixes with the shadow on,
#                                      gobgp global rib, 1,000 keyed peers and a
#                                      key change on 100, connect latency with
#                                      10/100/1,000 listener keys); 20-40 minutes.
#                                      Every figure is printed next to its goal.
#                                      SCALE_* knobs pass through (see the file).
#
# The BGP benchmarks repeat their trials themselves and report medians;
# PERF_ROUNDS, PERF_PREFIXES, PERF_PEERS, PERF_RECEIVERS,
# PERF_PEER_RECEIVERS and PERF_PROFILE are passed through (see
# e2e/perf_test.go). The stock gobgpd of the GoBGP release in go.mod is
# built through the Go module proxy as a second baseline (gobgpd337-*), to
# tell authbgpd's own cost from the GoBGP release (Debian's gobgpd is
# v3.10.0); BENCH_GOBGPD=0 skips that, PERF_GOBGPD337=PATH uses a binary you
# have. Raw outputs go to $BENCH_OUT (default: a new directory in /tmp).
# These are measurements, not pass/fail tests: the script fails only when a
# benchmark cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${BENCH_OUT:-$(mktemp -d /tmp/authbgpd-bench-XXXXXX)}
mkdir -p "$out"
echo "== raw outputs in $out"
{
	echo "date: $(date -u +%FT%TZ)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty tree)')"
	echo "kernel: $(uname -r)"
	echo "cpus: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
	echo "go: $(go version | cut -d' ' -f3)"
	echo "frr: $(/usr/lib/frr/bgpd --version 2>/dev/null | head -1 || echo none)"
	echo "gobgpd: $(gobgpd --version 2>/dev/null || echo none)"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews wall times; CPU times less so)"
} | tee "$out/machine.txt"

echo "== md5auth micro-benchmarks"
go test -run '^$' -bench 'Digest|MD5Floor' -benchtime 2s ./md5auth/ | tee "$out/md5auth.txt"
echo "== shadow checker micro-benchmarks (per-segment path; verify-pcap's engine on 1 and GOMAXPROCS workers)"
go test -run '^$' -bench 'VerifyPath' -benchtime 2s ./shadow/ | tee "$out/shadow.txt"
go test -run '^$' -bench 'Offline' -benchtime 3x ./shadow/ | tee -a "$out/shadow.txt"

bgp=${BENCH_BGP:-1}
if [ "$bgp" = 1 ] && [ "$(id -u)" -ne 0 ]; then
	echo "NOTE: not root: skipping the BGP benchmarks (they need network namespaces)"
	bgp=0
fi
scale=${BENCH_SCALE:-0}
if [ "$scale" = 1 ] && [ "$(id -u)" -ne 0 ]; then
	echo "NOTE: not root: skipping the scale benchmarks (they need network namespaces)"
	scale=0
fi
if [ "$bgp" = 1 ] || [ "$scale" = 1 ]; then
	if [ -z "${PERF_GOBGPD337:-}" ] && [ "${BENCH_GOBGPD:-1}" = 1 ]; then
		ver=$(go list -m -f '{{.Version}}' github.com/osrg/gobgp/v3)
		echo "== building stock gobgpd $ver (baseline: the GoBGP authbgpd embeds)"
		gdir="$out/gobgpd-$ver"
		mkdir -p "$gdir"
		if (cd "$gdir" && { [ -f go.mod ] || go mod init bench/gobgpd >/dev/null 2>&1; } &&
			go get "github.com/osrg/gobgp/v3/cmd/gobgpd@$ver" >/dev/null 2>&1 &&
			CGO_ENABLED=0 go build -trimpath -o gobgpd github.com/osrg/gobgp/v3/cmd/gobgpd); then
			export PERF_GOBGPD337="$gdir/gobgpd"
		else
			echo "NOTE: could not build gobgpd $ver (module proxy unreachable?): comparing with Debian's gobgpd only"
		fi
	fi
fi
if [ "$bgp" = 1 ]; then
	echo "== verify-pcap against tcpdump -r -M (go test -bench ShadowPerf/verify-pcap ./e2e/)"
	go test -v -run '^$' -bench 'ShadowPerf/verify-pcap' -benchtime 1x -timeout 30m ./e2e/ >"$out/verifypcap.txt" 2>&1 || {
		echo "verify-pcap benchmark failed; see $out/verifypcap.txt"
		exit 1
	}
	echo "== BGP benchmarks (go test -bench BGPPerf ./e2e/; several minutes)"
	go test -v -run '^$' -bench BGPPerf -benchtime 1x -timeout 60m ./e2e/ >"$out/bgp.txt" 2>&1 || {
		tail -50 "$out/bgp.txt"
		echo "BGP benchmarks failed: see $out/bgp.txt"
		exit 1
	}
	grep -E 'perf_test.go:[0-9]+: (round|[a-z0-9-]+ +(established|all Established))|^Benchmark.*-[0-9]+ ' "$out/bgp.txt" || true
fi
if [ "$scale" = 1 ]; then
	echo "== scale benchmarks (BENCH_SCALE=1 go test -bench BGPScale ./e2e/; 20-40 minutes)"
	BENCH_SCALE=1 go test -v -run '^$' -bench BGPScale -benchtime 1x -timeout 120m ./e2e/ >"$out/scale.txt" 2>&1 || {
		tail -50 "$out/scale.txt"
		echo "scale benchmarks failed: see $out/scale.txt"
		exit 1
	}
	grep -E '(perf|scale)_test.go:[0-9]+: round' "$out/scale.txt" || true
fi

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
echo
echo "================ summary ================"
cat "$out/machine.txt"
echo
echo "md5auth (RFC 2385 digest; x-md5floor = Digester.Check time / md5.Sum of the same bytes, target <= 1.10)"
awk '/^Benchmark(Digest|MD5Floor)/ {
	name=$1; sub(/-[0-9]+$/, "", name); ns=""; mbs=""; fl="";
	for (i=3; i<NF; i++) { if ($(i+1)=="ns/op") ns=$i; if ($(i+1)=="MB/s") mbs=$i; if ($(i+1)=="x-md5floor") fl=$i }
	printf "  %-26s %10s ns/op %10s MB/s %8s\n", name, ns, mbs, fl }' "$out/md5auth.txt"
echo
echo "shadow checker (x-md5floor = the whole per-segment path / md5.Sum of the covered bytes)"
awk '/^BenchmarkVerifyPath\// {
	name=$1; sub(/^BenchmarkVerifyPath\//, "", name); sub(/-[0-9]+$/, "", name); fl=""
	for (i=3; i<NF; i++) if ($(i+1)=="x-md5floor") fl=$i
	t=""; if (name == "19") t="1.3"; if (name == "140") t="1.15"
	if (t == "") printf "  VerifyPath %5s B payload %8s x   goal -\n", name, fl
	else printf "  VerifyPath %5s B payload %8s x   goal <= %s: %s\n", name, fl, t, (fl+0 <= t+0 ? "met" : "missed") }
/^BenchmarkOffline/ {
	for (i=3; i<NF; i++) if ($(i+1)=="x-speedup") printf "  verify-pcap engine, GOMAXPROCS workers vs 1 %8s x   goal >= 1.7: %s\n", $i, ($i+0 >= 1.7 ? "met" : "missed") }' "$out/shadow.txt"
if [ "$bgp" = 1 ]; then
	grep '^GOAL ' "$out/verifypcap.txt" | sed 's/^GOAL /  /'
fi
if [ "$bgp" = 1 ]; then
	echo
	echo "BGP (medians; seconds, MB; ratios of medians)"
	awk '/^BenchmarkBGPPerf\/[^ ]+-[0-9]+ / {
		name=$1; sub(/^BenchmarkBGPPerf\//, "", name); sub(/-[0-9]+$/, "", name)
		for (i=3; i<NF; i++) {
			u=$(i+1)
			if (u ~ /^[a-z]/ && $i ~ /^[0-9.e+-]+$/ && u != "ns/op") {
				target=""
				if (u == "md5/plain" || u == "gobgpd-md5/plain") target=($i <= 1.05 ? "target <= 1.05: met" : "target <= 1.05: MISSED")
				if (u == "authbgpd/gobgpd" || u == "authbgpd/gobgpd337") target=($i <= 1.0 ? "target <= 1.0: met" : "target <= 1.0: MISSED")
				printf "  %-14s %-32s %10.3f  %s\n", name, u, $i, target
			}
		}
	}' "$out/bgp.txt"
fi
if [ "$scale" = 1 ]; then
	echo
	echo "scale (BENCH_SCALE=1; one trial per receiver unless SCALE_ROUNDS; each figure next to its goal)"
	grep '^GOAL ' "$out/scale.txt" | sed 's/^GOAL /  /'
	echo "  goals met: $(grep -c '^GOAL .* met$' "$out/scale.txt" || true), missed: $(grep -c '^GOAL .* missed$' "$out/scale.txt" || true)"
fi
