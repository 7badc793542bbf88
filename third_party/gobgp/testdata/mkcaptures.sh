#!/bin/bash
# Regenerates the real BGP captures the fuzz targets take their seeds from
# (third_party/gobgp/testdata/captures/*.pcap; README.md beside this script
# says what each holds). Needs root, iproute2, tcpdump, FRR's bgpd and vtysh,
# ExaBGP and Go. It builds GoBGP v3.37.0's gobgpd and gobgp from the carried
# copy (third_party/gobgp/v3) and authbgpd from this tree, joins two network
# namespaces (fz-cap-s: the sender, fz-cap-r: the receiver) with a veth pair
# (192.0.2.2/24, 2001:db8::2/64 and 192.0.2.1/24, 2001:db8::1/64), and for
# each capture starts a gobgpd receiver (AS 65001) in fz-cap-r, tcpdump on
# its side of the link, and a sender (AS 65002) in fz-cap-s, waits until the
# receiver holds what the sender announces, has the sender withdraw some of
# it (ExaBGP's static routes stay), and stops the sender.
#
# Then regenerate the seed corpus files of the carried copy's fuzz targets
# (testdata/fuzz/FuzzRecvUpdate/capture-*; Fuzz4ByteAs reads them too):
#
#	go test ./third_party/gobgp/ -run TestCaptureSeeds -update-seeds
#
# Usage: sudo bash third_party/gobgp/testdata/mkcaptures.sh [NAME...]
# (NAME: frr-unicast, authbgpd-srpolicy, gobgp-srv6-mup, exabgp-as2; default all)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../../.." && pwd -P)
out=$here/captures
S=fz-cap-s
R=fz-cap-r
tmp=$(mktemp -d /tmp/fz-cap.XXXXXX)
pids=()

