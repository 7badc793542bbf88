#!/usr/bin/python3
"""ExaBGP 4.2 speaking TCP-AO (RFC 5925) on Linux >= 6.7, for tests.

    EXABGP_AO_KEYS=keys.json exabgp_ao.py EXABGP-ARGS...

ExaBGP has TCP-MD5 only: its MD5() (exabgp/reactor/network/tcp.py, imported
by name into reactor/network/outgoing.py and reactor/listener.py) puts a
TCP_MD5SIG key on each socket before connect. This wrapper replaces it, where
it is used, by one that installs every master key tuple (MKT) of a chain
with setsockopt(IPPROTO_TCP, TCP_AO_ADD_KEY = 38, struct tcp_ao_add), then
runs ExaBGP's own main. A neighbor picks its chain with its md5-password:
`md5-password "ao-NAME";` is chain NAME of the file; any other password goes
to the original MD5() (plain TCP-MD5), as does a neighbor without one.

keys.json (re-read whenever it changes):

    {"chains": {"NAME": [
        {"send_id": 1, "recv_id": 1, "alg": "hmac(sha1)", "secret_hex": "...",
         "prefix": 32, "send_from": 1767225600.5, "exclude_options": false}]}}

The MKTs are for the neighbor's address (prefix: its length, default /32 or
/128).
alg is the kernel's name ("hmac(sha1)", "cmac(aes128)"); send_from (Unix
time, optional) schedules keys like authbgpd's keychains: the active key is
the one with the latest send_from at or before now (none counts as the
earliest). A connection starts with the active key as current key and
RNext; a thread then follows the chain on every live socket: keys added to
the file are added to the socket, and when another key becomes active the
socket's RNextKeyID is set to its recv_id (TCP_AO_INFO = 40), so that the
far end switches its current key to it (RFC 5925 7.5.2); ours follows the
far end's RNextKeyID, as the kernel does.

Every action is logged to stderr as "exabgp_ao: ..." (never a secret).
"""

import json
import os
import socket
import struct
import sys
import threading
import time
import weakref

TCP_AO_ADD_KEY = 38
TCP_AO_INFO = 40
TCP_AO_KEYF_EXCLUDE_OPT = 2

KEYS_FILE = os.environ.get("EXABGP_AO_KEYS", "")
CHAIN_PREFIX = "ao-"

_lock = threading.Lock()
_file = {"mtime": None, "chains": {}}
# Live sockets: id(socket) -> [weakref to the socket, peer address, chain
# name, KeyID pairs on it, the RNext last set].
_socks = {}


def log(msg):
    sys.stderr.write("exabgp_ao: %s\n" % msg)
    sys.stderr.flush()


def chains():
    """The chains of KEYS_FILE, re-read when its mtime changes."""
    if not KEYS_FILE:
        return {}
    try:
        mtime = os.stat(KEYS_FILE).st_mtime_ns
    except OSError:
        return _file["chains"]
    if mtime != _file["mtime"]:
        try:
            with open(KEYS_FILE) as f:
                doc = json.load(f)
        except (OSError, ValueError) as exc:
            log("cannot read %s: %s (keeping the last chains)" % (KEYS_FILE, exc))
            return _file["chains"]
        _file["mtime"] = mtime
        _file["chains"] = doc.get("chains", {})
        log("chain file read: %s" % ", ".join("%s (%d keys)" % (n, len(ks)) for n, ks in sorted(_file["chains"].items())))
    return _file["chains"]


def active_key(keys, now=None):
    """The key with the latest send_from at or before now (none: earliest)."""
    now = time.time() if now is None else now
    best, best_from = None, None
    for k in keys:
        sf = k.get("send_from")
        sf = -1.0 if sf is None else float(sf)
        if sf > now:
            continue
        if best is None or sf >= best_from:
            best, best_from = k, sf
    return best


def sockaddr(ip):
    """A struct __kernel_sockaddr_storage (128 bytes) for ip, port 0."""
    if ":" in ip:
        b = struct.pack("=HHI16sI", socket.AF_INET6, 0, 0, socket.inet_pton(socket.AF_INET6, ip), 0)
    else:
        b = struct.pack("=HH4s", socket.AF_INET, 0, socket.inet_pton(socket.AF_INET, ip))
    return b + bytes(128 - len(b))


