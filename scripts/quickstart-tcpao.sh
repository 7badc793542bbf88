#!/usr/bin/env bash
# authbgpd quickstart, TCP-AO part: two authbgpd routers with TCP-AO
# (RFC 5925) keychains for each other, neither passive, in network
# namespaces on this machine:
#
#   r1: authbgpd (AS 65001, 192.0.2.1)  ---- veth ----  r2: authbgpd (AS 65002, 192.0.2.2)
#
# Both dial (authbgpd signs its own SYNs), the session comes up signed, the
# status tables show the KeyIDs and the kernel's TCP-AO counters; then r2's
# key is broken on purpose (a reload with another secret) and r1 says why
# the session will not come back (the shadow checker's bad-mac), then the
# key is fixed again.
#
# Needs root and a kernel with TCP-AO (CONFIG_TCP_AO); scripts/quickstart.sh
# runs it in the VM (scripts/vm.sh) when this machine's kernel has none.
# Uses bin/authbgpd (built by scripts/quickstart.sh, or `make build`).
# Everything it creates is named abqa-<pid>-* and removed on exit.
#
# Environment: QUICKSTART_TIMEOUT (seconds per wait, default 30).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
QS_NAME="quickstart (TCP-AO)"
# shellcheck source=scripts/quickstart-lib.sh
. scripts/quickstart-lib.sh
T0=$(date +%s)
WAIT=${QUICKSTART_TIMEOUT:-30}
PFX="abqa-$$"
NS1="$PFX-r1"
NS2="$PFX-r2"
BIN=$ROOT/bin/authbgpd
WORK=""
PIDS=()
NSS=()
STEP=${QUICKSTART_STEP:-0}

section() {
	STEP=$((STEP + 1))
	printf '\n==> %d. %s\n' "$STEP" "$*"
}
run() {
	local shown="$*"
	shown=${shown//"$BIN"/authbgpd}
	printf '    $ %s\n' "$shown"
	"$@" 2>&1 | sed 's/^/    /'
}
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ $rc -ne 0 ] && [ -n "$WORK" ]; then
		qs_show_logs "$WORK"/r1/authbgpd.log "$WORK"/r2/authbgpd.log
	fi
	qs_stop
	[ -n "$WORK" ] && rm -rf "$WORK"
	if [ $rc -eq 0 ]; then
		printf '\nquickstart (TCP-AO): cleaned up (namespaces %s, %s; processes %s) in %ds.\n' \
			"$NS1" "$NS2" "${PIDS[*]:-none}" "$(($(date +%s) - T0))"
	else
		printf '\nquickstart (TCP-AO): cleaned up after failure (exit %d).\n' "$rc" >&2
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
abstatus() { in_ns "$1" "$BIN" status --api 127.0.0.1:9179 "${@:2}"; }
# peer_col NS PEER NAME: the column headed NAME of PEER's row of `authbgpd status`.
peer_col() { abstatus "$1" 2>/dev/null | awk -v p="$2" -v h="$3" '$1 == "PEER" { for (i = 1; i <= NF; i++) if ($i == h) n = i; next } n && $1 == p { print $n; exit }'; }
state_is() { [ "$(peer_col "$1" "$2" STATE)" = "$3" ]; }
diag_is() { [ "$(peer_col "$1" "$2" DIAGNOSIS)" = "$3" ]; }

[ "$(id -u)" -eq 0 ] || die "run me as root"
[ -x "$BIN" ] || die "$BIN is missing: make build"
"$BIN" version >/dev/null

WORK=$(mktemp -d "/tmp/$PFX.XXXXXX")
chmod 0700 "$WORK"
mkdir -p "$WORK/r1/secrets" "$WORK/r2/secrets"
rand() { od -An -N12 -tx1 /dev/urandom | tr -d ' \n'; }
umask 077
KEY=$(rand)
printf '%s\n' "$KEY" >"$WORK/r1/secrets/ao-1.key"
printf '%s\n' "$KEY" >"$WORK/r2/secrets/ao-1.key"

section "TCP-AO: two authbgpd routers in $NS1 and $NS2"
ip netns add "$NS1" && NSS+=("$NS1")
ip netns add "$NS2" && NSS+=("$NS2")
ip -n "$NS1" link set lo up
ip -n "$NS2" link set lo up
ip link add eth0 netns "$NS1" type veth peer name eth0 netns "$NS2"
ip -n "$NS1" addr add 192.0.2.1/24 dev eth0
ip -n "$NS2" addr add 192.0.2.2/24 dev eth0
ip -n "$NS1" link set eth0 up
ip -n "$NS2" link set eth0 up
say "r1 ($NS1) eth0 192.0.2.1/24  <-- veth -->  r2 ($NS2) eth0 192.0.2.2/24"

