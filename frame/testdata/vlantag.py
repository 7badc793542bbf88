#!/usr/bin/env python3
"""vlantag.py IN.pcap OUT.pcap: copies a little-endian microsecond pcap of
Ethernet (link type 1) or Linux cooked v1 (113) frames, inserting VLAN tags
before the EtherType / protocol field: frame i gets one 802.1Q tag (i%3==0),
an 802.1ad S-tag and an 802.1Q C-tag (i%3==1), or a 0x9100 tag and two
802.1Q tags (i%3==2). The kernel that made the fixtures has no VLAN
support, so tagged frames are derived from real ones this way; tshark still
decodes them independently for the golden files."""
import struct, sys

TAGS = [
    [(0x8100, 100)],
    [(0x88A8, 200), (0x8100, 100)],
    [(0x9100, 300), (0x8100, 200), (0x8100, 100)],
]

src = open(sys.argv[1], "rb").read()
magic, _, _, _, _, _, link = struct.unpack_from("<IHHiIII", src, 0)
assert magic == 0xA1B2C3D4, "want a little-endian microsecond pcap"
at = {1: 12, 113: 14}[link]
out = bytearray(src[:24])
off, i = 24, 0
while off < len(src):
    sec, usec, incl, orig = struct.unpack_from("<IIII", src, off)
    data = src[off + 16 : off + 16 + incl]
    off += 16 + incl
    tags = TAGS[i % 3]
    i += 1
    # The first TPID replaces the EtherType field; the original EtherType
    # ends the tag list.
    ethertype = data[at : at + 2]
    tagbytes = struct.pack("!H", tags[0][0])
    for n, (tpid, vid) in enumerate(tags):
        nxt = struct.pack("!H", tags[n + 1][0]) if n + 1 < len(tags) else ethertype
        tagbytes += struct.pack("!H", vid) + nxt
    data = data[:at] + tagbytes + data[at + 2 :]
    out += struct.pack("<IIII", sec, usec, len(data), orig + len(data) - incl)
    out += data
open(sys.argv[2], "wb").write(out)
