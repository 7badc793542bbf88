#!/bin/sh
# Regenerates the real capture fixtures of frame/testdata and
# capture/capfile/testdata. Needs root, iproute2, tcpdump, tshark
# (dumpcap, editcap) and python3. It builds two network namespaces joined by
# a veth pair (plus a tun pair for raw IP, and SRv6 routes with HMAC key 42,
# sha256, secret "srv6key"), runs short TCP exchanges on port 179 between
# them (traffic.py; some signed with TCP-MD5, key "s3cret", one with a wrong
# key) and captures them in several formats. The kernel it was written on
# has no VLAN devices, so vlan_*.pcap get their 802.1Q/802.1ad/0x9100 tags
# from vlantag.py. Afterwards regenerate the golden files (tshark's view of
# every frame): go generate ./frame/...
#
# Usage: sudo sh frame/testdata/mkcaptures.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fr=$here
cf=$here/../../capture/capfile/testdata
py=$(command -v python3)
P=capfx$$
A=$P-a
B=$P-b
tmp=$(mktemp -d)
: >"$tmp/pids"

cleanup() {
	for pid in $(cat "$tmp/pids" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
	for f in server relay; do
		[ -f "$tmp/$f" ] && kill "$(cat "$tmp/$f")" 2>/dev/null || true
	done
	ip netns del "$A" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

a() { ip netns exec "$A" "$@"; }
b() { ip netns exec "$B" "$@"; }

ip netns add "$A"
ip netns add "$B"
ip -n "$A" link add veth0 type veth peer name veth1 netns "$B"
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set veth0 up
ip -n "$B" link set veth1 up
ip -n "$A" addr add 192.0.2.1/24 dev veth0
ip -n "$A" addr add 192.0.2.11/24 dev veth0
ip -n "$A" addr add 192.0.2.12/24 dev veth0
ip -n "$B" addr add 192.0.2.2/24 dev veth1
ip -n "$A" addr add 2001:db8::1/64 dev veth0 nodad
ip -n "$A" addr add 2001:db8::11/64 dev veth0 nodad
ip -n "$B" addr add 2001:db8::2/64 dev veth1 nodad

# Raw IP: persistent tun devices "tn" in both namespaces, joined by
# tun_relay.py (this kernel has no IPIP/IP6IP6 or VLAN devices).
for ns in "$A" "$B"; do ip -n "$ns" tuntap add mode tun name tn; done
"$py" "$here/tun_relay.py" "$A" "$B" >"$tmp/relay.log" 2>&1 &
echo $! >"$tmp/relay"
sleep 0.5
for x in "$A 1" "$B 2"; do
	set -- $x
	ip -n "$1" link set tn up
	ip -n "$1" addr add "203.0.113.$2/24" dev tn
	ip -n "$1" addr add "2001:db8:7::$2/64" dev tn nodad
done

# SRv6: inline SRH (TCP follows the SRH) and encapsulation (an inner IPv6
# packet follows), both with an HMAC TLV (key 42, sha256, secret "srv6key").
b sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.veth1.seg6_enabled=1
ip -n "$B" addr add 2001:db8:5::2/128 dev lo
ip -n "$B" addr add 2001:db8:6::2/128 dev lo
for ns in "$A" "$B"; do printf 'srv6key\n' | ip -n "$ns" sr hmac set 42 sha256 >/dev/null; done
ip -n "$A" sr tunsrc set 2001:db8::1
ip -n "$A" -6 route add 2001:db8:5::2/128 encap seg6 mode inline segs 2001:db8::2 hmac 42 dev veth0
ip -n "$A" -6 route add 2001:db8:6::2/128 encap seg6 mode encap segs 2001:db8::2 hmac 42 dev veth0

ip netns exec "$B" "$py" "$here/traffic.py" server &
echo $! >"$tmp/server"
sleep 1

# cap NAME CMD...: start a capture in namespace A, wait until it listens.
cap() {
	n=$1
	shift
	: >"$tmp/$n.log"
	ip netns exec "$A" "$@" >"$tmp/$n.log" 2>&1 &
	echo $! >>"$tmp/pids"
	i=0
	until grep -q -e 'listening on' -e 'Capturing on' "$tmp/$n.log"; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat "$tmp/$n.log"; exit 1; }
		sleep 0.1
	done
}
stopcaps() {
	sleep 1
	for pid in $(cat "$tmp/pids"); do kill -INT "$pid" 2>/dev/null || true; done
	for pid in $(cat "$tmp/pids"); do wait "$pid" 2>/dev/null || true; done
	: >"$tmp/pids"
}
client() { a "$py" "$here/traffic.py" client "$@"; }

# Phase 1: plain IPv4 and IPv6 sessions, captured every way.
cap eth tcpdump --immediate-mode -i veth0 -w "$cf/basic_usec.pcap"
cap nsec tcpdump --immediate-mode -i veth0 -s 96 --time-stamp-precision nano -w "$cf/basic_nsec.pcap" tcp
cap ng tshark -i veth0 -i lo -F pcapng -w "$cf/basic_two_if.pcapng"
cap sll tcpdump --immediate-mode -i any -y LINUX_SLL -w "$fr/basic_sll.pcap"
client 192.0.2.1 192.0.2.2
client 2001:db8::1 2001:db8::2
stopcaps
editcap -F pcapng "$cf/basic_nsec.pcap" "$cf/basic_nsec.pcapng"

# Phase 2: TCP-MD5 (good key v4 and v6, wrong key v4).
cap md5 tcpdump --immediate-mode -i veth0 -w "$fr/md5.pcap"
client 192.0.2.11 192.0.2.2 s3cret
client 2001:db8::11 2001:db8::2 s3cret
client 192.0.2.12 192.0.2.2 wrong
stopcaps

# Phase 3: raw IP on the tun device, two link types in one pcapng, cooked
# v2 for everything.
cap raw tcpdump --immediate-mode -i tn -w "$fr/raw.pcap"
cap tng tshark -i veth0 -i tn -F pcapng -w "$cf/two_linktypes.pcapng"
cap tsll2 tcpdump --immediate-mode -i any -y LINUX_SLL2 -w "$fr/tun_sll2.pcap"
client 203.0.113.1 203.0.113.2
client 2001:db8:7::1 2001:db8:7::2
client 192.0.2.1 192.0.2.2
stopcaps
tcpdump -r "$fr/raw.pcap" -w "$tmp/raw4.pcap" ip 2>/dev/null
tcpdump -r "$fr/raw.pcap" -w "$tmp/raw6.pcap" ip6 2>/dev/null
editcap -T rawip4 "$tmp/raw4.pcap" "$fr/rawip4.pcap"
editcap -T rawip6 "$tmp/raw6.pcap" "$fr/rawip6.pcap"

# Phase 4: SRv6 with HMAC, inline and encapsulated.
cap srv6 tcpdump --immediate-mode -i veth0 -w "$fr/srv6.pcap"
client 2001:db8::1 2001:db8:5::2
client 2001:db8::1 2001:db8:6::2
stopcaps

# VLAN tags (802.1Q, 802.1ad, 0x9100) inserted into real frames.
"$py" "$here/vlantag.py" "$fr/md5.pcap" "$fr/vlan_eth.pcap"
"$py" "$here/vlantag.py" "$fr/basic_sll.pcap" "$fr/vlan_sll.pcap"

ls -l "$fr"/*.pcap* "$cf"/*.pcap*
