"""The audit hook: the exercise's rules, with clear messages, for student code.

It runs inside the student's process, so it is a courtesy, not a wall: honest mistakes and
casual cheating get a clear message ("grading rules: ..."); the kernel walls (Landlock,
namespaces, seccomp, the sandbox uid) hold when it is defeated.
"""
import os
import sys

# Audited by the worker just before the submission's first line runs: the hook's rules on
# files, processes, sockets and the like apply from this event on.
ACTIVATE_EVENT = "rkmlearn.grading.student_code_starts"


def install_rules(rules, note_violation):
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

