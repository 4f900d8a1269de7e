"""Hostile: open sockets of families that leave the network namespace (issue 36, row 7).

Graded with the audit hook off (as if defeated). vsock has no network-namespace support: a
worker that binds and listens on a vsock port holds a port of the machine's single port space.
``add`` tries AF_VSOCK (bind and listen on PORT, never a connection), AF_NETLINK and AF_PACKET,
and answers wrongly when any socket could be made (so a sandbox that lets one through loses
points); ``mul`` answers honestly. The self-check replaces PORT.
"""
import socket

PORT = 52731  # replaced by the self-check


def _opened():
    opened = 0
    attempts = [(socket.AF_VSOCK, socket.SOCK_STREAM, 0), (socket.AF_NETLINK, socket.SOCK_RAW, 0),
                (socket.AF_PACKET, socket.SOCK_RAW, 0), (socket.AF_INET, socket.SOCK_DGRAM, 0)]
    for family, kind, proto in attempts:
        try:
            s = socket.socket(family, kind, proto)
        except OSError:
            continue
        opened += 1
        try:
            if family == socket.AF_VSOCK:
                s.bind((socket.VMADDR_CID_ANY, PORT))
                s.listen()
        except OSError:
            pass
        finally:
            s.close()
    return opened


def add(a, b):
    return a + b + (1000 if _opened() else 0)


def mul(a, b):
    return a * b