cleanup() {
	local rc=$? p
	if [ $rc -ne 0 ]; then
		for p in "$tmp"/*.log; do [ -e "$p" ] && { echo "---- $p"; tail -20 "$p"; }; done >&2
	fi
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	ip netns del "$S" 2>/dev/null || true
	ip netns del "$R" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

log() { echo "mkcaptures: $*" >&2; }
s() { ip netns exec "$S" "$@"; }
r() { ip netns exec "$R" "$@"; }

# poll SECONDS CMD...: run CMD every 0.2 s until it succeeds.
poll() {
	local n=$(($1 * 5)) i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	log "timed out waiting for: $*"
	"$@" >&2 || true
	return 1
}

# start NAME NS CMD...: run CMD in NS in the background, logging to $tmp/NAME.log;
# its PID in $tmp/NAME.pid.
start() {
	local name=$1 ns=$2
	shift 2
	ip netns exec "$ns" "$@" >"$tmp/$name.log" 2>&1 &
	pids+=($!)
	echo $! >"$tmp/$name.pid"
}

# stop NAME: SIGTERM and wait.
stop() {
	local p
	p=$(cat "$tmp/$1.pid")
	kill "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

log "building gobgpd, gobgp (GoBGP v3.37.0, carried) and authbgpd"
(cd "$repo/third_party/gobgp/v3" && go build -o "$tmp/gobgpd" ./cmd/gobgpd && go build -o "$tmp/gobgp" ./cmd/gobgp)
(cd "$repo" && CGO_ENABLED=0 go build -o "$tmp/authbgpd" ./cmd/authbgpd)

ip netns add "$S"
ip netns add "$R"
ip -n "$S" link add eth0 type veth peer name eth0 netns "$R"
for ns in "$S" "$R"; do
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
done
ip -n "$S" addr add 192.0.2.2/24 dev eth0
ip -n "$S" addr add 2001:db8::2/64 dev eth0 nodad
ip -n "$R" addr add 192.0.2.1/24 dev eth0
ip -n "$R" addr add 2001:db8::1/64 dev eth0 nodad

# gobgp CLI against the gobgpd of a namespace (each has its own loopback).
gcli() { local ns=$1; shift; ip netns exec "$ns" "$tmp/gobgp" -u 127.0.0.1 -p 50051 "$@"; }

# receiver NAME AFI-SAFI...: gobgpd in $R, AS 65001, a passive neighbor
# 192.0.2.2 (AS 65002) with these families (ADD-PATH receive on ipv4-unicast).
receiver() {
	local name=$1 f
	shift
	{
		printf '[global.config]\n  as = 65001\n  router-id = "192.0.2.1"\n  port = 179\n'
		printf '[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "192.0.2.2"\n    peer-as = 65002\n'
		printf '  [neighbors.transport.config]\n    passive-mode = true\n'
		for f in "$@"; do
			printf '  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = "%s"\n' "$f"
			[ "$f" != ipv4-unicast ] || printf '    [neighbors.afi-safis.add-paths.config]\n      receive = true\n'
		done
	} >"$tmp/$name-rx.toml"
	start "$name-rx" "$R" "$tmp/gobgpd" -f "$tmp/$name-rx.toml" -t toml -p -l info --api-hosts 127.0.0.1:50051 --pprof-disable
	poll 10 gcli "$R" global
}

# capture NAME: tcpdump on the receiver's side, whole packets, BGP only.
capture() {
	start "$1-tcpdump" "$R" tcpdump -i eth0 -n -U -s 0 -w "$tmp/$1.pcap" tcp port 179
	poll 10 grep -q 'listening on' "$tmp/$1-tcpdump.log"
}

# count NS FAMILY: the number of destinations in the global RIB of the
# gobgpd in NS.
count() {
	gcli "$1" global rib -a "$2" summary 2>/dev/null | awk '/Destination:/ { gsub(",", "", $2); print $2; exit }'
}
# received FAMILY: paths the receiver got from its neighbor in FAMILY (its
# CLI cannot list SR policies).
received() {
	local afi=1
	[ "${1%%-*}" = ipv4 ] || afi=2
	gcli "$R" neighbor 192.0.2.2 -j | jq --argjson afi $afi '[.afi_safis[] | select(.state.family.afi == $afi and .state.family.safi == 73) | .state.received // 0] | add // 0'
}
has() {
	local n
	case $1 in
	*srpolicy) n=$(received "$1") ;;
	*) n=$(count "$R" "$1") ;;
	esac
	[ "$n" = "$2" ] || { echo "$1: $n destinations, not $2"; return 1; }
}

# finish NAME SENDER: stop the sender (its NOTIFICATION goes out), then
# tcpdump and the receiver, and keep the capture.
finish() {
	sleep 1
	stop "$2"
	sleep 1
	stop "$1-tcpdump"
	stop "$1-rx"
	mkdir -p "$out"
	cp "$tmp/$1.pcap" "$out/$1.pcap"
	log "$1: $(stat -c %s "$out/$1.pcap") bytes"
}

# ---------------------------------------------------------------- frr-unicast
# FRR 8.4 (a slice of e2e's 1M-prefix transfer): 2,000 IPv4 /24s and 1,000
# IPv6 /48s over one IPv4 session, ADD-PATH (path IDs) on IPv4, in eight
# attribute groups (communities, large communities, extended communities,
# prepended AS paths with 4-byte ASNs, MED, origin, aggregator,
# atomic-aggregate); then 100 of each family withdrawn.
frr_unicast() {
	local n4=2000 n6=1000 i a g
	receiver frr-unicast ipv4-unicast ipv6-unicast
	capture frr-unicast
	{
		printf 'frr defaults traditional\nhostname fz-sender\nlog stdout informational\n!\n'
		printf 'route-map G0 permit 10\n set community 65002:100 65002:200 65535:0\n set large-community 65002:1:1 65002:2:2\n!\n'
		printf 'route-map G1 permit 10\n set community 65002:300\n set metric 50\n set origin incomplete\n!\n'
		printf 'route-map G2 permit 10\n set as-path prepend 4200000001 65010 65011\n set large-community 4200000001:100:7\n!\n'
		printf 'route-map G3 permit 10\n set extcommunity rt 65002:1 65002:2\n set extcommunity soo 65002:9\n!\n'
		printf 'route-map G4 permit 10\n set aggregator as 65003 192.0.2.9\n set atomic-aggregate\n set origin egp\n!\n'
		printf 'route-map G5 permit 10\n set community 65002:1 65002:2 65002:3 65002:4 65002:5 65002:6 65002:7 65002:8 graceful-shutdown blackhole\n!\n'
		printf 'route-map G6 permit 10\n set as-path prepend 65020 65020 65020 65020 65020 65020\n set metric 4294967295\n!\n'
		printf 'route-map G7 permit 10\n!\n'
		printf 'router bgp 65002\n bgp router-id 192.0.2.2\n'
		printf ' no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n no bgp network import-check\n coalesce-time 0\n'
		printf ' neighbor 192.0.2.1 remote-as 65001\n neighbor 192.0.2.1 timers connect 1\n neighbor 192.0.2.1 advertisement-interval 0\n'
		printf ' address-family ipv4 unicast\n  neighbor 192.0.2.1 activate\n  neighbor 192.0.2.1 addpath-tx-all-paths\n'
		for ((i = 0; i < n4; i++)); do
			a=$(((16 << 24) + (i << 8)))
			printf '  network %d.%d.%d.0/24 route-map G%d\n' $((a >> 24)) $((a >> 16 & 255)) $((a >> 8 & 255)) $((i % 8))
		done
		printf ' exit-address-family\n address-family ipv6 unicast\n  neighbor 192.0.2.1 activate\n'
		for ((i = 0; i < n6; i++)); do
			printf '  network 2001:db8:%x::/48 route-map G%d\n' $((0x1000 + i)) $((i % 8))
		done
		printf ' exit-address-family\n!\n'
	} >"$tmp/bgpd.conf"
	mkdir -p "$tmp/frr"
	start frr-unicast-tx "$S" /usr/lib/frr/bgpd -Z -n -S -P 0 -f "$tmp/bgpd.conf" -i "$tmp/frr/bgpd.pid" --vty_socket "$tmp/frr" --log stdout
	poll 60 has ipv4 $n4
	poll 30 has ipv6 $n6
	# Withdrawals: 100 of each (one vtysh call per family).
	local cmds=(-c 'configure terminal' -c 'router bgp 65002' -c 'address-family ipv4 unicast')
	for ((i = 0; i < 100; i++)); do
		a=$(((16 << 24) + ((i * 7) << 8)))
		cmds+=(-c "no network $((a >> 24)).$((a >> 16 & 255)).$((a >> 8 & 255)).0/24 route-map G$((i * 7 % 8))")
	done
	cmds+=(-c 'exit-address-family' -c 'address-family ipv6 unicast')
	for ((i = 0; i < 100; i++)); do
		cmds+=(-c "$(printf 'no network 2001:db8:%x::/48 route-map G%d' $((0x1000 + i * 3)) $((i * 3 % 8)))")
	done
	s vtysh --vty_socket "$tmp/frr" -d bgpd "${cmds[@]}" >/dev/null
	poll 30 has ipv4 $((n4 - 100))
	poll 30 has ipv6 $((n6 - 100))
	finish frr-unicast frr-unicast-tx
}

# ---------------------------------------------------------- authbgpd-srpolicy
# authbgpd (this tree, GoBGP v3.37 inside) advertises three SR policies
# (SAFI 73, IPv6 and IPv4 endpoints) with SRv6 segment lists (type B),
# Binding SIDs, preferences, a Route Target or NO_ADVERTISE, as
# e2e/srv6_test.go does; then a reload withdraws one. No HMAC key: this
# kernel has no SRv6 HMAC (a key ID would only add a Large Community, as
# frr-unicast's routes carry).
srpolicy_conf() {
	printf '[global]\nasn = 65002\nrouter-id = "192.0.2.2"\nlisten-port = -1\n\n[api]\ngrpc = ""\nhttp = ""\n\n'
	printf '[[peers]]\naddress = "192.0.2.1"\nasn = 65001\nfamilies = ["ipv6-srpolicy", "ipv4-srpolicy"]\n'
	printf '\n[[srv6.policies]]\nname = "gold"\ncolor = 100\nendpoint = "2001:db8:3::3"\ndistinguisher = 1\npreference = 200\n'
	printf 'binding-sid = "fc00:0:1:b6::1f2e"\nsegments = ["fc00:0:3::e", "fc00:0:3::d6"]\nheadends = ["192.0.2.1"]\n'
	printf '\n[[srv6.policies]]\nname = "silver"\ncolor = 200\nendpoint = "198.51.100.3"\ndistinguisher = 2\npreference = 150\n'
	printf 'binding-sid = "fc00:0:1:b6::4"\nsegments = ["fc00:0:3::e", "fc00:0:4::1", "fc00:0:5::1", "fc00:0:3::d6"]\nheadends = ["192.0.2.1", "192.0.2.9"]\n'
	if [ "$1" = 3 ]; then
		printf '\n[[srv6.policies]]\nname = "bronze"\ncolor = 4294967295\nendpoint = "2001:db8:3::4"\ndistinguisher = 4294967295\npreference = 1\n'
		printf 'binding-sid = "fc00:0:1:b6::ffff"\nsegments = ["fc00:0:6::1"]\nheadends = []\n'
	fi
}
authbgpd_srpolicy() {
	receiver authbgpd-srpolicy ipv6-srpolicy ipv4-srpolicy
	capture authbgpd-srpolicy
	srpolicy_conf 3 >"$tmp/authbgpd.toml"
	start authbgpd-srpolicy-tx "$S" "$tmp/authbgpd" -f "$tmp/authbgpd.toml" --log-level info
	poll 30 has ipv6-srpolicy 2
	poll 30 has ipv4-srpolicy 1
	srpolicy_conf 2 >"$tmp/authbgpd.toml"
	kill -HUP "$(cat "$tmp/authbgpd-srpolicy-tx.pid")"
	poll 30 has ipv6-srpolicy 1
	finish authbgpd-srpolicy authbgpd-srpolicy-tx
}

# ------------------------------------------------------------- gobgp-srv6-mup
# gobgpd (GoBGP v3.37.0) sends what its CLI can put a BGP Prefix-SID with an
# SRv6 L3 Service TLV (RFC 9252: SRv6 SID Information sub-TLV with a SID
# Structure sub-sub-TLV) on: MUP Interwork and Direct Segment Discovery
# routes (IPv4 and IPv6), flowspec redirects with an SRv6 policy; besides
# them MUP session-transformed routes, VPN-IPv4/IPv6, labeled unicast and
# EVPN routes (route distinguishers, labels, ESIs); then withdraws some. (No
# RT constraint: with it negotiated, gobgpd would send the receiver none of
# the VPN routes, since the receiver has no VRF importing them.)
mup_families=(ipv4-mup ipv6-mup ipv4-flowspec ipv6-flowspec l3vpn-ipv4-unicast l3vpn-ipv6-unicast ipv4-labelled-unicast l2vpn-evpn)
gobgp_srv6_mup() {
	local f
	receiver gobgp-srv6-mup "${mup_families[@]}"
	capture gobgp-srv6-mup
	{
		printf '[global.config]\n  as = 65002\n  router-id = "192.0.2.2"\n  port = -1\n'
		printf '[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "192.0.2.1"\n    peer-as = 65001\n'
		printf '  [neighbors.timers.config]\n    connect-retry = 1\n'
		for f in "${mup_families[@]}"; do
			printf '  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = "%s"\n' "$f"
		done
	} >"$tmp/gobgpd-tx.toml"
	start gobgp-srv6-mup-tx "$S" "$tmp/gobgpd" -f "$tmp/gobgpd-tx.toml" -t toml -p -l info --api-hosts 127.0.0.1:50051 --pprof-disable
	poll 10 gcli "$S" global
	local add=(global rib add)
	gcli "$S" "${add[@]}" -a ipv4-mup isd 198.51.100.0/24 rd 65002:10 prefix fc00:0:1::/48 locator-node-length 24 function-length 16 behavior ENDM_GTP4E rt 65002:10 nexthop 2001:db8::2
	gcli "$S" "${add[@]}" -a ipv6-mup isd 2001:db8:100::/48 rd 65002:10 prefix fc00:0:2::/48 locator-node-length 24 function-length 16 behavior ENDM_GTP6E rt 65002:10 nexthop 2001:db8::2
	gcli "$S" "${add[@]}" -a ipv4-mup dsd 203.0.113.1 rd 65002:11 prefix fc00:0:3::/64 locator-node-length 32 function-length 16 behavior END_DT4 rt 65002:11 mup 65002:11 nexthop 2001:db8::2
	gcli "$S" "${add[@]}" -a ipv6-mup dsd 2001:db8:200::1 rd 65002:11 prefix fc00:0:4::/64 locator-node-length 32 function-length 16 behavior END_DT6 rt 65002:11 mup 65002:11 nexthop 2001:db8::2
	gcli "$S" "${add[@]}" -a ipv4-mup t1st 198.51.100.64/26 rd 65002:12 rt 65002:12 teid 12345 qfi 9 endpoint 203.0.113.2 source 203.0.113.3 nexthop 192.0.2.2
	gcli "$S" "${add[@]}" -a ipv6-mup t2st 2001:db8:300::1 rd 65002:12 rt 65002:12 endpoint-address-length 160 teid 0x12345678 mup 65002:12 nexthop 2001:db8::2
	gcli "$S" "${add[@]}" -a ipv4-flowspec match destination 198.51.100.0/24 protocol tcp destination-port 179 then redirect 65002:20 color 100 prefix fc00:0:5::/48 locator-node-length 24 function-length 16 behavior END_DT4
	gcli "$S" "${add[@]}" -a ipv6-flowspec match destination 2001:db8:400::/48 source 2001:db8:500::/48 then redirect 65002:21 color 200 prefix fc00:0:6::/48 locator-node-length 24 function-length 16 behavior END_DT6
	gcli "$S" "${add[@]}" -a ipv4-flowspec match source 203.0.113.0/24 packet-length '>=64&<=1500' then rate-limit 1000
	gcli "$S" "${add[@]}" -a vpnv4 198.51.100.128/25 label 100 rd 65002:30 rt 65002:30 nexthop 192.0.2.2
	gcli "$S" "${add[@]}" -a vpnv4 198.51.100.0/25 label 101 rd 192.0.2.2:31 rt 65002:31 nexthop 192.0.2.2 community 65002:31 large-community 65002:31:31
	gcli "$S" "${add[@]}" -a vpnv6 2001:db8:600::/48 label 200 rd 4200000002:32 rt 65002:32 nexthop 2001:db8::2
	gcli "$S" "${add[@]}" -a ipv4-mpls 203.0.113.128/25 300/301 nexthop 192.0.2.2
	gcli "$S" "${add[@]}" -a evpn macadv 00:11:22:33:44:55 203.0.113.10 esi 0 etag 0 label 400 rd 65002:40 rt 65002:40 encap vxlan
	gcli "$S" "${add[@]}" -a evpn prefix 203.0.113.0/26 gw 203.0.113.1 esi 0 etag 0 label 401 rd 65002:41 rt 65002:41
	gcli "$S" "${add[@]}" -a evpn multicast 203.0.113.11 etag 0 rd 65002:42 rt 65002:42
	poll 30 has ipv4-mup 3
	poll 30 has ipv6-mup 3
	poll 30 has evpn 3
	gcli "$S" global rib del -a vpnv4 198.51.100.128/25 label 100 rd 65002:30
	gcli "$S" global rib del -a ipv4-mup isd 198.51.100.0/24 rd 65002:10 prefix fc00:0:1::/48 locator-node-length 24 function-length 16 behavior ENDM_GTP4E rt 65002:10 nexthop 2001:db8::2
	gcli "$S" global rib del -a evpn multicast 203.0.113.11 etag 0 rd 65002:42
	poll 30 has ipv4-mup 2
	poll 30 has evpn 2
	finish gobgp-srv6-mup gobgp-srv6-mup-tx
}

# ----------------------------------------------------------------- exabgp-as2
# ExaBGP 4.2 without the 4-octet AS capability (an "OLD" speaker, RFC 6793):
# AS_PATHs with AS_TRANS and AS4_PATH (an AS_SET among them), AGGREGATOR
# with AS4_AGGREGATOR; plus labeled VPN and VPLS NLRI, a flowspec rule,
# ORIGINATOR_ID and CLUSTER_LIST, and an attribute GoBGP passes on as
# unknown (type 240).
exabgp_as2() {
	receiver exabgp-as2 ipv4-unicast ipv6-unicast l3vpn-ipv4-unicast l2vpn-vpls ipv4-flowspec
	capture exabgp-as2
	cat >"$tmp/exabgp.conf" <<'EOC'
neighbor 192.0.2.1 {
	router-id 192.0.2.2;
	local-address 192.0.2.2;
	local-as 65002;
	peer-as 65001;
	capability {
		asn4 disable;
		route-refresh;
	}
	family {
		ipv4 unicast;
		ipv6 unicast;
		ipv4 mpls-vpn;
		l2vpn vpls;
		ipv4 flow;
	}
	static {
		route 198.51.100.0/24 next-hop self as-path [ 65002 4200000001 4200000002 65003 ] origin igp med 10;
		route 198.51.100.0/25 next-hop self as-path [ 65002 4200000001 ( 65004 4200000003 ) ] aggregator ( 4200000005:192.0.2.9 ) atomic-aggregate;
		route 198.51.100.128/25 next-hop self as-path [ 65002 65005 ] aggregator ( 65006:192.0.2.10 ) community [ 65002:1 no-export ] extended-community [ target:65002:7 origin:192.0.2.2:8 ];
		route 203.0.113.0/24 next-hop self as-path [ 65002 4200000001 4200000001 4200000001 4200000001 4200000001 4200000001 4200000001 4200000001 4200000001 4200000001 ] large-community [ 4200000001:1:2 ];
		route 203.0.113.0/25 next-hop self as-path [ 65002 ] attribute [ 0xf0 0xc0 0x0102030405 ] originator-id 192.0.2.77 cluster-list [ 192.0.2.78 192.0.2.79 ];
		route 2001:db8:700::/48 next-hop 2001:db8::2 as-path [ 65002 4200000004 ] community [ 65002:6 ];
		route 198.51.100.0/26 rd 65002:60 next-hop self label [ 600 ] extended-community [ target:65002:60 ] as-path [ 65002 4200000006 ];
		route 198.51.100.64/26 rd 192.0.2.2:61 next-hop self label [ 601 602 ] as-path [ 65002 ];
	}
	l2vpn {
		vpls rd 65002:70 endpoint 3 base 10702 offset 1 size 8 next-hop 192.0.2.2 extended-community [ target:65002:70 ];
	}
	flow {
		route ddos {
			match {
				source 203.0.113.0/24;
				destination 198.51.100.1/32;
				protocol udp;
				destination-port =53;
				packet-length >100&<1500;
			}
			then {
				discard;
			}
		}
	}
}
EOC
	mkdir -p "$tmp/exabgp"
	start exabgp-as2-tx "$S" env exabgp.daemon.user=root exabgp.log.destination=stdout exabgp.api.cli=false \
		exabgp.tcp.bind= exabgp.cache.attributes=false /usr/sbin/exabgp "$tmp/exabgp.conf"
	poll 30 has ipv4 5
	poll 30 has ipv6 1
	poll 30 has vpnv4 2
	poll 30 has ipv4-flowspec 1
	finish exabgp-as2 exabgp-as2-tx
}

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(frr-unicast authbgpd-srpolicy gobgp-srv6-mup exabgp-as2)
for n in "${names[@]}"; do
	log "capture $n"
	"${n//-/_}"
done
ls -l "$out"
