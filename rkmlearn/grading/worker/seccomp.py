"""The worker's seccomp filter, compiled by libseccomp.

The filter is written as rules for libseccomp (through its Python API: Debian's
``python3-seccomp`` module ``seccomp`` where it is importable, else ``pyseccomp`` from PyPI, a
ctypes binding with the same API) rather than as hand-assembled BPF: libseccomp resolves the
system-call numbers of the machine's architecture, checks the architecture of every call, and
kills the x32 variants of the calls (numbers >= 0x40000000) that a filter written for x86_64
would otherwise let through.

:func:`load_bindings` runs in the zygote, before the audit hook exists (the hook refuses imports
outside the standard library and the exercise's packages); :func:`install` runs in each worker
before any student code.
"""
import errno

CLONE_THREAD = 0x00010000
AF_UNIX = 1
# Objects that outlive the process that made them, shared by every process of the IPC
# namespace or the uid: System V IPC, POSIX message queues and the kernel keyrings.
LASTING_OBJECTS = ("shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
                   "semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink",
                   "add_key", "request_key", "keyctl")
# Memory that is not address space (RLIMIT_AS does not count unmapped tmpfs pages), and
# io_uring, whose requests (sockets, files) pass by the system calls this filter checks.
UNCOUNTED = ("memfd_create", "memfd_secret", "io_uring_setup", "io_uring_enter",
             "io_uring_register")


def load_bindings():
    """libseccomp's Python API, or None when neither binding (nor libseccomp) is installed."""
    try:
        import seccomp as bindings
    except ImportError:
        try:
            import pyseccomp as bindings
        except (ImportError, OSError, AttributeError):  # also raised when libseccomp.so is missing
            return None
    return bindings


def install(bindings, allow_processes):
    """Load the worker's filter; returns a status string ("on", or why not).

    Refused, with an error the submission sees: System V IPC, message queues and keyrings
    (:data:`LASTING_OBJECTS`), memfd and io_uring (:data:`UNCOUNTED`), sockets of every family
    but AF_UNIX, and, unless the exercise allows processes, every way of making one (fork,
    vfork, clone without CLONE_THREAD, clone3): a child could compute, or hold memory, unseen
    by the per-process CPU count and address-space cap. Threads stay allowed.
    """
    if bindings is None:
        return "unavailable (no libseccomp bindings: pip install pyseccomp)"
    refuse = bindings.ERRNO(errno.EPERM)
    rules = bindings.SyscallFilter(bindings.ALLOW)
    try:
        for call in LASTING_OBJECTS + UNCOUNTED:
            rules.add_rule(refuse, call)
        # One family of sockets, the wire's: vsock has no network namespace (a listening port
        # would be the machine's), and netlink or packet sockets need none to be harmful.
        for call in ("socket", "socketpair"):
            rules.add_rule(bindings.ERRNO(errno.EAFNOSUPPORT), call,
                           bindings.Arg(0, bindings.NE, AF_UNIX))
        if not allow_processes:
            rules.add_rule(refuse, "fork")
            rules.add_rule(refuse, "vfork")
            rules.add_rule(refuse, "clone", bindings.Arg(0, bindings.MASKED_EQ, CLONE_THREAD, 0))
            # glibc starts threads with clone3 when it can and falls back on clone on ENOSYS;
            # clone3's flags sit in memory, where a filter cannot read them.
            rules.add_rule(bindings.ERRNO(errno.ENOSYS), "clone3")
        rules.load()  # sets no_new_privs first, as a filter without CAP_SYS_ADMIN needs
    except (OSError, RuntimeError, ValueError) as exc:
        return f"unavailable ({exc})"
    return "on"
