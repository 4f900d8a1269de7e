"""The judge's handle on the sandbox: start the zygote, fork a worker per test, call it.

The tests' ``submission`` fixture is a :class:`Submission`: ``submission.rbf_gram(X, sigma=2)``
encodes the arguments (:mod:`rkmlearn.grading.wire`), sends them to the test's worker, waits
with the judge's own clock, and turns the reply back into plain data, an exception of the same
builtin kind (``ValueError`` stays a ``ValueError`` for ``pytest.raises``) or a
:class:`SubmissionFailure`. The worker never sees the test's code, its expected values or
pytest, and nothing it sends is used before it has been validated.

A test's submission time (import plus every call) is limited by ``timeout``; a call that
overruns it is killed with its worker, and the test fails. The function works on its own copies
of the arguments: what it does to them never reaches the test's arrays (expected values computed
from the inputs after a call stay right), and ``submission.last_call.modified`` says which
arguments it changed in place, for "does not modify its inputs" tests.
"""
from __future__ import annotations

import builtins
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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import procs, wire
from .exercise import read_regular_file

HERE = Path(__file__).resolve().parent
# The worker program: read here, handed to the sandboxed interpreter on its command line.
LOADER = ("import sys\n"
          "namespace = {'__name__': 'rkmlearn_grading_worker'}\n"
          "exec(compile(sys.argv[1], '<rkmlearn.grading._worker>', 'exec'), namespace)\n"
          "namespace['main'](sys.argv[2], sys.argv[3])\n")
STARTUP_SECONDS = 120.0  # starting the zygote (interpreter + numpy) on a loaded machine
REPLY_GRACE = 5.0        # for the zygote to report a worker's exit
MAX_REPLY_BYTES = 256 * 2**20  # a 5800 x 5800 float64 matrix; more would only load the judge
# Folders outside Python's own that the dynamic loader and BLAS may read.
SYSTEM_READ_DIRS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/sys/devices/system/cpu")
SYSTEM_READ_FILES = ("/etc/ld.so.cache", "/dev/urandom", "/dev/zero")
# Programs, when an exercise allows processes (exec needs to read them).
PROGRAM_DIRS = ("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin")


# --------------------------------------------------------------------------------------------
# failures: BaseException, so that `pytest.raises(ValueError)` or `except Exception` in a
# test cannot swallow a time-out or a crash
# --------------------------------------------------------------------------------------------
class SubmissionFailure(BaseException):
    """The submission cannot be graded further in this test (time-out, crash, rule, ...)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else type(self).__name__


class SubmissionTimeout(SubmissionFailure):
    """The submission used up its time for the test."""


class SubmissionDied(SubmissionFailure):
    """The worker process ended during a call (crash, ``os._exit``, a resource limit)."""


class SubmissionExit(SubmissionFailure):
    """The submission called ``sys.exit``."""


class ImportFailure(SubmissionFailure):
    """The submission could not be imported."""


class RuleViolation(SubmissionFailure):
    """The submission broke one of the exercise's rules (files, processes, network, ...)."""


class BadReturn(SubmissionFailure):
    """The submission returned something that cannot cross the boundary, or sent garbage."""


class RaisedBySubmission(Exception):
    """Mixed into the judge-side copy of an exception the submission raised."""

    remote_type = "Exception"
    where = ""


_REMOTE_CLASSES: dict[tuple[str, type], type] = {}


def _remote_exception(error: dict) -> BaseException:
    """A judge-side exception of the nearest builtin kind, carrying the worker's message."""
    name = _text(error.get("type"), 100) or "Exception"
    if not all(part.isidentifier() for part in name.split(".")):
        name = "Exception"  # a forged name (a NUL, spaces, escapes) is not a class name
    message = _text(error.get("message"), wire.MAX_STR)
    bases = [getattr(builtins, n, None) for n in error.get("builtins", [])
             if isinstance(n, str)]
    bases = [b for b in bases if isinstance(b, type) and issubclass(b, Exception)]
    for base in bases + [Exception]:
        key = (name, base)
        if key not in _REMOTE_CLASSES:
            _REMOTE_CLASSES[key] = type(name, (base, RaisedBySubmission), {
                "__module__": "submission", "__str__": lambda self: self.args[0]})
        try:
            exc = _REMOTE_CLASSES[key](message)
        except TypeError:  # a builtin whose constructor wants more (UnicodeDecodeError)
            continue
        exc.remote_type, exc.where = name, _text(error.get("where"), 300)
        return exc
    raise AssertionError("unreachable")


