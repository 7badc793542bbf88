#!/usr/bin/env bash
# Installs what the tests need, when missing: Debian's FRR, BIRD 2, gobgpd,
# ExaBGP, tcpdump, tshark, iproute2, ping (iputils-ping), setcap (libcap2-bin), and podman, runc and
# debootstrap (scripts/images.sh, e2e/container_test.go), and prometheus for its promtool
# (deploy/prometheus rule checks and tests). Needs root (it says so otherwise).
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "$2" ]; }
have bgpd /usr/lib/frr/bgpd || need+=(frr)
have bird /usr/sbin/bird || need+=(bird2)
have gobgpd /usr/bin/gobgpd || need+=(gobgpd)
have exabgp /usr/sbin/exabgp || need+=(exabgp)
have tcpdump /usr/bin/tcpdump || need+=(tcpdump)
have tshark /usr/bin/tshark || need+=(tshark)
have ip /usr/sbin/ip || need+=(iproute2)
have setcap /usr/sbin/setcap || need+=(libcap2-bin) # e2e/caps_test.go: the image's file capabilities
have podman /usr/bin/podman || need+=(podman)      # scripts/images.sh, e2e/container_test.go
have runc /usr/sbin/runc || need+=(runc)
have debootstrap /usr/sbin/debootstrap || need+=(debootstrap) # base images without a registry
have promtool /usr/bin/promtool || need+=(prometheus)         # scripts/test.sh: promtool check/test rules
/usr/bin/python3 -c 'import scapy.contrib.tcpao' >/dev/null 2>&1 || need+=(python3-scapy) # tcpao's TestScapyOracle (an independent TCP-AO MAC)
have patch /usr/bin/patch || need+=(patch) # third_party/gobgp/carry_test.go, scripts/carry-gobgp.sh: the carried GoBGP
have ping /usr/bin/ping || need+=(iputils-ping) # e2e/fib_test.go, the fabric labs: traffic through authbgpd's kernel routes

if [ ${#need[@]} -eq 0 ]; then
	echo "deps: frr bird2 gobgpd exabgp tcpdump tshark iproute2 libcap2-bin podman runc debootstrap prometheus python3-scapy patch iputils-ping present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${need[*]}; not root, so not installing (tests that need them will skip and say why)"
	exit 0
fi
echo "deps: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "deps: installed ${need[*]}"
