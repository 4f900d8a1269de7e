"""What crosses the boundary between the judge and the sandboxed worker: plain data, framed.

Used on both sides: the judge imports this module; the worker runs the same source text (see
:mod:`rkmlearn.grading.sandbox`), so it must import nothing but the standard library and numpy,
and must not use relative imports or ``from __future__``.

Values
    ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``, ``bytes``, numpy scalars and
    numpy arrays of a numeric dtype (bool, int8-64, uint8-64, float16-64, complex64/128), and
    tuples, lists and dicts (keys ``str`` or ``int``) of them. Subclasses are flattened to their
    plain base (an ndarray subclass arrives as a plain ndarray, an ``int`` subclass as an
    ``int``); anything else is refused with :class:`EncodeError`. Decoding trusts nothing: sizes,
    depths, dtypes and shapes are checked before anything is allocated, and every array is
    rebuilt from raw bytes as a plain, writeable, owned ndarray.

Frame
    ``u32 header length | header (JSON, UTF-8) | for each blob: u64 length | bytes``. The header
    is ``{"kind": str, "body": tree}``; arrays and bytes in the tree refer to blobs by index.
"""
import json
import select
import socket
import struct
import time

import numpy as np

# Limits on what the judge accepts from the worker (and the worker from the judge).
MAX_HEADER_BYTES = 16 * 2**20
MAX_DEPTH = 64
MAX_NODES = 200_000
MAX_STR = 1_000_000
MAX_NDIM = 32
MAX_ELEMENTS = 2**40  # the product of an array's dimensions (zero ones counted as one)
# dtype.str of every array dtype allowed across the boundary (little-endian numeric types).
ARRAY_DTYPES = frozenset(
    ["|b1", "|i1", "|u1"]
    + [f"<{kind}{size}" for kind in "iu" for size in (2, 4, 8)]
    + ["<f2", "<f4", "<f8", "<c8", "<c16"]
)


class EncodeError(TypeError):
    """A value that cannot cross the boundary (an object, a string array, ...)."""


class ProtocolError(ValueError):
    """Bytes from the other side that are not a well-formed message within the limits."""


class ChannelClosed(ConnectionError):
    """The other side closed the connection (or died) before a whole message arrived."""


class ChannelTimeout(TimeoutError):
    """No whole message arrived before the deadline."""


# --------------------------------------------------------------------------------------------
# values <-> (JSON tree, blobs)
# --------------------------------------------------------------------------------------------
def _plain_array(value):
    """``value`` as a plain, C-contiguous, little-endian ndarray of an allowed dtype."""
    array = np.asarray(value)
    if type(array) is not np.ndarray:  # an __array__ that returns a subclass
        array = array.view(np.ndarray)
    if array.dtype.kind in "biufc" and array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    if array.dtype.str not in ARRAY_DTYPES:
        raise EncodeError(f"an array of dtype {array.dtype} cannot be graded; return numbers "
                          "(a numeric numpy array, a float or an int)")
    return np.ascontiguousarray(array)


def encode(value):
    """``(tree, blobs)`` for ``value``; raises :class:`EncodeError` for what cannot cross."""
    blobs = []
    count = [0]

    def walk(obj, depth):
        count[0] += 1
        if depth > MAX_DEPTH or count[0] > MAX_NODES:
            raise EncodeError(f"the value is nested deeper than {MAX_DEPTH} levels or has more "
                              f"than {MAX_NODES} parts")
        if obj is None or type(obj) is bool:
            return obj
        if isinstance(obj, np.ndarray) or (hasattr(obj, "__array__") and not isinstance(
                obj, (int, float, complex, str, bytes, tuple, list, dict, np.generic))):
            array = _plain_array(obj)
            blobs.append(memoryview(array.reshape(-1).view(np.uint8)) if array.size else b"")
            return {"$nd": len(blobs) - 1, "dtype": array.dtype.str, "shape": list(array.shape)}
        if isinstance(obj, np.generic):
            array = _plain_array(np.asarray(obj).reshape(1))
            blobs.append(array.tobytes())
            return {"$scalar": len(blobs) - 1, "dtype": array.dtype.str}
        if isinstance(obj, bool):
            return bool(obj)
        if isinstance(obj, int):
            return {"$int": int.__repr__(obj)}
        if isinstance(obj, float):
            return {"$float": float.__repr__(obj)}
        if isinstance(obj, complex):
            return {"$complex": [float.__repr__(obj.real), float.__repr__(obj.imag)]}
        if isinstance(obj, str):
            text = str.__str__(obj)
            if len(text) > MAX_STR:
                raise EncodeError(f"a string of {len(text)} characters is too long to grade")
            return {"$str": text}
        if isinstance(obj, (bytes, bytearray)):
            blobs.append(bytes(obj))
            return {"$bytes": len(blobs) - 1}
        if isinstance(obj, tuple):
            return {"$tuple": [walk(x, depth + 1) for x in tuple.__iter__(obj)]}
        if isinstance(obj, list):
            return {"$list": [walk(x, depth + 1) for x in list.__iter__(obj)]}
        if isinstance(obj, dict):
            items = []
            for key, item in dict.items(obj):
                if type(key) is bool or not isinstance(key, (str, int)):
                    raise EncodeError(f"dict keys must be str or int, got {type(key).__name__}")
                items.append([walk(key, depth + 1), walk(item, depth + 1)])
            return {"$dict": items}
        raise EncodeError(f"a {type(obj).__name__} object cannot be graded; return numbers, "
                          "numpy arrays, strings, or tuples/lists/dicts of them")

    return walk(value, 0), blobs