def _text(value, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def describe_exit(status: int | None, memory_bytes: int, cpu_seconds: float) -> str:
    """Words for a worker's wait status."""
    if status is None:
        return "the submission's process disappeared"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU or sig == signal.SIGKILL:
            hint = (f" (the CPU-time limit is {cpu_seconds:g} s per test; an endless loop?)"
                    if sig == signal.SIGXCPU else "")
            return f"the submission's process was killed by {procs.signal_name(sig)}{hint}"
        return f"the submission's process crashed with {procs.signal_name(sig)}"
    code = os.WEXITSTATUS(status)
    return (f"the submission's process exited with code {code}; does it call os._exit()? "
            f"(memory limit: {memory_bytes // 2**20} MiB)")


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
        "cpu_seconds": math.ceil(policy.timeout) + 1,
        "nproc": 128 if policy.uid is not None else None,
        "landlock": policy.landlock, "audit": policy.audit, "namespaces": policy.namespaces,
        "preload": ["numpy", *policy.preload], "max_message_bytes": policy.max_message_bytes,
    }


def _worker_env(policy: Policy) -> dict:
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
    return env


# --------------------------------------------------------------------------------------------
# the zygote
# --------------------------------------------------------------------------------------------
class SandboxError(RuntimeError):
    """The sandbox itself could not start: a grader or machine problem, never the student's."""


