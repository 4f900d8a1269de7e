"""Hostile: fill the file system from the scratch folder (issue 36, row 3).

``RLIMIT_FSIZE`` limits one file, not how many: ``add`` reserves FILES files of 60 MiB each
(``posix_fallocate``, a second on any disk) in its working directory. On a small TMPDIR that
filled the disk and failed the next students' gradings. It answers ``add`` wrongly when more
than the scratch quota could be reserved (so a sandbox without a quota loses points), and
removes its files again (so that checking the old grader leaves the disk as it was).
"""
import os

FILES = 4  # 240 MiB in all: more than the worker's scratch quota
CHUNK = 60 * 2**20


def _reserved():
    done, here = 0, os.getcwd()
    for i in range(FILES):
        try:
            fd = os.open(os.path.join(here, f"fill-{i}"), os.O_WRONLY | os.O_CREAT, 0o600)
        except OSError:
            break
        try:
            os.posix_fallocate(fd, 0, CHUNK)
            done += CHUNK
        except OSError:
            break
        finally:
            os.close(fd)
    for i in range(FILES):
        try:
            os.remove(os.path.join(here, f"fill-{i}"))
        except OSError:
            pass
    return done


def add(a, b):
    return a + b + (1000 if _reserved() > 128 * 2**20 else 0)


def mul(a, b):
    return a * b
