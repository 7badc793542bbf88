#!/bin/sh
# Writes FILE.golden for every capture in this directory: what tshark, an
# independent decoder, finds in each frame. frame_test.go checks DecodeTCP
# against it. Run through `go generate ./frame` after
# mkcaptures.sh.
set -eu
cd "$(dirname "$0")"
for f in *.pcap *.pcapng; do
	[ -e "$f" ] || continue
	tshark -r "$f" -T fields -E header=y -E separator=/t -E occurrence=a \
		-E aggregator=, -E quote=n \
		-e frame.number -e frame.protocols -e ip.src -e ip.dst \
		-e ipv6.src -e ipv6.dst -e tcp.srcport -e tcp.dstport -e tcp.len \
		-e tcp.hdr_len -e ipv6.routing.type -e ipv6.routing.segleft \
		-e tcp.option_kind >"$f.golden"
done