class Zygote:
    """The sandboxed process that forks one worker per test (see :mod:`._worker`)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        ctrl, child_ctrl = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        out_r, out_w = os.pipe()
        config = _worker_config(policy, child_ctrl.fileno())
        sources = (HERE / "_worker.py").read_text(encoding="utf-8")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-B", "-c", LOADER, sources, json.dumps(config),
                 (HERE / "wire.py").read_text(encoding="utf-8")],
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w, env=_worker_env(policy),
                cwd=policy.scratch, pass_fds=(child_ctrl.fileno(),), start_new_session=True)
        finally:
            os.close(out_w)
            child_ctrl.close()
        self.ctrl = ctrl
        self.drain = procs.OutputDrain(out_r)
        reply = self._receive(time.monotonic() + max(STARTUP_SECONDS, policy.timeout))
        if reply is None or reply.get("op") != "ready":
            self.close()
            raise SandboxError("the sandbox did not start: "
                               + (self.drain.tail()[-2000:] or f"exit status {self.proc.poll()}"))
        self.layers = {str(k): str(v)[:200] for k, v in dict(reply.get("layers", {})).items()}

    def _receive(self, deadline: float) -> dict | None:
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

    def fork(self) -> Worker:
        parent_end, child_end = wire.socketpair()
        try:
            socket.send_fds(self.ctrl, [b'{"op": "fork"}'], [child_end.fileno()])
        except OSError as exc:
            parent_end.close()
            raise SandboxError(f"the sandbox is gone ({exc})") from None
        finally:
            child_end.close()
        reply = self._receive(time.monotonic() + STARTUP_SECONDS)
        if reply is None or reply.get("op") != "forked" or type(reply.get("pid")) is not int:
            parent_end.close()
            # Only the sandbox's own lines: the output also holds what submissions printed.
            said = [line for line in self.drain.tail().splitlines() if line.startswith("grader: ")]
            raise SandboxError("the sandbox did not start a worker"
                               + (f" ({said[-1][8:300]})" if said else ""))
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

    def __init__(self, zygote: Zygote, pid: int, sock: socket.socket,
                 init: int | None = None) -> None:
        self.zygote, self.pid, self.init, self.sock = zygote, pid, init, sock
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
            message = self.zygote._receive(time.monotonic() + timeout)
            if message is None:
                self._kill()
                message = self.zygote._receive(time.monotonic() + timeout)
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
            message = self.zygote._receive(time.monotonic() + 1.0)
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
# the proxy the tests see
# --------------------------------------------------------------------------------------------
@dataclass
class CallStats:
    """Judge-side measurements of one call: wall-clock, the worker's CPU seconds (its waited-for
    children included), and the arguments the function changed in place, as paths into
    ``(args, kwargs)``: ``(0, 2)`` is the third positional argument, ``(1, "Y")`` keyword Y."""

    name: str
    wall_seconds: float
    cpu_seconds: float | None
    modified: tuple = ()


@dataclass
class Session:
    """One test's worker and its time budget."""

    zygote: Zygote
    policy: Policy
    functions: tuple[str, ...] = ()
    declared: tuple[str, ...] = ()
    remaining: float = 0.0
    worker: Worker | None = None
    failure: SubmissionFailure | None = None
    last_call: CallStats | None = None
    calls: list = field(default_factory=list)

    def start(self) -> None:
        """Fork the test's worker and import the submission (within the test's budget)."""
        self.remaining = self.policy.timeout
        start = time.monotonic()
        self.worker = self.zygote.fork()
        kind, body, _ = self._receive(time.monotonic() + self.remaining, "importing it")
        self.remaining -= time.monotonic() - start
        if kind == "import_error":
            error = body.get("error") if isinstance(body.get("error"), dict) else {}
            self._fail(ImportFailure(_import_message(error, body)))
        if kind != "ready" or not isinstance(body.get("functions"), list):
            self._fail(BadReturn(f"the submission's process answered {kind!r} to the import"))
        self.functions = tuple(f for f in body["functions"] if isinstance(f, str))

    def _fail(self, failure: SubmissionFailure):
        __tracebackhide__ = True  # pytest: the grader's frames say nothing about the test
        if self.failure is None:
            self.failure = failure
        raise self.failure

    def _receive(self, deadline: float, doing: str):
        __tracebackhide__ = True
        worker = self.worker
        try:
            kind, body, blobs = wire.recv(worker.sock, deadline, self.policy.max_message_bytes,
                                          alive=worker.alive)
        except wire.ChannelTimeout:
            worker.kill()
            self._fail(SubmissionTimeout(
                f"timed out {doing}: the submission has {self.policy.timeout:g} s per test "
                "(import and calls together) and was stopped"))
        except wire.ChannelClosed:
            status = worker.wait_exit()
            self._fail(SubmissionDied(describe_exit(status, self.policy.memory_bytes,
                                                    self.policy.timeout + 1)
                                      + f" while {doing}" + _crash_hint(self.zygote)))
        except wire.ProtocolError as exc:
            worker.kill()
            self._fail(BadReturn(f"the submission's process sent malformed data while {doing}: "
                                 f"{exc}"))
        if not isinstance(body, dict):
            worker.kill()
            self._fail(BadReturn(f"the submission's process sent malformed data while {doing}"))
        violations = [v for v in body.get("violations", []) if isinstance(v, str)]
        if violations:
            self._fail(RuleViolation("grading rules: " + _text(violations[0], 1000)))
        return kind, body, blobs

    def call(self, name: str, args: tuple, kwargs: dict):
        __tracebackhide__ = True
        if self.failure is not None:
            raise self.failure
        try:
            tree, blobs = wire.encode((list(args), dict(kwargs)))
        except wire.EncodeError as exc:
            raise TypeError(f"instructor: the test passes {name}() an argument that cannot be "
                            f"sent to the submission: {exc}") from None
        worker = self.worker
        doing = f"in {name}()"
        if wire.pending(worker.sock):
            # Nothing was asked yet: a reply sent ahead of time is forged, never used.
            worker.kill()
            self._fail(BadReturn(f"the submission's process sent data before {name}() was "
                                 "called; it is not a reply and was rejected"))
        cpu_before = procs.cpu_seconds(worker.pid)
        start = time.monotonic()
        deadline = start + self.remaining
        try:
            worker.sock.settimeout(max(self.remaining, 0.001))
            wire.send(worker.sock, "call", {"name": name, "args": tree}, blobs)
        except (TimeoutError, socket.timeout):
            worker.kill()
            self._fail(SubmissionTimeout(f"timed out {doing}: the submission did not read its "
                                         "arguments"))
        except OSError:
            status = worker.wait_exit()
            self._fail(SubmissionDied(describe_exit(status, self.policy.memory_bytes,
                                                    self.policy.timeout + 1) + f" {doing}"))
        kind, body, blobs = self._receive(deadline, doing)
        cpu_after = procs.cpu_seconds(worker.pid)
        wall = time.monotonic() - start
        self.remaining -= wall
        self.last_call = CallStats(name, wall, None if cpu_before is None or cpu_after is None
                                   else cpu_after - cpu_before)
        self.calls.append(self.last_call)
        return self._reply(name, kind, body, blobs, (args, kwargs))

    def _reply(self, name, kind, body, blobs, arguments):
        __tracebackhide__ = True
        worker = self.worker
        if kind == "raised":
            error = body.get("error") if isinstance(body.get("error"), dict) else {}
            if error.get("type") == "SystemExit":
                self._fail(SubmissionExit(
                    f"the submission called sys.exit({_text(str(error.get('exit_code')), 100)}) "
                    f"in {name}(); a graded function must return"))
            if "Exception" not in error.get("builtins", []):
                self._fail(SubmissionDied(f"{name}() raised {_text(error.get('type'), 100)}: "
                                          f"{_text(error.get('message'), 1000)}"))
            raise _remote_exception(error)
        if kind == "bad_return":
            error = body.get("error") if isinstance(body.get("error"), dict) else {}
            self._fail(BadReturn(f"{name}() returned something that cannot be graded: "
                                 f"{_text(error.get('message'), 1000)}"))
        if kind != "returned":
            worker.kill()
            self._fail(BadReturn(f"the submission's process answered {kind!r} to a call"))
        try:
            reply = wire.decode(body.get("tree"), blobs)
            if not isinstance(reply, dict) or set(reply) != {"value", "changed"} \
                    or not isinstance(reply["changed"], list):
                raise wire.ProtocolError("not a reply")
            self.last_call.modified = _modified(arguments, reply["changed"])
        except (wire.ProtocolError, ValueError, TypeError, OverflowError, MemoryError) as exc:
            worker.kill()
            self._fail(BadReturn(f"{name}() sent malformed data: {_text(str(exc), 300)}"))
        return reply["value"]

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def _import_message(error: dict, body: dict) -> str:
    kind = _text(error.get("type"), 100)
    where = _text(error.get("where"), 300)
    if kind == "SystemExit":
        return (f"submission failed to import: it calls sys.exit"
                f"({_text(str(error.get('exit_code')), 100)}) at import time; remove that call")
    line = f" (line {where.rsplit(':', 1)[-1]})" if where else ""
    return f"submission failed to import: {kind}: {_text(error.get('message'), 1000)}{line}"


