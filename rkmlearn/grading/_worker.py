"""The sandboxed side of grading: a zygote that forks one worker per test.

This file never runs inside the judge. :mod:`rkmlearn.grading.sandbox` starts it as
``python -I -B -c LOADER <this source> <wire.py source> <config JSON>``, so the sandboxed
process reads no file of the grader's and imports nothing of ``rkmlearn``. Standard library only
until the sandbox is set up; numpy after that.

The zygote, before any student code exists in the process (trusted phase):

1. dies with its parent (``PR_SET_PDEATHSIG``) and checks that the parent is still the runner;
   moves into a network namespace of its own (no interface up);
2. as root: opens the folders it must read that the sandbox uid cannot reach by path (a
   ``/root/.pyenv`` interpreter), then drops to the sandbox uid and gid (no supplementary groups),
   keeping CAP_SYS_ADMIN and CAP_SETPCAP only, to make each worker's namespaces;
3. sets resource limits (address space, CPU, file size, open files, processes per uid, no core);
4. checks once that a PID namespace with its own /proc can be made, and builds the Landlock
   ruleset of the workers when the kernel has Landlock: read-only access to the interpreter,
   the allowed packages and the submission, read-write access to its scratch folder, no other
   file, no exec (unless the exercise allows processes), no TCP, no signals or abstract sockets
   outside the worker's own domain;
5. imports numpy and the allowed packages, and installs the audit hook that enforces the
   exercise's rules for student code (imports, files, processes, sockets, ctypes, tracing);
6. tells the runner it is ready and waits for ``fork`` requests.

For each request it forks an outer process, which enters a mount namespace of its own (mounts
private) and forks the init (PID 1) of a new PID namespace; the init mounts a /proc of that
namespace, drops every capability and forks the worker (PID 2): the worker sees its init and
itself, no other process of the machine, and killing the init kills all it started. The worker
re-arms the parent-death signal, limits its CPU time, enforces the Landlock ruleset in a domain
of its own, refuses new processes unless the exercise allows them (seccomp), switches the audit
hook on, imports the submission and answers ``call`` requests until ``bye``. What it sends back is
untrusted by the judge, which validates every byte (:mod:`rkmlearn.grading.wire`).
"""
import json
import os
import signal
import socket
import sys

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
ACTIVATE_EVENT = "rkmlearn.grading.student_code_starts"
MAX_MESSAGE = 2000


def _libc():
    import ctypes

    return ctypes, ctypes.CDLL(None, use_errno=True)


def _die_with_parent(parent_pid):
    """SIGKILL this process when its parent dies; exit now if the parent is already gone."""
    if sys.platform.startswith("linux"):
        _, libc = _libc()
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(70)


# --------------------------------------------------------------------------------------------
# privileges and limits
# --------------------------------------------------------------------------------------------
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


def _reach_through_descriptors(folders):
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

    def moved(path):
        return _moved(path, mapping)

    sys.path[:] = [moved(p) for p in sys.path]
    for module in list(sys.modules.values()):
        search = getattr(module, "__path__", None)
        if isinstance(search, list):
            search[:] = [moved(p) for p in search]
    for old in list(sys.path_importer_cache):
        if moved(old) != old:
            del sys.path_importer_cache[old]
    return mapping


def _moved(path, mapping):
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
    _, libc = _libc()
    for cap in range(64):
        if not keep >> cap & 1:
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP; EINVAL past the last capability
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL


def _set_capabilities(keep):
    """Keep only the capabilities in ``keep``: bounding, permitted and effective sets alike
    (none inheritable); exit if the kernel refuses."""
    ctypes, libc = _libc()
    _limit_bounding_set(keep)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    low, high = keep & 0xFFFFFFFF, keep >> 32
    data = (ctypes.c_uint32 * 6)(low, low, 0, high, high, 0)  # effective, permitted, inheritable
    if libc.capset(header, data) != 0:
        os._exit(73)


def _permitted_capabilities():
    """The bit mask of this process's permitted capabilities (0 if it cannot be read)."""
    ctypes, libc = _libc()
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capget(header, data) != 0:
        return 0
    return data[1] | data[4] << 32


