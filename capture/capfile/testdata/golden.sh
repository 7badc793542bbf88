#!/bin/sh
# Writes FILE.golden for every capture in this directory: the per-frame
# metadata tshark (an independent reader) finds. capfile_test.go checks the
# Reader against it. sections.pcapng.golden describes basic_nsec.pcapng and
# two_linktypes.pcapng concatenated (a two-section pcapng file), which the
# test builds in memory. Run through `go generate ./capture/capfile`
# after frame/testdata/mkcaptures.sh.
set -eu
cd "$(dirname "$0")"
golden() {
	tshark -r "$1" -T fields -E header=y -E separator=/t -E quote=n \
		-e frame.number -e frame.section_number -e frame.interface_id \
		-e frame.encap_type -e frame.time_epoch -e frame.cap_len -e frame.len
}
for f in *.pcap *.pcapng; do
	[ -e "$f" ] || continue
	golden "$f" >"$f.golden"
done
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cat basic_nsec.pcapng two_linktypes.pcapng >"$tmp"
golden "$tmp" >sections.pcapng.golden