def _crash_hint(zygote: Zygote) -> str:
    for line in zygote.drain.tail().splitlines():
        if line.startswith("Fatal Python error"):
            return f" ({line.strip()[:200]})"
    return ""


def _modified(arguments, changed: list) -> tuple:
    """The argument paths the submission changed in place, checked against the arguments.

    Nothing is written back: the test's arrays stay as the test made them.
    """
    paths = []
    for item in changed:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], list)):
            raise wire.ProtocolError("malformed list of changed arguments")
        target = arguments
        for step in item[0]:
            if type(step) not in (int, str):
                raise wire.ProtocolError("malformed argument path")
            try:
                target = target[step]
            except (KeyError, IndexError, TypeError):
                raise wire.ProtocolError("an argument path that does not exist") from None
        if not isinstance(target, np.ndarray):
            raise wire.ProtocolError("a changed argument that is not an array")
        paths.append(tuple(item[0]))
    return tuple(paths)


class Submission:
    """The ``submission`` fixture: attribute calls are calls into the test's worker.

    ``submission.rbf_gram(X)`` returns plain data or raises; ``submission.last_call`` holds the
    judge's measurements of the last call (:class:`CallStats`).
    """

    def __init__(self, session: Session) -> None:
        object.__setattr__(self, "_session", session)

    @property
    def last_call(self) -> CallStats | None:
        return self._session.last_call

    @property
    def calls(self) -> tuple:
        """Every call of this test so far (:class:`CallStats`), warm-up calls included."""
        return tuple(self._session.calls)

    @property
    def cpu_seconds(self) -> float | None:
        """CPU seconds of ALL the calls of this test: slow work hidden in a warm-up counts."""
        used = [c.cpu_seconds for c in self._session.calls]
        return None if not used or None in used else math.fsum(used)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        session = self._session
        if session.declared and name not in session.declared:
            raise AttributeError(f"instructor: {name!r} is not among the functions this "
                                 f"exercise declares ({', '.join(session.declared)})")
        if name not in session.functions:
            raise RuleViolation(f"the submission does not define {name}(); keep the function "
                                "names of starter.py")

        def call(*args, **kwargs):
            __tracebackhide__ = True
            return session.call(name, args, kwargs)

        call.__name__ = name
        return call

    def __setattr__(self, name, value):
        raise AttributeError("the submission proxy is read-only")

    def __repr__(self) -> str:
        return f"<submission {os.path.basename(self._session.policy.submission)} (sandboxed)>"


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

    def scratch(self, name: str) -> str:
        path = self.base / name
        path.mkdir(mode=0o700)
        if self.uid is not None:
            os.chown(path, self.uid, self.uid)
        return str(path)

    @staticmethod
    def wipe(scratch: str) -> None:
        """Empty a scratch folder between tests (after its processes are gone)."""
        for entry in Path(scratch).iterdir():
            with contextlib.suppress(OSError):
                procs.remove_tree(entry)

    def cleanup(self) -> None:
        procs.remove_tree(self.base)
