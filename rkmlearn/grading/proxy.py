"""The ``submission`` the tests see: a proxy whose calls run in the test's sandboxed worker.

``submission.rbf_gram(X, sigma=2)`` encodes the arguments (:mod:`rkmlearn.grading.wire`), sends
them to the test's worker, waits with the judge's own clock, and turns the reply back into plain
data, an exception of the same builtin kind (``ValueError`` stays a ``ValueError`` for
``pytest.raises``) or a :class:`SubmissionFailure`. The worker never sees the test's code, its
expected values or pytest, and nothing it sends is used before it has been validated.

A test's submission time (import plus every call) is limited by ``timeout``; a call that
overruns it is killed with its worker, and the test fails. The function works on its own copies
of the arguments: what it does to them never reaches the test's arrays (expected values computed
from the inputs after a call stay right), and ``submission.last_call.modified`` says which
arguments it changed in place, for "does not modify its inputs" tests.
"""
from __future__ import annotations

import builtins
import os
import signal
import socket
import time
from dataclasses import dataclass, field

import numpy as np

from . import procs, wire
from .sandbox import Policy, Sandbox

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

    sandbox: Sandbox
    policy: Policy
    functions: tuple[str, ...] = ()
    declared: tuple[str, ...] = ()
    remaining: float = 0.0
    worker: Worker | None = None
    failure: SubmissionFailure | None = None
    last_call: CallStats | None = None
    calls: list = field(default_factory=list)
    cpu_total: float | None = None  # the worker's CPU seconds since its fork, at the last call

    def start(self) -> None:
        """Fork the test's worker and import the submission (within the test's budget)."""
        self.remaining = self.policy.timeout
        start = time.monotonic()
        self.worker = self.sandbox.worker()
        kind, body, _ = self._receive(time.monotonic() + self.remaining, "importing it")
        self.remaining -= time.monotonic() - start
        if kind == "import_error":
            error = body.get("error") if isinstance(body.get("error"), dict) else {}
            self._fail(ImportFailure(_import_message(error, body)))
        if kind != "ready" or not isinstance(body.get("functions"), list):
            self._fail(BadReturn(f"the submission's process answered {kind!r} to the import"))
        self.functions = tuple(f for f in body["functions"] if isinstance(f, str))
        self.cpu_total = procs.cpu_seconds(self.worker.pid)

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
                                      + f" while {doing}" + _crash_hint(self.sandbox)))
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
            tree, blobs_sent = wire.encode((list(args), dict(kwargs)))
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
            wire.send(worker.sock, "call", {"name": name, "args": tree}, blobs_sent)
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
        self.cpu_total = cpu_after
        return self._reply(name, kind, body, blobs, wire.decode(tree, blobs_sent))

    def _reply(self, name, kind, body, blobs, sent):
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
            reply = wire.decode(body.get("tree"), blobs, self.policy.max_message_bytes)
            if not isinstance(reply, dict) or set(reply) != {"value", "after"} \
                    or not isinstance(reply["after"], list):
                raise wire.ProtocolError("not a reply")
            self.last_call.modified = _modified(sent, reply["after"])
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


def _crash_hint(sandbox: Sandbox) -> str:
    for line in sandbox.drain.tail().splitlines():
        if line.startswith("Fatal Python error"):
            return f" ({line.strip()[:200]})"
    return ""


def _modified(sent, after: list) -> tuple:
    """The paths into ``(args, kwargs)`` of the arrays the call changed in place: what the
    judge sent, compared here with what the worker says the arrays became. The worker's own
    comparison is never used, and nothing is written back: the test's arrays stay as the test
    made them."""
    sent = list(wire.array_leaves(sent))
    if len(after) != len(sent):
        raise wire.ProtocolError("the arguments sent back are not the ones sent")
    paths = []
    for (path, before), now in zip(sent, after):
        if not isinstance(now, np.ndarray):
            raise wire.ProtocolError("an argument sent back that is not an array")
        if now.shape != before.shape or now.dtype != before.dtype \
                or not np.array_equal(now, before, equal_nan=before.dtype.kind in "fc"):
            paths.append(path)
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
        """CPU seconds of the test's worker over its whole life so far: its import (work done
        at import and answered from a cache counts) and ALL the calls, warm-ups included."""
        return self._session.cpu_total

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


