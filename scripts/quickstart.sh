#!/usr/bin/env bash
# authbgpd quickstart: two routers in network namespaces, on this machine.
#
#   r1: authbgpd (AS 65001, 192.0.2.1)  ---- veth ----  r2: FRR bgpd (AS 65002, 192.0.2.2)
#
# It builds authbgpd (static, CGO_ENABLED=0, as the container image does),
# brings up a TCP-MD5 session with the shadow checker on, shows the status
# tables, a route learned and a prefix of authbgpd's own ([[networks]]) at
# FRR, then breaks the key on purpose and shows the
# shadow checker's diagnosis, fixes it again, (when this build programs
# SRv6 HMAC keys) shows an SRv6 HMAC key installed in the kernel, and then
# runs the TCP-AO part (scripts/quickstart-tcpao.sh: two authbgpd routers),
# in the VM (scripts/vm.sh) when this kernel has no TCP-AO.
#
# Needs root (namespaces, TCP-MD5 keys, packet capture) and Go on PATH;
# missing Debian packages (FRR, iproute2, ...) are installed by
# scripts/deps.sh. Everything it creates is named abqs-<pid>-* and removed
# on exit, also on failure or Ctrl-C.
#
# Environment: QUICKSTART_TIMEOUT (seconds per wait, default 30);
# QUICKSTART_TCPAO=0 skips the TCP-AO part.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
QS_NAME=quickstart
# shellcheck source=scripts/quickstart-lib.sh
. scripts/quickstart-lib.sh

T0=$(date +%s)
WAIT=${QUICKSTART_TIMEOUT:-30}
PFX="abqs-$$"
NS1="$PFX-r1"
NS2="$PFX-r2"
WORK=""
PIDS=()
NSS=()
STEP=0
BIN=$ROOT/bin/authbgpd

