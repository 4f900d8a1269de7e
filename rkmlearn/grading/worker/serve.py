"""The worker's work: import the submission, then answer the judge's calls until ``bye``.

What it sends back is untrusted by the judge, which validates every byte
(:mod:`rkmlearn.grading.wire`).
"""
import os
import sys

from .audit import ACTIVATE_EVENT

MAX_MESSAGE = 2000


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


def serve(sock, cfg, wire, violations):
    """Import the submission, then answer calls: the value, and every array argument as it is
    after the call, so that the judge, not this process, says what the call changed.

    What the loop uses is bound before the submission runs: rebinding ``wire.send`` or
    ``numpy.array_equal`` from student code changes nothing here (and the worker's word on
    its arguments is never a verdict: the judge compares them with what it sent).
    """
    path, limit = cfg["submission"], cfg["max_message_bytes"]
    send, recv, encode, decode = wire.send, wire.recv, wire.encode, wire.decode
    leaves_of, describe, _tuple, _list = wire.array_leaves, _describe, tuple, list
    with open(path, "rb") as fh:  # read before the rules apply; no bytecode cache is consulted
        source = fh.read()
    module = type(sys)("submission")
    module.__file__ = path
    sys.modules["submission"] = module
    sys.audit(ACTIVATE_EVENT)
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    except BaseException as exc:
        send(sock, "import_error", {"error": describe(exc, path), "violations": violations[:5]})
        return
    functions = sorted(k for k, v in vars(module).items() if callable(v) and not k.startswith("_"))
    send(sock, "ready", {"functions": functions[:1000], "violations": violations[:5]})
    del violations[:]
    while True:
        kind, body, blobs = recv(sock, float("inf"), limit)
        if kind != "call":
            return
        try:
            args, kwargs = decode(body["args"], blobs)
            target = getattr(module, body["name"])
        except BaseException as exc:
            send(sock, "raised", {"error": describe(exc, path), "violations": []})
            continue
        # A tuple: a frame-walking submission can change the arrays (which the judge then
        # sees), not which arrays are sent back.
        leaves = _tuple(leaf for _, leaf in leaves_of((args, kwargs)))
        try:
            value = target(*args, **kwargs)
        except BaseException as exc:
            send(sock, "raised", {"error": describe(exc, path), "violations": violations[:5]})
            del violations[:]
            continue
        try:
            tree, out = encode({"value": value, "after": _list(leaves)})
        except BaseException as exc:
            send(sock, "bad_return", {"error": describe(exc, path), "violations": violations[:5]})
        else:
            send(sock, "returned", {"tree": tree, "violations": violations[:5]}, out)
        del violations[:]
