"""Who the sandboxed process is and what it may use: parent death, uid, capabilities, limits.

Runs in the zygote and its children before any student code exists (standard library only).
"""
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38


def load_libc():
    """``(ctypes, libc)`` with errno kept: the system calls Python's os module lacks."""
    import ctypes

    return ctypes, ctypes.CDLL(None, use_errno=True)


def die_with_parent(parent_pid):
    """SIGKILL this process when its parent dies; exit now if the parent is already gone."""
    if sys.platform.startswith("linux"):
        _, libc = load_libc()
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(70)


def _reachable_by_others(path):
    """Whether a user who owns nothing can traverse to ``path`` (every folder has o+x)."""
    import stat

    parts = os.path.abspath(path).split(os.sep)
    for i in range(1, len(parts) + 1):
        folder = os.sep.join(parts[:i]) or os.sep
        try:
            mode = os.stat(folder).st_mode
        except OSError:
            return False
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return False
    return True


def reach_through_descriptors(folders):
    """Open each folder the sandbox uid cannot reach; return {folder: '/proc/self/fd/N'}.

    Root's interpreter may live under a folder others cannot enter (``/root``). An open
    descriptor keeps it reachable after the uid drop: ``/proc/self/fd/N/...`` resolves from
    the folder itself, checking only the permissions below it. Forked workers inherit it.
    """
    mapping = {}
    # Outermost folders first, and none below a folder already opened: every path then has one
    # spelling (a venv in a private checkout: site-packages on sys.path and numpy/ below it
    # must both move through the same descriptor, or the audit hook's prefixes miss).
    for folder in sorted(set(folders), key=len):
        if any(folder == old or folder.startswith(old + os.sep) for old in mapping):
            continue
        if os.path.isdir(folder) and not _reachable_by_others(folder):
            fd = os.open(folder, os.O_PATH | os.O_DIRECTORY)
            mapping[folder] = f"/proc/self/fd/{fd}"
    if not mapping:
        return mapping

    def respell(path):
        return moved(path, mapping)

    sys.path[:] = [respell(p) for p in sys.path]
    for module in list(sys.modules.values()):
        search = getattr(module, "__path__", None)
        if isinstance(search, list):
            search[:] = [respell(p) for p in search]
    for old in list(sys.path_importer_cache):
        if respell(old) != old:
            del sys.path_importer_cache[old]
    return mapping


def moved(path, mapping):
    """``path`` spelled through the descriptor of the mapped folder that contains it, if any."""
    for old, new in mapping.items():
        if path == old or path.startswith(old + os.sep):
            return new + path[len(old):]
    return path


# What the zygote keeps after dropping root: CAP_SYS_ADMIN to give each worker PID and mount
# namespaces of its own, CAP_SETPCAP for the worker's init to empty its bounding set. Neither
# ever reaches student code: the init drops every capability before it forks the worker.
CAP_SETPCAP, CAP_SYS_ADMIN = 8, 21
NAMESPACE_CAPS = (1 << CAP_SETPCAP) | (1 << CAP_SYS_ADMIN)


def _limit_bounding_set(keep):
    """Drop every capability but those in the bit mask ``keep`` from the bounding set (this
    needs CAP_SETPCAP) and the ambient set."""
    _, libc = load_libc()
    for cap in range(64):
        if not keep >> cap & 1:
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP; EINVAL past the last capability
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL


def set_capabilities(keep):
    """Keep only the capabilities in ``keep``: bounding, permitted and effective sets alike
    (none inheritable); exit if the kernel refuses."""
    ctypes, libc = load_libc()
    _limit_bounding_set(keep)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    low, high = keep & 0xFFFFFFFF, keep >> 32
    data = (ctypes.c_uint32 * 6)(low, low, 0, high, high, 0)  # effective, permitted, inheritable
    if libc.capset(header, data) != 0:
        os._exit(73)


def permitted_capabilities():
    """The bit mask of this process's permitted capabilities (0 if it cannot be read)."""
    ctypes, libc = load_libc()
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capget(header, data) != 0:
        return 0
    return data[1] | data[4] << 32


def drop_privileges(uid, gid, keep=0):
    """Become ``uid``/``gid`` for good, keeping only the capabilities in ``keep``."""
    _, libc = load_libc()
    if keep:
        _limit_bounding_set(keep)  # while CAP_SETPCAP is held
        libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS: setuid keeps the permitted set
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if keep:
        libc.prctl(8, 0, 0, 0, 0)
        set_capabilities(keep)  # setuid cleared the effective set
    if os.getuid() != uid or os.geteuid() != uid or os.getgid() != gid:
        os._exit(71)
    try:
        os.setuid(0)
    except PermissionError:
        return
    os._exit(72)  # root could be regained: never run student code like this


def drop_capabilities(keep=0):
    """As uid 0 without the uid drop: give up every capability but ``keep`` for good."""
    _, libc = load_libc()
    # SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP(_LOCKED) | KEEP_CAPS_LOCKED
    libc.prctl(28, 0x2F, 0, 0, 0)  # PR_SET_SECUREBITS
    set_capabilities(keep)


def limit_resources(cfg):
    import resource

    limits = [(resource.RLIMIT_CORE, 0),
              (resource.RLIMIT_AS, cfg["memory_bytes"]),
              (resource.RLIMIT_FSIZE, cfg["file_bytes"]),
              (resource.RLIMIT_NOFILE, 256)]
    if cfg.get("nproc"):
        limits.append((resource.RLIMIT_NPROC, cfg["nproc"]))
    for which, value in limits:
        soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))