def _drop_privileges(uid, gid, keep=0):
    """Become ``uid``/``gid`` for good, keeping only the capabilities in ``keep``."""
    _, libc = _libc()
    if keep:
        _limit_bounding_set(keep)  # while CAP_SETPCAP is held
        libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS: setuid keeps the permitted set
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if keep:
        libc.prctl(8, 0, 0, 0, 0)
        _set_capabilities(keep)  # setuid cleared the effective set
    if os.getuid() != uid or os.geteuid() != uid or os.getgid() != gid:
        os._exit(71)
    try:
        os.setuid(0)
    except PermissionError:
        return
    os._exit(72)  # root could be regained: never run student code like this


def _drop_capabilities(keep=0):
    """As uid 0 without the uid drop: give up every capability but ``keep`` for good."""
    _, libc = _libc()
    # SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP(_LOCKED) | KEEP_CAPS_LOCKED
    libc.prctl(28, 0x2F, 0, 0, 0)  # PR_SET_SECUREBITS
    _set_capabilities(keep)


def _limit_resources(cfg):
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


# --------------------------------------------------------------------------------------------
# Landlock (Linux >= 5.13): kernel-enforced file, network and signal restrictions
# --------------------------------------------------------------------------------------------
_FS_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)  # exec/write/read/trunc/ioctl
_READ_FILE, _READ_DIR, _EXECUTE = 1 << 2, 1 << 3, 1 << 0
_MAKE_CHAR, _MAKE_SOCK, _MAKE_BLOCK = 1 << 6, 1 << 9, 1 << 11


# The Landlock system calls have the same numbers on every architecture.
_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446


