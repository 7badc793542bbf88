#!/usr/bin/env python3
"""Tiny BGP-port TCP exchanges for the capture fixtures (see mkcaptures.sh).

  traffic.py server            listen on 0.0.0.0:179 and [::]:179 (TCP-MD5
                               keys for the *11 / *12 client addresses)
  traffic.py client SRC DST [KEY]
                               connect SRC -> DST:179, optionally signing
                               with TCP-MD5 KEY, send a line, read the answer
"""
import socket, struct, sys, threading

TCP_MD5SIG = 14
KEY = b"s3cret"
MD5_PEERS = ["192.0.2.11", "192.0.2.12", "2001:db8::11"]


def md5sig(addr, key):
    if ":" in addr:
        sa = struct.pack("=H", socket.AF_INET6) + struct.pack("!HI", 0, 0)
        sa += socket.inet_pton(socket.AF_INET6, addr) + struct.pack("=I", 0)
    else:
        sa = struct.pack("=H", socket.AF_INET) + struct.pack("!H", 0)
        sa += socket.inet_aton(addr)
    sa = sa.ljust(128, b"\0")
    return sa + struct.pack("=BBHi", 0, 0, len(key), 0) + key.ljust(80, b"\0")


def serve(fam, addr):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    for p in MD5_PEERS:
        if (":" in p) == (fam == socket.AF_INET6):
            s.setsockopt(socket.IPPROTO_TCP, TCP_MD5SIG, md5sig(p, KEY))
    s.bind((addr, 179))
    s.listen(8)
    while True:
        c, _ = s.accept()
        c.settimeout(3)
        try:
            c.recv(100)
            c.sendall(b"OPEN\n")
        except OSError:
            pass
        c.close()


def main():
    if sys.argv[1] == "server":
        threading.Thread(target=serve, args=(socket.AF_INET, "0.0.0.0"), daemon=True).start()
        serve(socket.AF_INET6, "::")
        return
    src, dst = sys.argv[2], sys.argv[3]
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(2.5)
    s.bind((src, 0))
    if len(sys.argv) > 4:
        s.setsockopt(socket.IPPROTO_TCP, TCP_MD5SIG, md5sig(dst, sys.argv[4].encode()))
    try:
        s.connect((dst, 179))
        s.sendall(b"hello authbgpd\n")
        print(src, "->", dst, s.recv(100))
    except OSError as e:
        print(src, "->", dst, "failed:", e)
    s.close()


main()
