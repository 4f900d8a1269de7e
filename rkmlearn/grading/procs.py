"""Process plumbing for the judge side: death signals, sweeps, sandbox uids, output drains.

Containment of a grading, from the outside in:

* every process the grader starts dies with its parent (``PR_SET_PDEATHSIG``): judge ->
  runner -> zygote -> (outer process -> init ->) worker;
* each worker is the second process of a PID namespace of its own (where the kernel allows):
  it sees no process outside it, and when the namespace's init is killed or ends, the kernel
  kills everything in it;
* each runner is a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): a process that a worker
  starts and abandons (double fork, ``setsid``) is re-parented to the runner, not to init, so
  :func:`sweep_descendants` finds and kills it after each test, at the end, and when the judge
  disappears (the runner's stdin reaches end-of-file);
* as root, the worker runs as a sandbox uid that belongs to this grading alone, and
  :func:`kill_uid` ends every process of that uid, wherever it hides;
* judge-side processes are not dumpable, so a process of the same uid can neither ptrace them
  nor open their ``/proc/PID/fd`` entries.

Linux only; elsewhere these helpers do nothing (the grader still runs, with fewer guarantees).
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import pwd
import select
import signal
import site
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path

LINUX = sys.platform.startswith("linux")
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
# Sandbox uids for grading as root: numbers without a passwd entry, one per running grading.
# Override with RKMLEARN_GRADING_UIDS=START-END (inclusive).
DEFAULT_SANDBOX_UIDS = (60_200, 60_299)
UID_ENV = "RKMLEARN_GRADING_UIDS"
# The folder that holds the rkmlearn package: the runners and the zygote are started as
# ``python -m rkmlearn.grading...`` and import this grader, not another installed copy.
GRADER_ROOT = str(Path(__file__).resolve().parents[2])


# `python -P` (3.11+): the working directory is not put on the import path of a child started
# with -m (on 3.10 the sandboxed zygote takes it off itself).
NO_CWD_ON_PATH = ("-P",) if sys.version_info >= (3, 11) else ()


def grader_on_default_path() -> bool:
    """Whether a clean interpreter (no PYTHONPATH, no user site) finds this grader: installed
    in site-packages, as opposed to run from a source checkout."""
    return os.path.realpath(GRADER_ROOT) in {os.path.realpath(p) for p in site.getsitepackages()}


def environment() -> dict:
    """A copy of ``os.environ`` that another thread's change cannot break: ``dict(os.environ)``
    lists the keys, then reads each, and a key removed in between (pytest's PYTEST_CURRENT_TEST,
    while a grading runs in a thread) raised KeyError."""
    env = {}
    for key in list(os.environ):
        value = os.environ.get(key)
        if value is not None:
            env[key] = value
    return env


def with_grader_path(env: dict) -> dict:
    """``env`` with this grader's folder first on ``PYTHONPATH`` when a child started as
    ``python -m rkmlearn.grading...`` would not find it otherwise."""
    if not grader_on_default_path():
        env["PYTHONPATH"] = os.pathsep.join(p for p in (GRADER_ROOT, env.get("PYTHONPATH")) if p)
    return env


def _prctl(option: int, value: int) -> bool:
    if not LINUX:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(option, value, 0, 0, 0) == 0


def become_subreaper() -> bool:
    """Adopt the orphans of every descendant (Linux >= 3.4)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def not_dumpable() -> None:
    """No ptrace and no ``/proc/PID/{fd,mem,environ}`` for other processes of this uid."""
    _prctl(PR_SET_DUMPABLE, 0)


# --------------------------------------------------------------------------------------------
# finding and killing processes
# --------------------------------------------------------------------------------------------
def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            text = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def parent_map() -> dict[int, int]:
    """``{pid: ppid}`` for every process visible in ``/proc``."""
    out = {}
    if not LINUX:
        return out
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat_fields(int(name))
            if fields is not None:
                out[int(name)] = int(fields[1])
    return out


