"""The sandbox, seen from a runner: one small interface.

* :class:`Policy`: what a submission's worker may do, and with what resources;
* :class:`SandboxDirs`: the only files of a grading a worker can reach;
* :class:`Sandbox`: ``Sandbox(policy)`` starts the sandboxed zygote (``python -m
  rkmlearn.grading.worker.zygote``, see :mod:`rkmlearn.grading.worker`), ``.layers`` says which
  walls are up, ``.worker()`` forks a fresh :class:`Worker` for one test, ``.close()`` kills it
  all;
* :class:`Worker`: a socket to one worker (:mod:`rkmlearn.grading.wire` frames), its PIDs,
  ``kill()``, ``wait_exit()`` and ``close()``;
* :class:`SandboxError`: the sandbox itself failed (the grader's or the machine's problem,
  never the student's).

What the worker says is untrusted: :mod:`rkmlearn.grading.proxy` turns it into a test's values.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import procs, wire
from .sources import read_regular_file

ZYGOTE_MODULE = "rkmlearn.grading.worker.zygote"
STARTUP_SECONDS = 120.0  # starting the zygote (interpreter + numpy) on a loaded machine
REPLY_GRACE = 5.0        # for the zygote to report a worker's exit
MAX_REPLY_BYTES = 256 * 2**20  # a 5800 x 5800 float64 matrix; more would only load the judge
# Folders outside Python's own that the dynamic loader and BLAS may read.
SYSTEM_READ_DIRS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/sys/devices/system/cpu")
SYSTEM_READ_FILES = ("/etc/ld.so.cache", "/dev/urandom", "/dev/zero")
# Programs, when an exercise allows processes (exec needs to read them).
PROGRAM_DIRS = ("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin")


# --------------------------------------------------------------------------------------------
# policy: what the sandbox allows
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Policy:
    """What a submission's worker may do, and with what resources.

    Attributes
    ----------
    submission : str
        The submission file (a read-only copy the judge made).
    scratch : str
        The worker's working directory, the only folder it may write.
    allowed_imports : tuple of str
        Top-level packages besides the standard library (e.g. ``("numpy", "scipy")``).
    preload : tuple of str
        Modules the zygote imports before forking workers (shared by every test).
    processes : bool
        Whether the submission may start processes.
    timeout : float
        Seconds of submission time per test: the import and every call together.
    memory_bytes : int
        Address-space limit of the worker (``RLIMIT_AS``).
    uid, gid : int or None
        As root: the sandbox uid/gid to drop to; None keeps the current uid (without any
        capability when that is root).
    landlock, audit, namespaces : bool
        Layers that tests can switch off, to show that the next layer holds (``namespaces``:
        the zygote's network namespace of its own, and each worker's PID and mount namespaces).
    """

    submission: str
    scratch: str
    allowed_imports: tuple[str, ...] = ("numpy", "scipy")
    preload: tuple[str, ...] = ("numpy",)
    processes: bool = False
    timeout: float = 30.0
    memory_bytes: int = 2 * 2**30
    uid: int | None = None
    gid: int | None = None
    landlock: bool = True
    audit: bool = True
    namespaces: bool = True
    file_bytes: int = 64 * 2**20
    scratch_bytes: int = 128 * 2**20
    banned_modules: tuple[str, ...] = ("_testcapi", "_testinternalcapi", "_testbuffer",
                                       "_xxsubinterpreters", "_dbm", "_gdbm")

    @property
    def max_message_bytes(self) -> int:
        """The largest reply the judge reads (also bounded by the worker's memory)."""
        return min(self.memory_bytes, MAX_REPLY_BYTES)


def _package_dirs(names) -> list[str]:
    """Folders of the allowed packages and of their bundled libraries (``numpy.libs``)."""
    import importlib.util

    out = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        locations = list(spec.submodule_search_locations or [])
        if not locations and spec.origin:
            locations = [spec.origin]
        for location in locations:
            out.append(location)
            parent = Path(location).parent
            for libs in parent.glob("*.libs"):
                if libs.name.lower().replace("-", "_").startswith(name.lower()):
                    out.append(str(libs))
    return out


def _worker_config(policy: Policy, ctrl_fd: int) -> dict:
    # The standard library and its extension modules; never site-packages or dist-packages,
    # which on a system Python live under the same prefix.
    stdlib = [p for p in (os.path.dirname(os.__file__), sysconfig.get_config_var("DESTSHARED"))
              if p and os.path.isdir(p)]
    packages = _package_dirs(("numpy", *policy.allowed_imports))
    read_dirs = sorted({os.path.realpath(p) for p in stdlib + packages} | set(stdlib + packages))
    files = [p for p in packages if os.path.isfile(p)]
    read_dirs = [p for p in read_dirs if p not in files]
    return {
        "parent_pid": os.getpid(), "ctrl_fd": ctrl_fd,
        "uid": policy.uid, "gid": policy.gid,
        "submission": policy.submission, "scratch": policy.scratch,
        "allowed_imports": ["numpy", *policy.allowed_imports],
        "banned_modules": list(policy.banned_modules),
        "processes": policy.processes,
        # The audit hook's read rule is narrow (Python's own files, the allowed packages, the
        # submission); Landlock's adds what the dynamic loader and BLAS need.
        "read_dirs": read_dirs,
        "landlock_read_dirs": read_dirs + [
            p for p in SYSTEM_READ_DIRS + (PROGRAM_DIRS + (os.path.dirname(
                os.path.realpath(sys.executable)),) if policy.processes else ())
            if os.path.isdir(p)],
        # Listing (not reading) the folders that hold the packages lets the import system
        # look for them even when its cache of a folder's contents goes stale.
        "landlock_list_dirs": sorted({os.path.dirname(p.rstrip("/")) for p in packages}),
        "read_files": [policy.submission, *files,
                       *(p for p in SYSTEM_READ_FILES if os.path.exists(p))],
        "memory_bytes": int(policy.memory_bytes), "file_bytes": int(policy.file_bytes),
        "scratch_bytes": int(policy.scratch_bytes),
        "cpu_seconds": math.ceil(policy.timeout) + 1,
        "nproc": 128 if policy.uid is not None else None,
        "landlock": policy.landlock, "audit": policy.audit, "namespaces": policy.namespaces,
        "preload": ["numpy", *policy.preload], "max_message_bytes": policy.max_message_bytes,
        "grader_root": None if procs.grader_on_default_path() else procs.GRADER_ROOT,
    }


def _worker_env(policy: Policy) -> dict:
    """The zygote's whole environment: nothing of the grader's but the path to its own
    modules (a source checkout; an installed grader needs none)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": policy.scratch, "TMPDIR": policy.scratch,
           "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
           "MPLBACKEND": "Agg"}
    # One thread: a worker may not create processes or threads of its own (RLIMIT_NPROC 0),
    # and a BLAS that tried to start its pool would fail.
    for key in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[key] = "1"
    for key in ("OPENBLAS_CORETYPE",):
        if key in os.environ:
            env[key] = os.environ[key]
    return procs.with_grader_path(env)


# --------------------------------------------------------------------------------------------
# the sandboxed zygote and its workers
# --------------------------------------------------------------------------------------------
class SandboxError(RuntimeError):
    """The sandbox itself could not start: a grader or machine problem, never the student's."""


class Sandbox:
    """The sandboxed zygote, which forks one worker per test (:mod:`rkmlearn.grading.worker`)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        ctrl, child_ctrl = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        out_r, out_w = os.pipe()
        config = _worker_config(policy, child_ctrl.fileno())
        try:
            # No user site-packages, no working directory on the import path, and an
            # environment of _worker_env's alone: what -I gives, but keeping the path to the
            # grader's own modules when they come from a source checkout.
            self.proc = subprocess.Popen(
                [sys.executable, "-s", "-B", *procs.NO_CWD_ON_PATH, "-m", ZYGOTE_MODULE,
                 json.dumps(config)],
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w, env=_worker_env(policy),
                cwd=policy.scratch, pass_fds=(child_ctrl.fileno(),), start_new_session=True)
        finally:
            os.close(out_w)
            child_ctrl.close()
        self.ctrl = ctrl
        self.drain = procs.OutputDrain(out_r)
        reply = self.receive(time.monotonic() + max(STARTUP_SECONDS, policy.timeout))
        if reply is None or reply.get("op") != "ready":
            self.close()
            raise SandboxError("the sandbox did not start: "
                               + (self.drain.tail()[-2000:] or f"exit status {self.proc.poll()}"))
        self.layers = {str(k): str(v)[:200] for k, v in dict(reply.get("layers", {})).items()}

    def receive(self, deadline: float) -> dict | None:
        """The zygote's next control message, or None when it is gone or the deadline passed."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.ctrl.settimeout(min(remaining, 0.2))
            try:
                data = self.ctrl.recv(4096)
            except socket.timeout:
                if self.proc.poll() is not None:
                    return None
                continue
            except OSError:
                return None
            if not data:
                return None
            try:
                message = json.loads(data)
            except ValueError:
                return None
            return message if isinstance(message, dict) else None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def worker(self) -> Worker:
        """Fork a fresh worker (it imports the submission and says so on its socket)."""
        parent_end, child_end = wire.socketpair()
        try:
            socket.send_fds(self.ctrl, [b'{"op": "fork"}'], [child_end.fileno()])
        except OSError as exc:
            parent_end.close()
            raise SandboxError(f"the sandbox is gone ({exc})") from None
        finally:
            child_end.close()
        reply = self.receive(time.monotonic() + STARTUP_SECONDS)
        if reply is None or reply.get("op") != "forked" or type(reply.get("pid")) is not int:
            parent_end.close()
            # Why, from the sandbox's report channel: never from the shared output, where a
            # submission's prints could imitate the sandbox's lines.
            why = reply.get("why") if reply is not None else None
            raise SandboxError("the sandbox did not start a worker"
                               + (f" ({why[:300]})" if isinstance(why, str) else ""))
        init = reply.get("init")
        return Worker(self, reply["pid"], parent_end, init if type(init) is int else None)

    def close(self) -> None:
        """Kill the zygote and its process group; stop reading its output."""
        for closer in (self.ctrl.close,):
            closer()
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.kill()
        self.proc.wait()
        self.drain.stop()


class Worker:
    """One forked worker: import the submission, then answer calls.

    ``pid`` is the worker's (its CPU time is read from ``/proc/PID/stat``), ``init`` the first
    process of its PID namespace: killing that kills the worker and everything it started.
    """

    def __init__(self, sandbox: Sandbox, pid: int, sock: socket.socket,
                 init: int | None = None) -> None:
        self.sandbox, self.pid, self.init, self.sock = sandbox, pid, init, sock
        self.status: int | None = None
        self.finished = False
        self.pidfd, self.init_pidfd = _pidfd(pid), _pidfd(init)

    def alive(self) -> bool:
        if self.finished:
            return False
        return procs.cpu_seconds(self.pid) is not None

    def wait_exit(self, timeout: float = REPLY_GRACE) -> int | None:
        """The worker's wait status, as the zygote reports it (killing it if need be)."""
        if not self.finished:
            message = self.sandbox.receive(time.monotonic() + timeout)
            if message is None:
                self._kill()
                message = self.sandbox.receive(time.monotonic() + timeout)
            if message is not None and message.get("op") == "exited":
                status = message.get("status")
                self.status = status if type(status) is int else None
            self.finished = True
        return self.status

    def _kill(self) -> None:
        if self.init is not None:
            procs.pidfd_kill(self.init_pidfd, self.init)
        procs.pidfd_kill(self.pidfd, self.pid)

    def kill(self) -> int | None:
        if not self.finished:
            self._kill()
        return self.wait_exit()

    def close(self) -> None:
        """Ask the worker to end; kill it if it does not."""
        if not self.finished:
            try:
                self.sock.settimeout(1.0)
                wire.send(self.sock, "bye")
            except OSError:
                pass
            self.sock.close()
            message = self.sandbox.receive(time.monotonic() + 1.0)
            if message is not None and message.get("op") == "exited":
                status = message.get("status")
                self.status = status if type(status) is int else None
                self.finished = True
            else:
                self.kill()
        else:
            self.sock.close()
        for fd in (self.pidfd, self.init_pidfd):
            if fd is not None:
                os.close(fd)
        self.pidfd = self.init_pidfd = None


def _pidfd(pid: int | None) -> int | None:
    """A pidfd for ``pid`` (no PID-reuse race when killing it), or None."""
    if pid is None or not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


# --------------------------------------------------------------------------------------------
# --------------------------------------------------------------------------------------------
# the files a worker sees
# --------------------------------------------------------------------------------------------
class SandboxDirs:
    """The only files of the grading a worker can reach: a read-only copy of the submission
    and scratch folders (one per runner), under a fresh folder that others may traverse but
    not list.
    """

    def __init__(self, submission, uid: int | None) -> None:
        self.uid = uid
        self.base = Path(tempfile.mkdtemp(prefix="rkmlearn-sandbox-"))
        os.chmod(self.base, 0o711)
        folder = self.base / "submission"
        folder.mkdir(mode=0o755)
        os.chmod(folder, 0o755)
        self.submission = folder / Path(submission).name
        self.submission.write_bytes(read_regular_file(submission))
        os.chmod(self.submission, 0o444)

    def scratch(self, name: str, uid: int | None = None) -> str:
        """A new scratch folder, owned by ``uid`` (default: the uid given at construction)."""
        owner = self.uid if uid is None else uid
        path = self.base / name
        path.mkdir(mode=0o700)
        if owner is not None:
            os.chown(path, owner, owner)
        return str(path)

    @staticmethod
    def wipe(scratch: str) -> None:
        """Empty a scratch folder between tests (after its processes are gone)."""
        for entry in Path(scratch).iterdir():
            with contextlib.suppress(OSError):
                procs.remove_tree(entry)

    def cleanup(self) -> None:
        procs.remove_tree(self.base)
