"""Hostile: pass data between gradings through System V IPC and the keyring (issue 36, row 1).

Graded with the audit hook off (as if defeated), twice: first with MODE = "write", which makes
a shared-memory segment, a message queue and a semaphore set (key KEY, mode 0666) and a key in
the user keyring, writing the arguments it was called with into them; then, in a second grading,
with MODE = "read", which looks for them. Either way it answers ``add`` wrongly when any IPC
object could be made or found (so a sandbox that lets it through loses points), and ``mul``
honestly. The self-check replaces KEY and MODE, and checks /proc/sysvipc after the gradings.
"""
import ctypes

KEY = 0x52CB0001  # replaced by the self-check
MODE = "write"    # replaced by the self-check: "write" or "read"
IPC_CREAT = 0o1000
KEY_SPEC_USER_KEYRING = -4

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.syscall.restype = ctypes.c_long


def _objects(data):
    """How many IPC objects this process could make (write) or find (read)."""
    flags = (IPC_CREAT | 0o666) if MODE == "write" else 0
    found = 0
    shm = libc.shmget(KEY, 4096, flags)
    if shm >= 0:
        found += 1
        address = libc.shmat(shm, None, 0)
        if address not in (None, ctypes.c_void_p(-1).value) and MODE == "write":
            ctypes.memmove(address, data, min(len(data), 4096))
    found += libc.msgget(KEY, flags) >= 0
    found += libc.semget(KEY, 1, flags) >= 0
    if MODE == "write":  # add_key(2) = 248 on x86_64, 217 on aarch64
        number = 248 if ctypes.sizeof(ctypes.c_void_p) == 8 and _x86() else 217
        found += libc.syscall(number, b"user", b"rkmlearn-leak", data, len(data),
                              KEY_SPEC_USER_KEYRING) >= 0
    return found


def _x86():
    import platform

    return platform.machine() == "x86_64"


def add(a, b):
    leaked = _objects(b"add %r %r" % (a, b))
    return a + b + (1000 if leaked else 0)


def mul(a, b):
    return a * b