def tcp_ao_add(ip, k):
    """struct tcp_ao_add (288 bytes): addr, alg_name[64], ifindex,
    set_current:1 set_rnext:1 (not used: see install), reserved2, prefix,
    sndid, rcvid, maclen (0: the default, 12), keyflags, keylen, key[80]."""
    secret = bytes.fromhex(k["secret_hex"])
    prefix = k.get("prefix", 128 if ":" in ip else 32)
    flags = TCP_AO_KEYF_EXCLUDE_OPT if k.get("exclude_options") else 0
    b = sockaddr(ip) + struct.pack("=64siIHBBBBBB80s", k["alg"].encode(), 0, 0, 0,
                                   prefix, k["send_id"], k["recv_id"], 0, flags, len(secret), secret)
    assert len(b) == 288
    return b


def tcp_ao_info_set(rnext):
    """struct tcp_ao_info_opt (48 bytes) setting RNext (and ao_required,
    which every set rewrites)."""
    return struct.pack("=IHBB5Q", 2 | 4, 0, 0, rnext, 0, 0, 0, 0, 0)


def key_name(k):
    return "%d/%d %s" % (k["send_id"], k["recv_id"], k["alg"])


def install(io, ip, name, keys):
    """Adds every MKT of the chain to a new socket, the active one last:
    connect() takes the first matching key of the socket's list (the last
    added) as its current key and RNext."""
    act = active_key(keys)
    order = [k for k in keys if k is not act] + ([act] if act is not None else [])
    for k in order:
        io.setsockopt(socket.IPPROTO_TCP, TCP_AO_ADD_KEY, tcp_ao_add(ip, k))
    ids = set((k["send_id"], k["recv_id"]) for k in keys)
    _socks[id(io)] = [weakref.ref(io), ip, name, ids, act["recv_id"] if act else None]
    log("peer %s chain %s: socket %d: MKTs %s installed, active %s" % (
        ip, name, io.fileno(), ", ".join(key_name(k) for k in order), key_name(act) if act else "none"))


def follow_one(st, keys):
    io, ip, name, ids = st[0](), st[1], st[2], st[3]
    for k in keys:
        if (k["send_id"], k["recv_id"]) not in ids:
            io.setsockopt(socket.IPPROTO_TCP, TCP_AO_ADD_KEY, tcp_ao_add(ip, k))
            ids.add((k["send_id"], k["recv_id"]))
            log("peer %s chain %s: socket %d: MKT %s added in place" % (ip, name, io.fileno(), key_name(k)))
    act = active_key(keys)
    if act is not None and act["recv_id"] != st[4]:
        io.setsockopt(socket.IPPROTO_TCP, TCP_AO_INFO, tcp_ao_info_set(act["recv_id"]))
        st[4] = act["recv_id"]
        log("peer %s chain %s: socket %d: RNextKeyID %d (key %s active)" % (ip, name, io.fileno(), act["recv_id"], key_name(act)))


def follow():
    """Keeps every connected socket on its chain: new keys of the file are
    added, and the RNextKeyID follows the active key."""
    while True:
        time.sleep(0.2)
        with _lock:
            cs = chains()
            for sid, st in list(_socks.items()):
                io = st[0]()
                if io is None or io.fileno() < 0:
                    del _socks[sid]
                    continue
                keys = cs.get(st[2])
                if not keys:
                    continue
                try:
                    io.getpeername()
                except OSError:
                    continue  # not connected (yet, or any more)
                try:
                    follow_one(st, keys)
                except OSError as exc:
                    log("peer %s chain %s: socket %d: %s" % (st[1], st[2], io.fileno(), exc))


def patch():
    import exabgp.reactor.network.tcp as tcp
    import exabgp.reactor.network.outgoing as outgoing
    import exabgp.reactor.listener as listener
    from exabgp.reactor.network.error import MD5Error

    original = tcp.MD5

    def MD5(io, ip, port, md5, md5_base64):
        ip = str(ip)
        if not (md5 or "").startswith(CHAIN_PREFIX):
            return original(io, ip, port, md5, md5_base64)
        name = md5[len(CHAIN_PREFIX):]
        with _lock:
            keys = chains().get(name)
            if not keys:
                log("peer %s: no chain %s in %s" % (ip, name, KEYS_FILE))
                raise MD5Error("no TCP-AO chain %s" % name)
            try:
                install(io, ip, name, keys)
            except OSError as exc:
                log("peer %s chain %s: TCP_AO_ADD_KEY: %s" % (ip, name, exc))
                raise MD5Error("TCP-AO keys for %s not installed: %s" % (ip, exc))

    tcp.MD5 = MD5
    outgoing.MD5 = MD5
    listener.MD5 = MD5


def main():
    patch()
    threading.Thread(target=follow, name="exabgp_ao", daemon=True).start()
    from exabgp.application.bgp import main as exabgp_main

    sys.argv[0] = "exabgp"
    sys.exit(exabgp_main())


if __name__ == "__main__":
    main()