def array_leaves(tree, path=()):
    """``(path, array)`` for every ndarray in a tree of tuples, lists and dicts, in a fixed
    order: the worker sends its arguments back in this order after a call, and the judge
    walks what it sent the same way to see which ones changed."""
    if isinstance(tree, np.ndarray):
        yield path, tree
    elif isinstance(tree, (list, tuple)):
        for i, item in enumerate(tree):
            yield from array_leaves(item, path + (i,))
    elif isinstance(tree, dict):
        for key, item in tree.items():
            yield from array_leaves(item, path + (key,))


def decode(tree, blobs, max_bytes=None):
    """Rebuild a value from :func:`encode`'s output, checking everything; raises ProtocolError.

    ``max_bytes`` (the judge's reply limit) also bounds what an array's shape *describes*: the
    product of its non-zero dimensions times its item size. An empty array of shape
    (0, N, N) is 0 bytes on the wire, but a test that works with it makes N x N temporaries on
    the judge's side.
    """
    count = [0]

    def blob(index):
        if type(index) is not int or not 0 <= index < len(blobs):
            raise ProtocolError(f"bad blob reference {index!r}")
        return blobs[index]

    def number(text, kind):
        if type(text) is not str or len(text) > 5000:
            raise ProtocolError(f"bad {kind.__name__} literal")
        try:
            return kind(text)
        except ValueError as exc:
            raise ProtocolError(f"bad {kind.__name__} literal: {exc}") from None

    def walk(node, depth):
        count[0] += 1
        if depth > MAX_DEPTH or count[0] > MAX_NODES:
            raise ProtocolError("message nested too deeply or too large")
        if node is None or type(node) is bool:
            return node
        if type(node) is not dict or len(node) not in (1, 2, 3):
            raise ProtocolError(f"unexpected node of type {type(node).__name__}")
        if "$nd" in node:
            dtype, shape = node.get("dtype"), node.get("shape")
            if dtype not in ARRAY_DTYPES:
                raise ProtocolError(f"array dtype {dtype!r} is not allowed")
            if type(shape) is not list or len(shape) > MAX_NDIM or any(
                    type(n) is not int or n < 0 for n in shape):
                raise ProtocolError(f"bad array shape {shape!r}")
            data = blob(node["$nd"])
            dt = np.dtype(dtype)
            size, extent = 1, 1
            for n in shape:
                size *= n
                extent *= max(n, 1)
            if extent > MAX_ELEMENTS:  # numpy cannot even make an empty (0, 2**62, 2**62)
                raise ProtocolError(f"array shape {tuple(shape)} is too large")
            if max_bytes is not None and extent * dt.itemsize > max_bytes:
                raise ProtocolError(f"an array of shape {tuple(shape)} describes {extent} "
                                    f"elements of {dt.itemsize} bytes, more than a reply may "
                                    f"hold ({max_bytes} bytes)")
            if size * dt.itemsize != len(data):
                raise ProtocolError(f"array of shape {tuple(shape)} and dtype {dtype} needs "
                                    f"{size * dt.itemsize} bytes, got {len(data)}")
            if size == 0:
                return np.zeros(shape, dtype=dt)
            return np.frombuffer(data, dtype=dt).reshape(shape)
        if "$scalar" in node:
            dtype, data = node.get("dtype"), blob(node["$scalar"])
            if dtype not in ARRAY_DTYPES or len(data) != np.dtype(dtype).itemsize:
                raise ProtocolError(f"bad scalar of dtype {dtype!r}")
            return np.frombuffer(data, dtype=np.dtype(dtype))[0]
        if "$int" in node:
            return number(node["$int"], int)
        if "$float" in node:
            return number(node["$float"], float)
        if "$complex" in node:
            parts = node["$complex"]
            if type(parts) is not list or len(parts) != 2:
                raise ProtocolError("bad complex literal")
            return complex(number(parts[0], float), number(parts[1], float))
        if "$str" in node:
            if type(node["$str"]) is not str or len(node["$str"]) > MAX_STR:
                raise ProtocolError("bad string")
            return node["$str"]
        if "$bytes" in node:
            return bytes(blob(node["$bytes"]))
        for tag, kind in (("$tuple", tuple), ("$list", list)):
            if tag in node:
                if type(node[tag]) is not list:
                    raise ProtocolError(f"bad {tag}")
                return kind(walk(x, depth + 1) for x in node[tag])
        if "$dict" in node:
            if type(node["$dict"]) is not list:
                raise ProtocolError("bad $dict")
            out = {}
            for pair in node["$dict"]:
                if type(pair) is not list or len(pair) != 2:
                    raise ProtocolError("bad $dict item")
                key = walk(pair[0], depth + 1)
                if type(key) not in (str, int):
                    raise ProtocolError("bad $dict key")
                out[key] = walk(pair[1], depth + 1)
            return out
        raise ProtocolError(f"unknown node {sorted(node)!r}")

    return walk(tree, 0)


