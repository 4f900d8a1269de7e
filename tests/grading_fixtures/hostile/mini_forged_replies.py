"""Hostile: write hand-made replies on the worker's socket.

A reply whose array has shape [0, 2**62, 2**62], an exception name holding a NUL, and a reply
sent ahead of time for the next call. They raised a bare ValueError inside the test process, and
the early reply was taken as the next call's answer. Graded with the audit hook off (it refuses
sockets): each is now rejected cleanly, as a failed test.
"""
import json
import socket
import struct


def _frame(kind, body, blobs=()):
    header = json.dumps({"kind": kind, "body": body}).encode()
    out = struct.pack("<I", len(blobs)) + struct.pack("<I", len(header)) + header
    for blob in blobs:
        out += struct.pack("<Q", len(blob)) + blob
    return out


def _socket():
    for fd in range(3, 256):
        try:
            s = socket.socket(fileno=fd)
        except OSError:
            continue
        if s.family == socket.AF_UNIX and s.type == socket.SOCK_STREAM:
            return s
        s.detach()
    return None


def add(a, b):
    s = _socket()
    huge = {"$dict": [[{"$str": "value"}, {"$nd": 0, "dtype": "<f8", "shape": [0, 2**62, 2**62]}],
                      [{"$str": "changed"}, {"$list": []}]]}
    s.sendall(_frame("returned", {"tree": huge, "violations": []}, [b""]))
    return a + b


def mul(a, b):
    s = _socket()
    s.sendall(_frame("raised", {"error": {"type": "Value\x00Error", "message": "x",
                                          "builtins": ["ValueError", "Exception"]},
                                "violations": []}))
    # and one more, ahead of the next call
    s.sendall(_frame("returned", {"tree": {"$dict": [[{"$str": "value"}, {"$int": "6"}],
                                                     [{"$str": "changed"}, {"$list": []}]]},
                                  "violations": []}))
    return a * b
