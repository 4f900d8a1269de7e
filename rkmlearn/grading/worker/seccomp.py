"""The worker's seccomp filter, compiled by libseccomp.

The filter is written as rules for libseccomp (through its Python API: Debian's
``python3-seccomp`` module ``seccomp`` where it is importable, else ``pyseccomp`` from PyPI, a
ctypes binding with the same API) rather than as hand-assembled BPF: libseccomp resolves the
system-call numbers of the machine's architecture, checks the architecture of every call, and
kills the x32 variants of the calls (numbers >= 0x40000000) that a filter written for x86_64
would otherwise let through.

:func:`load_bindings` runs in the zygote, before the audit hook exists (the hook refuses imports
outside the standard library and the exercise's packages); :func:`refuse_new_processes` runs in
each worker before any student code.
"""
import errno

CLONE_THREAD = 0x00010000


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


def refuse_new_processes(bindings):
    """Refuse every way of making a process (fork, vfork, clone without CLONE_THREAD, clone3)
    and let threads through: a child could compute, or hold memory, unseen by the per-process
    CPU count and address-space cap. Returns a status string ("on", or why not)."""
    if bindings is None:
        return "unavailable (no libseccomp bindings: pip install pyseccomp)"
    refuse = bindings.ERRNO(errno.EPERM)
    rules = bindings.SyscallFilter(bindings.ALLOW)
    try:
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