def _landlock_abi():
    """``(ctypes, libc, syscall, abi)``: the kernel's Landlock ABI version (< 1: none)."""
    ctypes, libc = _libc()
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(_LANDLOCK_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return ctypes, libc, syscall, abi


def _landlock(read_dirs, list_dirs, read_files, rw_dirs, rw_files, allow_exec):
    """A Landlock ruleset for the workers: ``(status string, ruleset descriptor or None)``.

    The zygote builds it once; each worker enforces it on itself (:func:`_enforce`), in a
    domain of its own whose scopes (ABI 6: signals, abstract Unix sockets) shut out every
    process outside it, the zygote and the worker's init included. The zygote is not restricted
    itself: a Landlock domain forbids mounting, and each worker's init mounts its own /proc.
    """
    if not sys.platform.startswith("linux"):
        return "unavailable (not Linux)", None
    import struct

    ctypes, libc, syscall, abi = _landlock_abi()
    create, add_rule = _LANDLOCK_CREATE, _LANDLOCK_ADD_RULE
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
    ruleset = syscall(create, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return f"unavailable ({os.strerror(ctypes.get_errno())})", None
    read_dir = _READ_FILE | _READ_DIR
    rw_dir = handled & ~(_MAKE_CHAR | _MAKE_SOCK | _MAKE_BLOCK | _EXECUTE)
    rules = ([(p, read_dir) for p in read_dirs] + [(p, _READ_DIR) for p in list_dirs]
             + [(p, _READ_FILE) for p in read_files]
             + [(p, rw_dir) for p in rw_dirs]
             + [(p, _FS_FILE_RIGHTS & ~_EXECUTE) for p in rw_files])
    for path, access in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        is_dir = os.path.isdir(path)
        access &= handled if is_dir else (handled & _FS_FILE_RIGHTS)
        rule = ctypes.create_string_buffer(struct.pack("<Qi", access, fd), 12)
        status = syscall(add_rule, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0))
        os.close(fd)
        if status != 0:
            os.close(ruleset)
            return f"unavailable (rule for {path}: {os.strerror(ctypes.get_errno())})", None
    return f"on (ABI {abi})", ruleset


def _enforce(ruleset):
    """Restrict this process (and its future children) with the zygote's Landlock ruleset;
    the worker never runs unrestricted: it exits if the kernel refuses."""
    ctypes, libc, syscall, _ = _landlock_abi()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            syscall(_LANDLOCK_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        sys.stderr.write(f"grader: Landlock refused the worker's domain "
                         f"({os.strerror(ctypes.get_errno())})\n")
        sys.stderr.flush()
        os._exit(74)
    os.close(ruleset)


def _no_new_processes():
    """A seccomp filter that refuses every way of making a process (fork, vfork, clone without
    CLONE_THREAD, clone3) and lets threads through: a child could compute, or hold memory,
    unseen by the per-process CPU count and address-space cap. Returns a status string."""
    import platform
    import struct

    arches = {"x86_64": (0xC000003E, {"clone": 56, "fork": 57, "vfork": 58}),
              "aarch64": (0xC00000B7, {"clone": 220})}
    machine = platform.machine()
    if not sys.platform.startswith("linux") or machine not in arches:
        return f"unavailable ({sys.platform} {machine})"
    arch, calls = arches[machine]
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    # (code, jump-if-true label, jump-if-false label, k); labels are resolved below.
    prog = [("ld", ld, None, None, 4), (None, jeq, "nr", "EPERM", arch),
            ("nr", ld, None, None, 0),
            (None, jge, "EPERM", None, 0x40000000),  # x32 system calls: none needed
            (None, jeq, "ENOSYS", None, 435)]  # clone3: glibc falls back to clone for threads
    for name in ("fork", "vfork"):
        if name in calls:
            prog.append((None, jeq, "EPERM", None, calls[name]))
    prog += [(None, jeq, "flags", "ALLOW", calls["clone"]),
             ("flags", ld, None, None, 16),  # low 32 bits of clone's flags
             (None, jset, "ALLOW", "EPERM", 0x00010000),  # CLONE_THREAD: a thread
             ("ALLOW", ret, None, None, allow), ("EPERM", ret, None, None, eperm),
             ("ENOSYS", ret, None, None, enosys)]
    where = {label: i for i, (label, *_rest) in enumerate(prog) if label}
    code = b""
    for i, (_, op, jt, jf, k) in enumerate(prog):
        jump = [0 if j is None else where[j] - i - 1 for j in (jt, jf)]
        code += struct.pack("<HBBI", op, jump[0], jump[1], k)
    ctypes, libc = _libc()

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    filters = ctypes.create_string_buffer(code, len(code))
    program = Program(len(prog), ctypes.cast(filters, ctypes.c_char_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(22, 2, ctypes.byref(program), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
        return f"unavailable ({os.strerror(ctypes.get_errno())})"
    return "on"


def _own_network():
    """Move this process (and its future children) into a network namespace of its own: its
    only interface is a loopback that is down, so no packet leaves it, UDP included. As root
    a plain network namespace; otherwise inside a user namespace of its own (uid and gid
    mapped to themselves). Returns a status string."""
    if not sys.platform.startswith("linux"):
        return "shared (not Linux)"
    ctypes, libc = _libc()
    clone_newnet, clone_newuser = 0x40000000, 0x10000000
    if os.geteuid() == 0:
        if libc.unshare(clone_newnet) == 0:
            return "own namespace, no interface up"
        return f"shared (unshare: {os.strerror(ctypes.get_errno())})"
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(clone_newuser | clone_newnet) != 0:
        return f"shared (unshare: {os.strerror(ctypes.get_errno())})"
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as fh:
                fh.write(text)
    except OSError as exc:
        return f"own namespace (user namespace, ids unmapped: {exc.strerror})"
    return "own namespace (in a user namespace), no interface up"


CLONE_NEWNS, CLONE_NEWPID = 0x00020000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 1 << 18


def _own_pid_namespace():
    """Move this process into a mount namespace of its own (every mount private: nothing
    propagates back) and make its next child the first process (PID 1, the init) of a PID
    namespace of its own. Needs CAP_SYS_ADMIN (as root, or inside the zygote's user
    namespace). Returns None, or why not."""
    ctypes, libc = _libc()
    if libc.unshare(CLONE_NEWNS | CLONE_NEWPID) != 0:
        return f"unshare: {os.strerror(ctypes.get_errno())}"
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return f"making the mounts private: {os.strerror(ctypes.get_errno())}"
    return None


def _mount_own_proc():
    """In the init of a PID namespace: mount a /proc that lists this namespace's processes
    only (over the machine's). Returns None, or why not."""
    ctypes, libc = _libc()
    if libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
        return f"mounting /proc: {os.strerror(ctypes.get_errno())}"
    return None


def _probe_pid_namespace():
    """Whether workers can have PID namespaces of their own, with their own /proc: tried once
    in a throwaway process (and its init). Returns ``(status string, own_proc)``: own_proc is
    None when the namespace itself is refused, False when only the /proc mount is."""
    if not sys.platform.startswith("linux"):
        return "shared (not Linux)", None
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked child
        try:
            os.close(read)
            error = _own_pid_namespace()
            if error is not None:
                os.write(write, b"refused " + error.encode())
            elif os.fork() == 0:
                error = _mount_own_proc()
                names = [n for n in os.listdir("/proc") if n.isdigit()] if error is None else []
                if error is None and names != ["1"]:
                    error = f"/proc still lists {len(names)} processes"
                os.write(write, (b"proc " + error.encode()) if error else b"ok")
            else:
                os.wait()
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        answer = fh.read(500).decode("utf-8", "replace")
    os.waitpid(pid, 0)
    if answer == "ok":
        return "own namespace and /proc per worker", True
    if answer.startswith("proc "):
        return f"own namespace per worker, the machine's /proc ({answer[5:]})", False
    return f"shared ({answer[8:] or 'the probe failed'})", None


# --------------------------------------------------------------------------------------------
# the audit hook: the exercise's rules, for student code
# --------------------------------------------------------------------------------------------
def _install_rules(rules, note_violation):
    """Install the audit hook: the import rule at once, the others from the ACTIVATE_EVENT on.

    Audit hooks cannot be removed from Python. The hook reads nothing mutable that student code
    could reach: its state lives in closure cells of a function that nothing references but the
    interpreter's hook list, and it calls only builtins captured here (the test suite checks
    that its code loads no global name).
    """
    _type, _str, _bytes, _int, _len, _range = type, str, bytes, int, len, range
    _perm, _imperr, _oserr, _valerr = PermissionError, ImportError, OSError, ValueError
    _getpid, _stat = os.getpid, os.stat
    # Captured C functions (student code can rebind os.lstat or posixpath's helpers, not these).
    _lstat, _readlink = os.lstat, os.readlink

    def _realpath(path):
        """``path`` with every symbolic link resolved, component by component: what the
        kernel will open. (os.path.realpath reads module globals that student code can
        change; this reads only captured functions.)"""
        todo = [p for p in path.split("/") if p][::-1]
        out, links = [], 0
        while todo:
            part = todo.pop()
            if part == ".":
                continue
            if part == "..":
                if out:
                    out.pop()
                continue
            candidate = "/" + "/".join(out + [part])
            try:
                mode = _lstat(candidate).st_mode
            except _oserr:
                out.append(part)  # does not exist (yet): nothing to resolve
                continue
            if mode & 0o170000 != 0o120000:
                out.append(part)
                continue
            links += 1
            if links > 40:
                raise _oserr("too many levels of symbolic links")
            target = _readlink(candidate)
            if target.startswith("/"):
                out = []
            todo.extend([p for p in target.split("/") if p][::-1])
        return "/" + "/".join(out)
    allowed = frozenset(rules["allowed_imports"])
    stdlib = frozenset(sys.stdlib_module_names)
    banned = frozenset(rules["banned_modules"])
    # Paths are compared after resolving links (normal() below), so the allowed ones are
    # listed resolved too (a folder reached through /proc/self/fd/N resolves to its real path).
    def both(paths):
        return [q for p in paths for q in {p, _realpath(p)}]

    scratch = _realpath(rules["scratch"]).rstrip("/")
    read_prefixes = tuple(p.rstrip("/") + "/" for p in both(rules["read_dirs"]))
    read_files = frozenset(both(rules["read_files"]))
    list_prefixes = read_prefixes + tuple(p.rstrip("/") + "/" for p in both(rules["list_dirs"]))
    processes = bool(rules["processes"])
    allowed_text = ", ".join(["the standard library"] + sorted(allowed))
    write_mask = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    process_events = frozenset(["os.fork", "os.forkpty", "os.exec", "os.posix_spawn", "os.spawn",
                                "os.system", "subprocess.Popen", "os.startfile", "os.killpg",
                                "pty.spawn"])
    # event -> positions of its dir_fd arguments (a path relative to a descriptor escapes checks)
    mutators = {"os.mkdir": (2,), "os.rename": (2, 3), "os.remove": (1,), "os.rmdir": (1,),
                "os.truncate": (), "os.utime": (3,), "os.chmod": (2,), "os.chown": (3,),
                "os.chflags": (), "os.setxattr": (), "os.removexattr": ()}
    denied_events = frozenset(["os.link", "os.symlink", "os.chdir", "sys.settrace",
                               "sys.setprofile", "sys._current_frames", "gc.get_objects",
                               "gc.get_referrers", "gc.get_referents",
                               "sys.monitoring.register_callback", "sqlite3.enable_load_extension",
                               "sqlite3.load_extension", "resource.prlimit"])
    active = False

    def refuse(message, record=True):
        # Recorded refusals fail the call even if caught. Reads and listings are only refused:
        # libraries probe paths and recover, and a refused read reveals nothing.
        if record:
            note_violation(message)
        raise _perm("grading rules: " + message)

    def exists(path):
        try:
            _stat(path)
        except _oserr:
            return False
        return True

    def normal(path):
        """The absolute path the kernel will open, links resolved: '..' after a link such as
        /proc/self/root leads where the link leads, not to the lexical parent."""
        if _type(path) is _bytes:
            path = path.decode("utf-8", "surrogateescape")
        if not path.startswith("/"):
            path = scratch + "/" + path
        # Links that lead elsewhere: /proc's (self/root, self/cwd, fd/N) and /dev/fd. Student
        # code cannot make links (Landlock and this hook refuse them), so other paths are
        # resolved lexically, without one lstat per component on every file operation.
        if "/.." in path or path.startswith(("/proc", "/dev/fd", "/dev/std")):
            try:
                path = _realpath(path)
            except (_oserr, _valerr):
                pass  # then the lexical form below
        parts = []
        for part in path.split("/"):
            if part == "" or part == ".":
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return "/" + "/".join(parts)

    def in_scratch(path):
        return path == scratch or path.startswith(scratch + "/")

    def readable(path):
        return in_scratch(path) or path in read_files or path.startswith(read_prefixes)

    def hook(event, args):
        nonlocal active
        if event == "import":  # from the start: allowed packages probing optional ones too
            name = args[0]
            if _type(name) is not _str:
                raise _imperr("grading rules: bad module name")
            top = name.partition(".")[0]
            if name in banned or top in banned or not (
                    top in stdlib or top in allowed or name == "submission"
                    or top.startswith("_sysconfigdata_")):
                raise _imperr(f"grading rules: this exercise allows importing only "
                              f"{allowed_text}; '{name}' is not allowed")
            return
        if not active:
            if event == ACTIVATE:
                active = True
            return
        if event == "open":
            path, mode, flags = args
            if _type(path) is _int:
                return  # a descriptor this process already holds
            if _type(path) is not _str and _type(path) is not _bytes:
                refuse("open() needs a str path")
            if mode is None and not (path.startswith("/") if _type(path) is _str
                                     else path.startswith(b"/")):
                refuse("os.open() needs an absolute path (dir_fd cannot be checked)")
            target = normal(path)
            writes = (_type(flags) is _int and flags & write_mask) or (
                _type(mode) is _str and ("w" in mode or "a" in mode or "x" in mode or "+" in mode))
            if in_scratch(target) or target == "/dev/null" or (
                    not writes and (readable(target) or not exists(target))):
                return
            refuse(f"the submission may read and write files only in its scratch folder (its "
                   f"working directory); {'writing' if writes else 'reading'} {target!r} is "
                   "not allowed", record=writes)
        elif event == "os.listdir" or event == "os.scandir":
            path = args[0]
            if path is None or _type(path) is _int:
                return
            if _type(path) is not _str and _type(path) is not _bytes:
                refuse(f"{event}() needs a str path", record=False)
            target = normal(path)
            if not (in_scratch(target) or (target + "/").startswith(list_prefixes)):
                refuse(f"listing {target!r} is not allowed (only the scratch folder)",
                       record=False)
        elif event in mutators:
            fds = mutators[event]
            for i in _range(2 if event == "os.rename" else 1):
                path = args[i]
                if _type(path) is _int:
                    continue
                if _type(path) is not _str and _type(path) is not _bytes:
                    refuse(f"{event}() needs a str path")
                # CPython's audit events pass -1 for "no dir_fd"; a real one (shutil.rmtree's
                # fd-based walk, tempfile's cleanup) is read back through /proc/self/fd.
                fd = args[fds[i]] if i < _len(fds) and _len(args) > fds[i] else None
                if fd is not None and fd != -1:
                    if _type(fd) is not _int:
                        refuse(f"{event}() with a dir_fd that is not a descriptor")
                    try:
                        base = _readlink("/proc/self/fd/" + _str(fd))
                    except _oserr:
                        refuse(f"{event}() with a dir_fd that cannot be read back")
                    if _type(path) is _bytes:
                        path = path.decode("utf-8", "surrogateescape")
                    if not path.startswith("/"):
                        path = base + "/" + path
                if not in_scratch(normal(path)):
                    refuse(f"{event}() outside the scratch folder is not allowed")
        elif event in process_events:
            if not processes:
                refuse(f"this exercise does not allow starting processes ({event})")
        elif event == "os.kill":
            if not processes and args[0] != _getpid():
                refuse("sending signals to other processes is not allowed")
        elif event.startswith("socket."):
            refuse(f"network access is not allowed ({event})")
        elif event.startswith("ctypes."):
            refuse(f"ctypes is not allowed ({event})")
        elif event in denied_events:
            refuse(f"{event} is not allowed")

    ACTIVATE = ACTIVATE_EVENT  # noqa: N806 - a local, so that the hook loads no global
    sys.addaudithook(hook)
    return hook.__code__


# --------------------------------------------------------------------------------------------
# the worker: import the submission, answer calls
# --------------------------------------------------------------------------------------------
def _where(exc, submission_path):
    """``file:line`` of the innermost frame of ``exc``'s traceback inside the submission."""
    tb, where = exc.__traceback__, ""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == submission_path:
            where = f"{os.path.basename(submission_path)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def _describe(exc, submission_path):
    try:
        text = str(exc)
    except BaseException:
        text = "<the exception's str() failed>"
    names = []
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            names.append(cls.__name__)
    code = exc.code if isinstance(exc, SystemExit) else None
    return {"type": type(exc).__name__[:100], "builtins": names[:20], "message": text[:MAX_MESSAGE],
            "where": _where(exc, submission_path),
            "exit_code": code if code is None or type(code) in (int, str) else repr(code)[:100]}


def _array_leaves(tree, path=()):
    import numpy as np

    if isinstance(tree, np.ndarray):
        yield path, tree
    elif isinstance(tree, (list, tuple)):
        for i, item in enumerate(tree):
            yield from _array_leaves(item, path + (i,))
    elif isinstance(tree, dict):
        for key, item in tree.items():
            yield from _array_leaves(item, path + (key,))


def _serve(sock, cfg, wire, violations):
    import numpy as np

    path = cfg["submission"]
    with open(path, "rb") as fh:  # read before the rules apply; no bytecode cache is consulted
        source = fh.read()
    module = type(sys)("submission")
    module.__file__ = path
    sys.modules["submission"] = module
    sys.audit(ACTIVATE_EVENT)
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    except BaseException as exc:
        wire.send(sock, "import_error", {"error": _describe(exc, path), "violations": violations[:5]})
        return
    functions = sorted(k for k, v in vars(module).items() if callable(v) and not k.startswith("_"))
    wire.send(sock, "ready", {"functions": functions[:1000], "violations": violations[:5]})
    del violations[:]
    while True:
        kind, body, blobs = wire.recv(sock, float("inf"), cfg["max_message_bytes"])
        if kind != "call":
            return
        try:
            args, kwargs = wire.decode(body["args"], blobs)
            target = getattr(module, body["name"])
        except BaseException as exc:
            wire.send(sock, "raised", {"error": _describe(exc, path), "violations": []})
            continue
        before = [(where, leaf, leaf.copy()) for where, leaf in _array_leaves((args, kwargs))]
        try:
            value = target(*args, **kwargs)
        except BaseException as exc:
            wire.send(sock, "raised", {"error": _describe(exc, path), "violations": violations[:5]})
            del violations[:]
            continue
        changed = [[list(where), leaf] for where, leaf, copy in before
                   if leaf.shape != copy.shape or leaf.dtype != copy.dtype
                   or not np.array_equal(leaf, copy, equal_nan=True)]
        try:
            tree, out = wire.encode({"value": value, "changed": changed})
        except BaseException as exc:
            wire.send(sock, "bad_return", {"error": _describe(exc, path),
                                           "violations": violations[:5]})
        else:
            wire.send(sock, "returned", {"tree": tree, "violations": violations[:5]}, out)
        del violations[:]


def _worker(data_fd, init_pid, report, ruleset, cfg, wire, violations):
    """The process that imports the submission: the second of its PID namespace."""
    import resource

    _die_with_parent(init_pid)
    cpu = int(cfg["cpu_seconds"]) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    if ruleset is not None:
        _enforce(ruleset)
    if not cfg["processes"]:
        # No process of its own: a child started past the audit hook (_posixsubprocess runs
        # no hook, its preexec_fn runs Python in the child) could compute unseen by the CPU
        # count and the memory cap, which are per process. The kernel refuses the fork
        # (seccomp; threads stay allowed), or, where seccomp cannot be set, RLIMIT_NPROC 0.
        if _no_new_processes() != "on":
            resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    report.send(b"worker")  # stamped by the kernel with this process's PID in the zygote's view
    report.close()
    sock = socket.socket(fileno=data_fd)
    try:
        _serve(sock, cfg, wire, violations)
    finally:
        sock.close()


def _init(data_fd, parent_pid, report, ruleset, cfg, wire, violations, own_proc):
    """The first process of the worker's PID namespace (its init, PID 1): mounts the /proc
    that lists the namespace alone, forks the worker, reaps what is left to it and reports the
    worker's wait status. When it ends, the kernel kills every process left in the namespace.

    The worker, not this process, imports the submission: an init ignores the signals it has
    no handler for (a worker's own ``raise(SIGSEGV)`` would not end it).
    """
    _die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if own_proc:
        error = _mount_own_proc()
        if error is not None:
            sys.stderr.write(f"grader: the worker's init: {error}\n")
            os._exit(75)
    _set_capabilities(0)  # nothing for the worker to inherit
    _, libc = _libc()
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # the worker cannot read this process's memory
    report.send(b"init")
    me = os.getpid()
    worker = os.fork()
    if worker == 0:
        code = 0
        try:
            _worker(data_fd, me, report, ruleset, cfg, wire, violations)
        except BaseException:
            code = 1
        finally:
            sys.stdout.flush()
            os._exit(code)
    os.close(data_fd)
    if ruleset is not None:
        os.close(ruleset)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == worker:
            break
    report.send(b"status %d" % status)
    os._exit(0)


def _outer(data_fd, zygote_pid, report, ruleset, cfg, wire, violations, pid_namespace):
    """The zygote's child for one worker: gives it PID and mount namespaces of its own and
    waits for their init. Exits as the init did (killed by the same signal, say)."""
    _die_with_parent(zygote_pid)
    if pid_namespace is not None:
        error = _own_pid_namespace()
        if error is not None:
            sys.stderr.write(f"grader: the worker's namespaces: {error}\n")
            os._exit(75)
    me = os.getpid()
    init = os.fork()
    if init == 0:
        code = 0
        try:
            # getppid() is 0 in a PID namespace of one's own: the parent lives outside it.
            _init(data_fd, me if pid_namespace is None else 0, report, ruleset, cfg, wire,
                  violations, bool(pid_namespace))
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(data_fd)
    report.close()
    if ruleset is not None:
        os.close(ruleset)
    _, status = os.waitpid(init, 0)
    if os.WIFSIGNALED(status):
        try:
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _stamped(sock):
    """The next message on ``sock`` and its sender's PID, which the kernel stamps (SO_PASSCRED)
    and translates into this process's PID namespace; ``(b"", None)`` at end of file."""
    import struct

    data, ancillary, _, _ = sock.recvmsg(256, socket.CMSG_SPACE(12))
    pid = None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(payload) >= 12:
            pid = struct.unpack("iII", payload[:12])[0]
    return data, pid


def _zygote_loop(ctrl, cfg, wire, violations, ruleset, pid_namespace):
    """Answer ``fork`` requests: zygote -> outer process -> init (PID 1) -> worker (PID 2).

    The runner gets the worker's PID (for its CPU readings) and the init's (killing the init
    kills everything in the namespace), both as the kernel stamped them on a message from that
    process: no PID is taken from anything a worker could write.
    """
    zygote = os.getpid()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(ctrl, 4096, 1)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)  # the runner closed the channel
        request = json.loads(message)
        if request.get("op") != "fork" or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            continue
        report, child_report = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        report.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                ctrl.close()
                report.close()
                _outer(fds[0], zygote, child_report, ruleset, cfg, wire, violations,
                       pid_namespace)
            except BaseException:
                code = 1
            finally:
                sys.stdout.flush()
                os._exit(code)
        os.close(fds[0])
        child_report.close()
        senders = {}
        while b"worker" not in senders:
            data, sender = _stamped(report)
            if not data:
                break  # the init and the worker are gone before the worker was ready
            senders[data] = sender
        worker, init = senders.get(b"worker"), senders.get(b"init")
        ctrl.send(json.dumps({"op": "forked", "pid": worker, "init": init} if worker
                             else {"op": "fork_failed"}).encode())
        _, status = os.waitpid(pid, 0)
        report.setblocking(False)
        try:
            data, sender = _stamped(report)
            if sender == init and data.startswith(b"status "):
                status = int(data[7:])  # the worker's own; else the outer process's
        except (BlockingIOError, ValueError):
            pass
        report.close()
        if worker:
            ctrl.send(json.dumps({"op": "exited", "pid": worker, "status": status}).encode())


def main(config_json, wire_source):
    cfg = json.loads(config_json)
    _die_with_parent(cfg["parent_pid"])
    namespaces = cfg.get("namespaces", True)
    layers = {"network": _own_network() if namespaces else "shared (off)"}
    # Root in a container may lack CAP_SYS_ADMIN: then there is nothing to keep (and the probe
    # below reports the namespaces refused).
    keep = NAMESPACE_CAPS & _permitted_capabilities() \
        if namespaces and sys.platform.startswith("linux") and os.geteuid() == 0 else 0
    if cfg.get("uid") is not None and os.geteuid() == 0:
        mapping = _reach_through_descriptors(cfg["landlock_read_dirs"] + cfg["landlock_list_dirs"])
        for key in ("read_dirs", "landlock_read_dirs", "landlock_list_dirs"):
            cfg[key] = cfg[key] + [_moved(d, mapping) for d in cfg[key] if _moved(d, mapping) != d]
        _drop_privileges(cfg["uid"], cfg["gid"], keep)
        _die_with_parent(cfg["parent_pid"])  # a credential change clears the death signal
        layers["uid"] = f"sandbox uid {cfg['uid']}"
    elif os.geteuid() == 0 and sys.platform.startswith("linux"):
        _drop_capabilities(keep)
        layers["uid"] = "uid 0 without capabilities"
    else:
        layers["uid"] = f"the grader's own uid {os.geteuid()}"
    os.umask(0o077)
    os.chdir(cfg["scratch"])
    _limit_resources(cfg)
    layers["rlimits"] = (f"address space {cfg['memory_bytes'] // 2**20} MiB, CPU "
                         f"{int(cfg['cpu_seconds']) + 1} s per test, files "
                         f"{cfg['file_bytes'] // 2**20} MiB")
    if namespaces:
        layers["pid"], pid_namespace = _probe_pid_namespace()
    else:
        layers["pid"], pid_namespace = "shared (off)", None
    if keep and pid_namespace is None:
        _set_capabilities(0)  # no namespace to make: the zygote keeps nothing
    ruleset = None
    if cfg.get("landlock", True):
        layers["landlock"], ruleset = _landlock(
            cfg["landlock_read_dirs"], cfg["landlock_list_dirs"], cfg["read_files"],
            [cfg["scratch"]], ["/dev/null"], cfg["processes"])
    else:
        layers["landlock"] = "off"
    namespace = {"__name__": "rkmlearn_grading_wire"}
    exec(compile(wire_source, "<rkmlearn.grading.wire>", "exec"), namespace)
    wire = type(sys)("rkmlearn_grading_wire")
    wire.__dict__.update(namespace)
    ctrl = socket.socket(fileno=cfg["ctrl_fd"])
    cfg["list_dirs"] = [p for p in sys.path if p]
    violations = []
    if cfg.get("audit", True):
        _install_rules(cfg, violations.append)
        layers["audit"] = "on"
    else:
        layers["audit"] = "off"
    for name in cfg["preload"]:
        __import__(name)
    ctrl.send(json.dumps({"op": "ready", "layers": layers}).encode())
    _zygote_loop(ctrl, cfg, wire, violations, ruleset, pid_namespace)
