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


def serve(sock, cfg, wire, violations):
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

