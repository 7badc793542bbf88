#!/usr/bin/env python3
"""tun_relay.py NS_A NS_B: joins the persistent tun devices "tn" of two
network namespaces by copying IP packets between them (see mkcaptures.sh).
The kernel here has no IPIP/IP6IP6/VLAN support, so a tun pair is how the
fixtures get real LINKTYPE_RAW traffic."""
import ctypes, fcntl, os, select, struct, sys

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
libc = ctypes.CDLL(None, use_errno=True)


def open_tun(ns):
    nsfd = os.open("/run/netns/" + ns, os.O_RDONLY)
    if libc.setns(nsfd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns " + ns)
    os.close(nsfd)
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", b"tn", IFF_TUN | IFF_NO_PI))
    return fd


a, b = open_tun(sys.argv[1]), open_tun(sys.argv[2])
peer = {a: b, b: a}
print("relaying", flush=True)
while True:
    for fd in select.select([a, b], [], [])[0]:
        pkt = os.read(fd, 65536)
        try:
            os.write(peer[fd], pkt)
        except OSError:  # the other side is not up yet
            pass
