"""Hostile: hold memory outside the address-space cap in memfd pages (issue 36, row 2).

Graded with the audit hook off (as if defeated) and a 128 MiB memory limit: ``add`` makes
anonymous files (``memfd_create``) and reserves 48 MiB in each (``posix_fallocate``; one file
stays under the 64 MiB file-size limit), COUNT of them at once, more than the worker's whole
address space may map; unmapped tmpfs pages are not address space, so only a refusal stops it.
It answers ``add`` wrongly when more than the memory limit was held (so a sandbox that lets it
through loses points), ``mul`` honestly.
"""
import os

COUNT = 4
CHUNK = 48 * 2**20


def _held():
    fds, held = [], 0
    try:
        for _ in range(COUNT):
            fd = os.memfd_create("rkmlearn-hog")
            fds.append(fd)
            os.posix_fallocate(fd, 0, CHUNK)
            held += CHUNK
    except OSError:
        pass
    finally:
        for fd in fds:
            os.close(fd)
    return held


def add(a, b):
    return a + b + (1000 if _held() > 128 * 2**20 else 0)


def mul(a, b):
    return a * b