BOLD="" PLAIN=""
if [ -t 1 ]; then BOLD=$'\033[1m' PLAIN=$'\033[0m'; fi
section() {
	STEP=$((STEP + 1))
	printf '\n%s==> %d. %s%s\n' "$BOLD" "$STEP" "$*" "$PLAIN"
}
# run CMD...: print the command (bin/authbgpd as authbgpd, in_r1/in_r2 as
# ip netns exec NS), run it and indent its output.
run() {
	local shown="$*"
	shown=${shown//"$BIN"/authbgpd}
	shown=${shown/#in_r1 /ip netns exec $NS1 }
	shown=${shown/#in_r2 /ip netns exec $NS2 }
	printf '    $ %s\n' "$shown"
	"$@" 2>&1 | sed 's/^/    /'
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ $rc -ne 0 ] && [ -n "$WORK" ]; then
		qs_show_logs "$WORK"/r1/authbgpd.log "$WORK"/r2/bgpd.log
	fi
	qs_stop
	if [ -n "${QUICKSTART_KEEP_LOGS:-}" ] && [ -n "$WORK" ]; then cp "$WORK"/r1/authbgpd.log "$WORK"/r2/bgpd.log "$QUICKSTART_KEEP_LOGS"/ 2>/dev/null || true; fi
	[ -n "$WORK" ] && rm -rf "$WORK"
	if [ $rc -eq 0 ]; then
		printf '\nquickstart: cleaned up (namespaces %s, %s; processes %s) in %ds total.\n' \
			"$NS1" "$NS2" "${PIDS[*]:-none}" "$(($(date +%s) - T0))"
	else
		printf '\nquickstart: cleaned up after failure (exit %d).\n' "$rc" >&2
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

in_r1() { ip netns exec "$NS1" "$@"; }
in_r2() { ip netns exec "$NS2" "$@"; }
abstatus() { in_r1 "$BIN" status --api 127.0.0.1:9179 "$@"; }
vtysh_r2() {
	local args=() c
	for c in "$@"; do args+=(-c "$c"); done
	in_r2 vtysh --vty_socket "$WORK/r2" -d bgpd "${args[@]}"
}

# peer_col NAME: the column headed NAME of the 192.0.2.2 row of `authbgpd status`.
peer_col() { abstatus 2>/dev/null | awk -v h="$1" '$1 == "PEER" { for (i = 1; i <= NF; i++) if ($i == h) n = i; next } n && $1 == "192.0.2.2" { print $n; exit }'; }
peer_state_is() { [ "$(peer_col STATE)" = "$1" ]; }
peer_diag_is() { [ "$(peer_col DIAGNOSIS)" = "$1" ]; }
route_learned() { in_r1 gobgp -u 127.0.0.1 -p 50051 global rib -a ipv4 2>/dev/null | grep -q '203.0.113.0/24'; }
network_at_r2() { vtysh_r2 "show bgp ipv4 unicast 198.51.100.0/24" 2>/dev/null | grep -q '65001:100'; }
srv6_key_row() { abstatus 2>/dev/null | awk '/^SRV6 HMAC KEY/ { t = 1; next } t && $1 == "42" { print; exit }'; }

# ---------------------------------------------------------------------------
section "Checking the machine"
[ "$(id -u)" -eq 0 ] || die "run me as root (network namespaces, TCP-MD5 keys and packet capture need it): sudo make quickstart"
command -v go >/dev/null || die "Go is not on PATH (authbgpd needs Go 1.26 to build)"
bash scripts/deps.sh | sed 's/^/    /'
BGPD=/usr/lib/frr/bgpd
[ -x "$BGPD" ] || die "FRR's bgpd is not at $BGPD (apt-get install frr)"
command -v vtysh >/dev/null || die "vtysh is missing (apt-get install frr)"
command -v ip >/dev/null || die "ip is missing (apt-get install iproute2)"
say "kernel $(uname -r), $(go version | awk '{print $3}'), FRR $("$BGPD" --version 2>/dev/null | awk 'NR==1{print $NF}')"

# ---------------------------------------------------------------------------
section "Building authbgpd (static: CGO_ENABLED=0, as the container image)"
mkdir -p bin
CGO_ENABLED=0 go build -trimpath -o bin/authbgpd ./cmd/authbgpd
say "bin/authbgpd: $("$BIN" version)"

WORK=$(mktemp -d "/tmp/$PFX.XXXXXX")
chmod 0700 "$WORK"
mkdir -p "$WORK/r1/secrets" "$WORK/r2"
rand() { od -An -N12 -tx1 /dev/urandom | tr -d ' \n'; }
KEY=$(rand)
WRONG=$(rand)
umask 077
printf '%s\n' "$KEY" >"$WORK/r1/secrets/r2.key"
rand >"$WORK/r1/secrets/srv6-42.key"

# ---------------------------------------------------------------------------
section "Two routers in network namespaces $NS1 and $NS2"
ip netns add "$NS1" && NSS+=("$NS1")
ip netns add "$NS2" && NSS+=("$NS2")
ip -n "$NS1" link set lo up
ip -n "$NS2" link set lo up
ip link add eth0 netns "$NS1" type veth peer name eth0 netns "$NS2"
ip -n "$NS1" addr add 192.0.2.1/24 dev eth0
ip -n "$NS1" addr add 2001:db8::1/64 dev eth0 nodad
ip -n "$NS2" addr add 192.0.2.2/24 dev eth0
ip -n "$NS2" addr add 2001:db8::2/64 dev eth0 nodad
ip -n "$NS1" link set eth0 up
ip -n "$NS2" link set eth0 up
say "r1 ($NS1) eth0 192.0.2.1/24 2001:db8::1/64  <-- veth -->  r2 ($NS2) eth0 192.0.2.2/24 2001:db8::2/64"

# ---------------------------------------------------------------------------
section "Starting r1: authbgpd with a TCP-MD5 peer, a prefix of its own, the shadow checker and an SRv6 HMAC key"
CONF_MD5=$(
	cat <<'EOF'
[global]
asn = 65001
router-id = "192.0.2.1"

[api]
grpc = "127.0.0.1:50051"
http = "127.0.0.1:9179"

[[peers]]
address = "192.0.2.2"
asn = 65002
password-file = "secrets/r2.key"   # mode 0600; read relative to this file

[[networks]]
prefix = "198.51.100.0/24"         # announced as r1's own, with a community
communities = ["65001:100"]

[shadow]
enabled = true                     # verify every TCP-MD5 signature on the wire
EOF
)
CONF_SRV6=$(
	cat <<'EOF'

[[srv6.hmac-keys]]
id = 42
algorithm = "sha256"
secret-file = "secrets/srv6-42.key"

[[srv6.policies]]
name = "gold"
color = 100
endpoint = "2001:db8::2"
binding-sid = "fc00:0:1:b6::100"
segments = ["fc00:0:2::1"]
hmac-key-id = 42
EOF
)
printf '%s\n%s\n' "$CONF_MD5" "$CONF_SRV6" >"$WORK/r1/authbgpd.toml"
sed 's/^/    | /' "$WORK/r1/authbgpd.toml"
run "$BIN" check -f "$WORK/r1/authbgpd.toml"

# is_daemon PID BINARY: PID runs BINARY (ip netns exec execs it in place).
is_daemon() { [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ]; }

start_authbgpd() {
	# Not through a shell function: a function run in the background is a
	# subshell, and $! would be the subshell, not the daemon.
	ip netns exec "$NS1" "$BIN" -f "$WORK/r1/authbgpd.toml" >"$WORK/r1/authbgpd.log" 2>&1 &
	AB_PID=$!
	PIDS+=("$AB_PID")
	local deadline=$(($(date +%s) + 10))
	while ! is_daemon "$AB_PID" "$BIN"; do
		kill -0 "$AB_PID" 2>/dev/null || return 1
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
	while ! abstatus >/dev/null 2>&1; do
		kill -0 "$AB_PID" 2>/dev/null || return 1
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}
SRV6=1
if ! start_authbgpd; then
	# The SRv6 part is optional here: retry without it rather than fail.
	say "authbgpd did not start with the SRv6 sections; its log says:"
	tail -n 5 "$WORK/r1/authbgpd.log" | sed 's/^/      /'
	kill -TERM "$AB_PID" 2>/dev/null || true
	wait "$AB_PID" 2>/dev/null || true
	SRV6=0
	printf '%s\n' "$CONF_MD5" >"$WORK/r1/authbgpd.toml"
	say "retrying without SRv6"
	start_authbgpd || die "authbgpd did not start"
fi
say "authbgpd runs as PID $AB_PID in $NS1 (log: authbgpd.log)"

# ---------------------------------------------------------------------------
section "Starting r2: FRR bgpd with the same TCP-MD5 password, announcing 203.0.113.0/24"
frr_conf() {
	cat <<EOF
frr defaults traditional
hostname r2
log stdout informational
!
router bgp 65002
 bgp router-id 192.0.2.2
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor 192.0.2.1 remote-as 65001
 neighbor 192.0.2.1 password $1
 neighbor 192.0.2.1 timers 3 9
 neighbor 192.0.2.1 timers connect 2
 address-family ipv4 unicast
  network 203.0.113.0/24
 exit-address-family
!
EOF
}
frr_conf "$KEY" >"$WORK/r2/bgpd.conf"
sed -e 's/^/    | /' -e "s/password .*/password <the same key as r1's secrets\/r2.key>/" "$WORK/r2/bgpd.conf"
# -Z: no zebra, -n: no kernel routes, -S: skip the frr user checks,
# -P 0: no vty TCP port; the vty socket lives in our work directory.
ip netns exec "$NS2" "$BGPD" -Z -n -S -P 0 -f "$WORK/r2/bgpd.conf" -i "$WORK/r2/bgpd.pid" \
	--vty_socket "$WORK/r2" --log stdout >"$WORK/r2/bgpd.log" 2>&1 &
FRR_PID=$!
PIDS+=("$FRR_PID")
wait_for 5 "FRR bgpd to start" is_daemon "$FRR_PID" "$(readlink -f "$BGPD")"
wait_for 10 "FRR's vty socket" vtysh_r2 "show bgp summary"
say "FRR bgpd runs as PID $FRR_PID in $NS2"

# ---------------------------------------------------------------------------
section "Waiting for the TCP-MD5 session to come up"
t=$(date +%s)
wait_for "$WAIT" "session 192.0.2.2 Established" peer_state_is established
say "established after $(($(date +%s) - t))s"
wait_for "$WAIT" "route 203.0.113.0/24 from FRR" route_learned
wait_for 10 "shadow diagnosis ok" peer_diag_is ok
echo
run in_r1 "$BIN" status
say
say "STATE established, AUTH md5, INSTALLED yes: the key is on the socket."
say "DIAGNOSIS ok, VALID > 0: the shadow checker verified FRR's signatures itself."
echo
say "The route FRR announced, as authbgpd learned it (Debian's stock gobgp CLI works against authbgpd's gRPC API):"
run in_r1 gobgp -u 127.0.0.1 -p 50051 global rib -a ipv4
wait_for "$WAIT" "r1's network 198.51.100.0/24 at FRR" network_at_r2
say
say "And r1's own prefix ([[networks]]), with its community, as FRR received it:"
say "$ ip netns exec $NS2 vtysh -c 'show bgp ipv4 unicast 198.51.100.0/24'"
vtysh_r2 "show bgp ipv4 unicast 198.51.100.0/24" | sed 's/^/    /'

# ---------------------------------------------------------------------------
section "Breaking the key on purpose: FRR now signs with another password"
say "$ vtysh -c 'configure terminal' -c 'router bgp 65002' -c 'neighbor 192.0.2.1 password <another key>'"
vtysh_r2 "configure terminal" "router bgp 65002" "neighbor 192.0.2.1 password $WRONG" >/dev/null
t=$(date +%s)
say "The kernel drops every segment whose signature does not match, silently. The shadow checker does not:"
wait_for "$WAIT" "shadow diagnosis bad-digest" peer_diag_is bad-digest
say "diagnosis bad-digest after $(($(date +%s) - t))s"
echo
run in_r1 "$BIN" status
say
say "DIAGNOSIS bad-digest, BAD > 0: 192.0.2.2 signs its segments, but not with our key."
say "=> The TCP-MD5 keys differ: fix the password on one side (docs/OPERATIONS.md: reading diagnoses)."
say "   authbgpd logs it too (\"shadow diagnosis: bad-digest ...\", at most one line per peer per interval)."
# ---------------------------------------------------------------------------
section "Fixing it: FRR back on the right password"
vtysh_r2 "configure terminal" "router bgp 65002" "neighbor 192.0.2.1 password $KEY" >/dev/null
t=$(date +%s)
wait_for "$WAIT" "session 192.0.2.2 Established again" peer_state_is established
wait_for 10 "shadow diagnosis ok" peer_diag_is ok
say "established and ok again after $(($(date +%s) - t))s"
run in_r1 "$BIN" status

# ---------------------------------------------------------------------------
section "SRv6 HMAC key programming"
row=""
if [ "$SRV6" = 1 ]; then
	deadline=$(($(date +%s) + 5))
	while row=$(srv6_key_row) && [ -z "$row" ] && [ "$(date +%s)" -lt "$deadline" ]; do
		sleep 0.2
	done
fi
if [ -n "$row" ]; then
	abstatus | awk '/^SRV6 HMAC KEY|^SR POLICY/ { t = 1 } /^$/ { t = 0 } t' | sed 's/^/    /'
	if [ "$(awk '{print $3}' <<<"$row")" = yes ]; then
		say "Policy gold is advertised with HMAC key ID 42 (as a Large Community; never the secret). It names no"
		say "headend, so it carries NO_ADVERTISE and stays here; r1 is no headend, so nothing is installed."
		say "authbgpd put SRv6 HMAC key 42 into $NS1's kernel (SEG6 generic netlink). The kernel's own table:"
		# ip sr hmac prints secrets in clear: show the key ID and algorithm only.
		in_r1 ip sr hmac show 2>/dev/null | sed -E 's/(secret|Secret|SECRET)[^ ]* *[^ ]*/\1 <hidden>/g; s/^/    /' || true
	else
		say "key 42 is configured but not installed: $(awk '{$1=$2=$3=""; print}' <<<"$row")"
	fi
	say
	say "The HMAC a headend puts in the SRH of policy gold (source 2001:db8::1, segments fc00:0:2::1):"
	run "$BIN" srv6 hmac --algorithm sha256 --key-file "$WORK/r1/secrets/srv6-42.key" \
		--key-id 42 --source 2001:db8::1 --segments fc00:0:2::1
else
	say "skipped: this build of authbgpd does not program SRv6 HMAC keys yet (no key in /status)."
	say "The SRH HMAC itself is available offline:"
	run "$BIN" srv6 hmac --algorithm sha256 --key-file "$WORK/r1/secrets/srv6-42.key" \
		--key-id 42 --source 2001:db8::1 --segments fc00:0:2::1
fi

# ---------------------------------------------------------------------------
# TCP-AO: two authbgpd routers (scripts/quickstart-tcpao.sh), here when the
# kernel has TCP-AO, else in the VM (scripts/vm.sh: a Linux 6.12 guest with
# TCP-AO on this machine's filesystem). QUICKSTART_TCPAO=0 skips it.
has_tcpao() { /usr/bin/python3 -c 'import socket; socket.socket().getsockopt(6, 40, 48)' 2>/dev/null; }
AO_SEEN="skipped (QUICKSTART_TCPAO=0)"
if [ "${QUICKSTART_TCPAO:-1}" != 0 ]; then
	if has_tcpao; then
		QUICKSTART_STEP=$STEP bash scripts/quickstart-tcpao.sh || die "the TCP-AO part failed"
	else
		section "TCP-AO: this kernel ($(uname -r)) has no TCP-AO, so this part runs in the VM (scripts/vm.sh; the first run builds its kernel, ~6 min)"
		QUICKSTART_STEP=$STEP bash scripts/vm.sh bash scripts/quickstart-tcpao.sh || die "the TCP-AO part (in the VM) failed"
	fi
	STEP=$((STEP + 4))
	AO_SEEN="a TCP-AO session between two authbgpd routers, both dialing, and a broken key diagnosed (bad-mac)"
fi

# ---------------------------------------------------------------------------
section "Done"
say "Seen: a TCP-MD5 session that came up, routes both ways (FRR's, and r1's own [[networks]] prefix),"
say "      a wrong key diagnosed on the wire (bad-digest), the fix,"
say "      (when this build has it) an SRv6 HMAC key programmed into the kernel,"
say "      and $AO_SEEN."
say "Next: docs/OPERATIONS.md (key rollover, diagnoses, metrics), docs/CONFIGURATION.md (every key),"
say "      e2e/clab/ (containerlab topologies: authbgpd + FRR, SRv6 controller/headend/endpoint)."