# conf ASN ROUTER-ID PEER PEER-ASN: a router with a TCP-AO keychain for its peer.
conf() {
	cat <<EOF
[global]
asn = $1
router-id = "$2"

[api]
grpc = "127.0.0.1:50051"
http = "127.0.0.1:9179"

[[keychains]]
name = "ao"
type = "tcp-ao"                      # RFC 5925 TCP-AO (not TCP-MD5)
  [[keychains.keys]]
  id = 1                             # KeyID 1 both ways (send-id = recv-id = id)
  algorithm = "hmac-sha-1-96"
  secret-file = "secrets/ao-1.key"

[[peers]]
address = "$3"
asn = $4
keychain = "ao"                      # not passive: authbgpd signs the SYNs it sends
hold-time = 9

[shadow]
enabled = true                       # verify every TCP-AO MAC on the wire
EOF
}
conf 65001 192.0.2.1 192.0.2.2 65002 >"$WORK/r1/authbgpd.toml"
conf 65002 192.0.2.2 192.0.2.1 65001 >"$WORK/r2/authbgpd.toml"
sed 's/^/    | /' "$WORK/r1/authbgpd.toml"
say "(r2's is the same with the addresses and ASNs swapped)"
run "$BIN" check -f "$WORK/r1/authbgpd.toml"

start() {
	local r=$1 ns=$2
	ip netns exec "$ns" "$BIN" -f "$WORK/$r/authbgpd.toml" >"$WORK/$r/authbgpd.log" 2>&1 &
	PIDS+=("$!")
	local deadline=$(($(date +%s) + 10))
	while ! abstatus "$ns" >/dev/null 2>&1; do
		kill -0 "${PIDS[-1]}" 2>/dev/null || die "authbgpd $r exited (log above)"
		[ "$(date +%s)" -lt "$deadline" ] || die "authbgpd $r did not answer"
		sleep 0.2
	done
}
section "Starting both at once: each dials the other, signed"
t=$(date +%s)
start r1 "$NS1"
start r2 "$NS2"
R2_PID=${PIDS[-1]}
wait_for "$WAIT" "TCP-AO session r1-r2 Established" state_is "$NS1" 192.0.2.2 established
wait_for "$WAIT" "r2 sees it Established" state_is "$NS2" 192.0.2.1 established
say "established after $(($(date +%s) - t))s"
wait_for "$WAIT" "shadow diagnosis ok" diag_is "$NS1" 192.0.2.2 ok
run in_ns "$NS1" "$BIN" status
say
say "AUTH tcp-ao: KeyID 1 sent and asked for (RNextKeyID); DIAGNOSIS ok: the shadow checker"
say "verified r2's MACs itself. Neither side is passive: each signs the SYNs it sends."

# restart_r2: stop r2 (SIGTERM: it ends the session with a signed
# NOTIFICATION) and start it again with what its secret file now says.
restart_r2() {
	kill -TERM "$R2_PID"
	wait "$R2_PID" 2>/dev/null || true
	start r2 "$NS2"
	R2_PID=${PIDS[-1]}
}
section "Breaking the key on purpose: r2 restarts with another secret"
rand >"$WORK/r2/secrets/ao-1.key"
restart_r2
t=$(date +%s)
wait_for "$WAIT" "shadow diagnosis bad-mac on r1" diag_is "$NS1" 192.0.2.2 bad-mac
say "diagnosis bad-mac after $(($(date +%s) - t))s"
run in_ns "$NS1" "$BIN" status
say
say "DIAGNOSIS bad-mac: 192.0.2.2 signs with KeyID 1, but its MACs do not verify with our key 1:"
say "=> the TCP-AO secrets differ. The kernel drops those segments silently (TCPAOBad); authbgpd names the peer."

section "Fixing it: r2 back on the right secret"
printf '%s\n' "$KEY" >"$WORK/r2/secrets/ao-1.key"
restart_r2
t=$(date +%s)
wait_for "$WAIT" "session Established again" state_is "$NS1" 192.0.2.2 established
wait_for "$WAIT" "shadow diagnosis ok" diag_is "$NS1" 192.0.2.2 ok
say "established and ok again after $(($(date +%s) - t))s"
run in_ns "$NS1" "$BIN" status
