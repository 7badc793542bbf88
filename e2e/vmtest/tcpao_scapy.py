#!/usr/bin/python3
"""Verifies every TCP-AO MAC of a capture with scapy (an oracle independent
of authbgpd's tcpao package): scapy.contrib.tcpao's calc_tcpao_traffic_key
and calc_tcpao_mac (not sign_tcpao, which MACs twice).

    tcpao_scapy.py CAPTURE.pcap PAIRS.json

PAIRS.json is a list of {"a": ADDR, "b": ADDR, "keys": [{"a_id": N, "b_id": N,
"alg": "HMAC-SHA-1-96" | "AES-128-CMAC-96", "secret_hex": HEX,
"include_options": BOOL (default true)}]}: a signs with KeyID a_id, b with
b_id. Each connection between a and b is followed
from its SYN and SYN-ACK (the traffic keys come from both ISNs; a SYN's MAC
from its own ISN and 0); the SNE is taken as 0 (the test sessions are far
shorter than 4 GiB, the ISNs are checked not to wrap). Prints one JSON
object: per pair "a-b", the segments "ok", "bad" (a MAC that does not
verify), "unsigned" (no TCP-AO option), "md5", "no_key" (a KeyID of no key),
"no_handshake", "wrapped", and the KeyIDs seen per sender.
"""

import json
import logging
import sys

logging.getLogger("scapy").setLevel(logging.ERROR)

from scapy.layers.inet import IP, TCP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.packet import Padding  # noqa: E402
from scapy.utils import PcapReader  # noqa: E402
from scapy.contrib.tcpao import calc_tcpao_traffic_key, calc_tcpao_mac, get_alg  # noqa: E402


def ao_option(tcp_bytes):
    """(keyid, rnextkeyid, mac) of the TCP-AO option, and whether a TCP-MD5
    option is there."""
    doff = (tcp_bytes[12] >> 4) * 4
    opts = tcp_bytes[20:doff]
    i, ao, md5 = 0, None, False
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        ln = opts[i + 1]
        if kind == 29 and ln >= 4:
            ao = (opts[i + 2], opts[i + 3], bytes(opts[i + 4:i + ln]))
        elif kind == 19:
            md5 = True
        i += ln
    return ao, md5


def main():
    pcap, pairs_file = sys.argv[1], sys.argv[2]
    with open(pairs_file) as f:
        pairs = json.load(f)
    stats = {}
    bypair = {}
    for pr in pairs:
        name = "%s-%s" % (pr["a"], pr["b"])
        stats[name] = {"ok": 0, "bad": 0, "unsigned": 0, "md5": 0, "no_key": 0, "no_handshake": 0,
                       "wrapped": 0, "key_ids": {pr["a"]: [], pr["b"]: []}}
        keys = []
        for k in pr["keys"]:
            keys.append({"a_id": k["a_id"], "b_id": k["b_id"], "alg": get_alg(k["alg"]),
                         "secret": bytes.fromhex(k["secret_hex"]), "opts": k.get("include_options", True)})
        bypair[(pr["a"], pr["b"])] = (name, keys, True)
        bypair[(pr["b"], pr["a"])] = (name, keys, False)
    isn = {}  # (src, sport, dst, dport) -> the sender's ISN
    for p in PcapReader(pcap):
        if TCP not in p:
            continue
        ip = p[IP] if IP in p else (p[IPv6] if IPv6 in p else None)
        if ip is None:
            continue
        if Padding in p:
            p[Padding].underlayer.remove_payload()
        src, dst = ip.src, ip.dst
        if (src, dst) not in bypair:
            continue
        name, keys, from_a = bypair[(src, dst)]
        st = stats[name]
        tcp = p[TCP]
        raw = bytes(tcp)
        syn, ack = bool(tcp.flags & 0x02), bool(tcp.flags & 0x10)
        me = (src, tcp.sport, dst, tcp.dport)
        peer = (dst, tcp.dport, src, tcp.sport)
        if syn:
            isn[me] = tcp.seq
        ao, md5 = ao_option(raw)
        if ao is None:
            st["md5" if md5 else "unsigned"] += 1
            continue
        keyid, rnext, mac = ao
        ids = st["key_ids"][src]
        if not ids or ids[-1] != [keyid, rnext]:
            ids.append([keyid, rnext])
        key = None
        for k in keys:
            if (k["a_id"] if from_a else k["b_id"]) == keyid:
                key = k
        if key is None:
            st["no_key"] += 1
            continue
        if syn and not ack:
            sisn, disn = tcp.seq, 0
        elif me in isn and peer in isn:
            sisn, disn = isn[me], isn[peer]
        else:
            st["no_handshake"] += 1
            continue
        # SNE 0 holds while the sequence numbers have not wrapped.
        if (tcp.seq - sisn) % (1 << 32) > (1 << 31) or tcp.seq < sisn:
            st["wrapped"] += 1
            continue
        tk = calc_tcpao_traffic_key(p, key["alg"], key["secret"], sisn, disn)
        want = calc_tcpao_mac(p, key["alg"], tk, include_options=key["opts"], sne=0)
        st["ok" if want == mac else "bad"] += 1
    json.dump(stats, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
