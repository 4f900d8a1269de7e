"""Landlock (Linux >= 5.13): kernel-enforced file, network and signal restrictions.

The zygote builds one ruleset (:func:`build_ruleset`); each worker enforces it on itself
(:func:`enforce`). There are no maintained Python bindings of Landlock on PyPI that the sandbox
could use from the standard library alone, so its three system calls are made here through
ctypes, with the structures the kernel documents (``linux/landlock.h``).
"""
import os
import sys

from .privileges import PR_SET_NO_NEW_PRIVS, load_libc

_FS_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)  # exec/write/read/trunc/ioctl
_READ_FILE, _READ_DIR, _EXECUTE = 1 << 2, 1 << 3, 1 << 0
_MAKE_CHAR, _MAKE_SOCK, _MAKE_BLOCK = 1 << 6, 1 << 9, 1 << 11


# The Landlock system calls have the same numbers on every architecture.
_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446


def _abi():
    """``(ctypes, libc, syscall, abi)``: the kernel's Landlock ABI version (< 1: none)."""
    ctypes, libc = load_libc()
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(_LANDLOCK_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return ctypes, libc, syscall, abi


def build_ruleset(read_dirs, list_dirs, read_files, rw_dirs, rw_files, allow_exec):
    """A Landlock ruleset for the workers: ``(status string, Ruleset or None)``.

    The zygote builds it once; each worker enforces it on itself (:func:`enforce`), in a
    domain of its own whose scopes (ABI 6: signals, abstract Unix sockets) shut out every
    process outside it, the zygote and the worker's init included. The zygote is not restricted
    itself: a Landlock domain forbids mounting, and each worker's init mounts its own /proc.
    """
    if not sys.platform.startswith("linux"):
        return "unavailable (not Linux)", None
    import struct

    ctypes, libc, syscall, abi = _abi()
    if abi < 1:
        return f"unavailable ({os.strerror(ctypes.get_errno())})", None
    handled = (1 << 13) - 1
    if allow_exec:
        handled &= ~_EXECUTE  # processes allowed: exec is left to the uid's permissions
    if abi >= 2:
        handled |= 1 << 13  # REFER
    if abi >= 3:
        handled |= 1 << 14  # TRUNCATE
    if abi >= 5:
        handled |= 1 << 15  # IOCTL_DEV
    attr = struct.pack("<Q", handled)
    if abi >= 4:
        attr += struct.pack("<Q", 0b11)  # handled_access_net: TCP bind and connect, none allowed
    if abi >= 6:
        attr += struct.pack("<Q", 0b11)  # scoped: abstract unix sockets and signals
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = syscall(_LANDLOCK_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if fd < 0:
        return f"unavailable ({os.strerror(ctypes.get_errno())})", None
    ruleset = Ruleset(fd, handled, abi)
    rules = ([(p, _READ_FILE | _READ_DIR) for p in read_dirs] + [(p, _READ_DIR) for p in list_dirs]
             + [(p, _READ_FILE) for p in read_files]
             + [(p, ruleset.read_write) for p in rw_dirs]
             + [(p, _FS_FILE_RIGHTS & ~_EXECUTE) for p in rw_files])
    for path, access in rules:
        error = ruleset.allow(path, access)
        if error is not None:
            ruleset.close()
            return f"unavailable ({error})", None
    return f"on (ABI {abi})", ruleset


class Ruleset:
    """A Landlock ruleset descriptor and the rights it handles."""

    def __init__(self, fd, handled, abi):
        self.fd, self.handled, self.abi = fd, handled, abi
        self.read_write = handled & ~(_MAKE_CHAR | _MAKE_SOCK | _MAKE_BLOCK | _EXECUTE)

    def allow(self, path, access):
        """Add a rule: ``access`` beneath ``path`` (a missing path is skipped). Returns None,
        or why the kernel refused. The descriptor is shared by every fork of the zygote: a
        worker's own rule (its scratch tmpfs) stays in later workers' rulesets, for an inode
        that is gone with that worker's mount namespace."""
        import struct

        ctypes, _, syscall, _ = _abi()
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return None
        access &= self.handled if os.path.isdir(path) else (self.handled & _FS_FILE_RIGHTS)
        rule = ctypes.create_string_buffer(struct.pack("<Qi", access, fd), 12)
        status = syscall(_LANDLOCK_ADD_RULE, ctypes.c_int(self.fd), ctypes.c_int(1), rule,
                         ctypes.c_uint32(0))
        os.close(fd)
        return None if status == 0 else f"rule for {path}: {os.strerror(ctypes.get_errno())}"

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def enforce(ruleset):
    """Restrict this process (and its future children) with the zygote's Landlock ruleset.
    Returns None, or why the kernel refused (the worker then never runs)."""
    ctypes, libc, syscall, _ = _abi()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            syscall(_LANDLOCK_RESTRICT, ctypes.c_int(ruleset.fd), ctypes.c_uint32(0)) != 0:
        return f"Landlock refused the worker's domain ({os.strerror(ctypes.get_errno())})"
    ruleset.close()
    return None
