"""Reading what students and instructors hand in: regular files only, parsed one at a time."""
from __future__ import annotations

import os
import stat
import threading

from .errors import GradingError

_PARSE_LOCK = threading.Lock()


def parse_python(source: str):
    """``ast.parse(source)``, one thread at a time.

    CPython 3.11's parser keeps its recursion depth in shared state: two threads parsing at once
    (gradings run in threads, e.g. a pool of ``grade`` calls) can fail with "SystemError: AST
    constructor recursion depth mismatch".
    """
    import ast

    with _PARSE_LOCK:
        return ast.parse(source)


def read_regular_file(path) -> bytes:
    """The bytes of ``path``, which must be a regular file: never through a symbolic link.

    A submission that is a link (to ``solution.py``, say), a device, a FIFO or a folder is
    refused: the grader runs as root, which could read what the link points to.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if os.path.islink(path):
            raise GradingError(f"submission {str(path)!r} is a symbolic link; submit the file "
                               "itself") from None
        raise GradingError(f"submission {str(path)!r} cannot be opened: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise GradingError(f"submission {str(path)!r} is not a regular file (a folder, "
                               "device or pipe); submit a .py or .ipynb file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