# --------------------------------------------------------------------------------------------
# framing over a stream socket
# --------------------------------------------------------------------------------------------
def send(sock, kind, body=None, blobs=()):
    """Send one message; ``body``/``blobs`` as returned by :func:`encode` (body may be plain JSON)."""
    header = json.dumps({"kind": kind, "body": body}, allow_nan=False,
                        separators=(",", ":")).encode("utf-8")
    parts = [struct.pack("<I", len(header)), header]
    for item in blobs:
        parts.append(struct.pack("<Q", item.nbytes if isinstance(item, memoryview)
                                 else len(item)))
        parts.append(item)
    sock.sendall(struct.pack("<I", len(blobs)))
    for part in parts:
        sock.sendall(part)


def _read_exact(sock, n, deadline, alive):
    """``n`` bytes as a bytearray, or ChannelTimeout / ChannelClosed."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ChannelTimeout("no reply before the deadline")
        ready, _, _ = select.select([sock], [], [], min(remaining, 0.1))
        if not ready:
            if alive is not None and not alive():
                raise ChannelClosed("the other side is gone")
            continue
        try:
            k = sock.recv_into(view[got:], n - got)
        except (BlockingIOError, InterruptedError):
            continue
        except OSError as exc:
            raise ChannelClosed(str(exc)) from None
        if k == 0:
            raise ChannelClosed("connection closed")
        got += k
    return buf


def recv(sock, deadline, max_bytes, alive=None):
    """Receive one message: ``(kind, body, blobs)``.

    ``deadline`` is a ``time.monotonic()`` value; ``max_bytes`` bounds the blobs' total size;
    ``alive()`` (optional) is polled while waiting, and a False answer ends the wait with
    :class:`ChannelClosed`.
    """
    (n_blobs,) = struct.unpack("<I", _read_exact(sock, 4, deadline, alive))
    (n_header,) = struct.unpack("<I", _read_exact(sock, 4, deadline, alive))
    if n_header > MAX_HEADER_BYTES or n_blobs > MAX_NODES:
        raise ProtocolError(f"message header of {n_header} bytes / {n_blobs} blobs is too large")
    try:
        header = json.loads(bytes(_read_exact(sock, n_header, deadline, alive)).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"malformed message header: {exc}") from None
    if type(header) is not dict or type(header.get("kind")) is not str:
        raise ProtocolError("malformed message header")
    blobs, total = [], 0
    for _ in range(n_blobs):
        (size,) = struct.unpack("<Q", _read_exact(sock, 8, deadline, alive))
        total += size
        if total > max_bytes:
            raise ProtocolError(f"message larger than the limit of {max_bytes} bytes")
        blobs.append(_read_exact(sock, size, deadline, alive))
    return header["kind"], header.get("body"), blobs


def pending(sock):
    """Whether bytes are waiting on ``sock`` now (a reply nobody asked for); an end of file
    (the other side is gone) is not data."""
    ready, _, _ = select.select([sock], [], [], 0)
    if not ready:
        return False
    try:
        return len(sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)) > 0
    except OSError:
        return False


def socketpair():
    """A connected pair of Unix stream sockets (blocking, close-on-exec)."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
