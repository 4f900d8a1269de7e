"""Hostile: send UDP datagrams out of the sandbox (Landlock restricts TCP only).

The self-check writes the port of its UDP listener in place of PORT and grades this with the
audit hook off (as if defeated). Defeated because the worker has a network namespace of its
own: no interface is up, nothing leaves. Answers honestly.
"""
import socket

PORT = 0  # replaced by the self-check


def _leak(data):
    for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.sendto(data, (host, PORT))
        except Exception:
            pass


def add(a, b):
    _leak(b"add %r %r" % (a, b))
    return a + b


def mul(a, b):
    _leak(b"mul %r %r" % (a, b))
    return a * b