def descendants(root: int) -> list[int]:
    """Every process below ``root`` (children, grandchildren, ...)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parent_map().items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def process_age() -> float:
    """Seconds since this process started (interpreter start-up included); 0 if unknown."""
    fields = _stat_fields(os.getpid())
    try:
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    if fields is None:
        return 0.0
    return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a live process and of its children it has waited for, read
    from outside it (a slow loop run in a child process counts too)."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / os.sysconf("SC_CLK_TCK")


def remove_tree(path) -> None:
    """Remove a folder tree that untrusted code wrote: no recursion, no link followed.

    ``shutil.rmtree`` recurses once per level (a 1,100-deep chain of folders ends in a
    RecursionError) and needs the full path of each entry (which can exceed PATH_MAX). Here one
    directory descriptor is open at a time: entries are removed relative to it, a subfolder is
    entered with ``O_NOFOLLOW`` and left through ``..``, and folders locked with ``chmod 000``
    are opened up first. Missing paths are fine.
    """
    import stat

    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)

    def open_dir(name, dir_fd=None):
        try:
            return os.open(name, flags, dir_fd=dir_fd)
        except PermissionError:
            os.chmod(name, 0o700, dir_fd=dir_fd)
            return os.open(name, flags, dir_fd=dir_fd)

    path = os.fspath(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(path)
        return
    fd, names = open_dir(path), []
    try:
        while True:
            subfolder = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        subfolder = entry.name
                        break
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry.name, dir_fd=fd)
            if subfolder is not None:
                child = open_dir(subfolder, dir_fd=fd)
                os.close(fd)
                fd = child
                names.append(subfolder)
                continue
            if not names:
                break
            parent = os.open("..", flags & ~os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = parent
            os.rmdir(names.pop(), dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(path)


def _reap_children() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def sweep_descendants(keep: tuple[int, ...] = (), rounds: int = 200) -> int:
    """SIGKILL every descendant of this process except ``keep`` (and theirs); return how many.

    Repeats until none is left, so that processes forked during a round die in the next.
    Orphans of descendants are found too when this process is a subreaper.
    """
    killed = 0
    me = os.getpid()
    for _ in range(rounds):
        tree = parent_map()
        spared = set(keep)
        targets = []
        for pid in descendants(me):
            ancestor, chain = pid, set()
            while ancestor not in (me, 0, 1) and ancestor not in chain:
                chain.add(ancestor)
                if ancestor in spared:
                    break
                ancestor = tree.get(ancestor, 0)
            if ancestor not in spared:
                targets.append(pid)
        if not targets:
            _reap_children()
            return killed
        for pid in targets:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        _reap_children()
        time.sleep(0.005)
    return killed


def processes_of_uid(uid: int) -> list[int]:
    """Pids whose real, effective or saved uid is ``uid``."""
    out = []
    if not LINUX:
        return out
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as fh:
                for line in fh:
                    if line.startswith(b"Uid:"):
                        if str(uid).encode() in line.split()[1:4]:
                            out.append(int(name))
                        break
        except OSError:
            continue
    return out


def kill_uid(uid: int, rounds: int = 50) -> int:
    """As root: SIGKILL every process of ``uid``; return how many were left before the sweep.

    A child that has become ``uid`` calls ``kill(-1, SIGKILL)``, which reaches every process
    that uid may signal (all of its own) in one system call; repeated until none is left.
    """
    before = len(processes_of_uid(uid))
    for _ in range(rounds):
        if not processes_of_uid(uid):
            break
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the forked child
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        time.sleep(0.01)
    return before


# --------------------------------------------------------------------------------------------
# sandbox uids (root only)
# --------------------------------------------------------------------------------------------
def _uid_range() -> range:
    text = os.environ.get(UID_ENV)
    if text:
        start, _, end = text.partition("-")
        return range(int(start), int(end or start) + 1)
    return range(DEFAULT_SANDBOX_UIDS[0], DEFAULT_SANDBOX_UIDS[1] + 1)


class SandboxUid:
    """A uid (and gid of the same number) reserved for one grading, as root.

    Chosen from :data:`DEFAULT_SANDBOX_UIDS` (or ``RKMLEARN_GRADING_UIDS``): the first number
    with no passwd entry, no running process, and no other grading holding its lock file (in a
    root-only folder). No account is created: the kernel needs none. Released by :meth:`close`,
    after every process of the uid has been killed.
    """

    def __init__(self) -> None:
        folder = os.path.join(tempfile.gettempdir(), "rkmlearn-grading-uids")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
        if info.st_uid != 0 or info.st_mode & 0o077 or not os.path.isdir(folder):
            raise RuntimeError(f"{folder} must be a folder owned by root with mode 0700")
        for uid in _uid_range():
            try:
                pwd.getpwuid(uid)
                continue  # a real account
            except KeyError:
                pass
            fd = os.open(os.path.join(folder, f"{uid}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            if processes_of_uid(uid):
                kill_uid(uid)  # left over from a grading that was killed: ours now
            self.uid = self.gid = uid
            self._fd = fd
            return
        raise RuntimeError(f"no free sandbox uid in {_uid_range()}; set {UID_ENV}=START-END")

    def close(self) -> None:
        if self._fd is not None:
            kill_uid(self.uid)
            os.close(self._fd)
            self._fd = None


# --------------------------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------------------------
class OutputDrain:
    """Read a pipe in a thread, keeping only the last ``limit`` bytes; never wait for EOF.

    :meth:`stop` returns at once, whoever still holds the pipe's write end (a ``setsid`` child
    of the submission, say): the reader polls with a short time-out and checks a flag.
    """

    def __init__(self, fd: int, limit: int = 8192) -> None:
        self._fd, self._limit = fd, limit
        self._chunks: deque = deque()
        self._kept = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        os.set_blocking(fd, False)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self._fd], [], [], 0.1)
            except (OSError, ValueError):
                return
            if not ready:
                continue
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._chunks.append(chunk)
                self._kept += len(chunk)
                while self._kept - len(self._chunks[0]) >= self._limit:
                    self._kept -= len(self._chunks.popleft())

    def tail(self) -> str:
        with self._lock:
            data = b"".join(self._chunks)[-self._limit:]
        return data.decode("utf-8", errors="replace")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)
        with contextlib.suppress(OSError):
            os.close(self._fd)


def signal_name(status_or_code: int) -> str:
    try:
        return signal.Signals(status_or_code).name
    except ValueError:
        return f"signal {status_or_code}"


def pidfd_kill(pidfd: int | None, pid: int) -> None:
    """SIGKILL a process through its pidfd when there is one (no pid-reuse race), else by pid."""
    try:
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    except OSError as exc:
        if exc.errno not in (errno.ESRCH, errno.EPERM):
            raise
