"""Failure messages written for students: whole, located in their notebook, free of pytest's
internals and of object reprs.

A test fails with an assertion (numpy's ``assert_allclose``, a plain ``assert``) or with what the
submission raised. The runner (:mod:`rkmlearn.grading.runner`) turns each into one message with
:func:`assertion_message`; the judge then rewrites locations in the graded module (``dave.py:59``)
into the notebook's cells with :func:`locate` and explains missing functions that a dropped cell
defined with :func:`explain_missing`. Standard library only: runners and the judge import it.
"""
from __future__ import annotations

import re

__all__ = ["assertion_message", "locate", "explain_missing", "TIMED_OUT"]

_OBJECT_REPR = re.compile(r"<(?:built-in )?(?:function|method|bound method|module|class)?\s*"
                          r"([\w.]+)(?: object)? at 0x[0-9a-fA-F]+>")
_SHAPES = re.compile(r"\(shapes (\([\d, ]*\)), (\([\d, ]*\)) mismatch\)")
_INDEX = re.compile(r"^\s*(\[[\d, ]*\]): (.*) \(ACTUAL\), (.*) \(DESIRED\)$")
# "timed out in rbf_gram(): ..." (rkmlearn.grading.proxy): the function whose other tests then
# fail at once instead of each waiting for its own time-out.
TIMED_OUT = re.compile(r"^timed out in ([A-Za-z_]\w*)\(\)")


_SWAPPED = ("; rows and columns are the other way round: the arguments look swapped (rows "
            "follow the first argument), or the result is transposed")
_PAIR = re.compile(r"\((\d+), (\d+)\)")


def _swap_hint(message: str) -> str:
    """``message`` with a hint when it names a shape and its transpose, e.g. (40, 25), (25, 40)."""
    pairs = {(int(a), int(b)) for a, b in _PAIR.findall(message)}
    if any(a != b and (b, a) in pairs for a, b in pairs) and _SWAPPED not in message:
        return message + _SWAPPED
    return message


def _shape_text(actual: str, desired: str) -> str:
    return f"returned shape {actual}, expected {desired}"


def _numpy_message(lines: list[str]) -> str:
    """numpy.testing's report without the ACTUAL/DESIRED array reprs."""
    out, mismatches, skipping = [], [], False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(("ACTUAL:", "DESIRED:", "x:", "y:")):
            skipping = True  # the array repr and its continuation lines
            continue
        if skipping and line.startswith((" ", "\t")):
            continue
        skipping = False
        match = _INDEX.match(line)
        if match:
            if len(mismatches) < 3:
                mismatches.append(f"at {match.group(1)} returned {match.group(2)}, expected "
                                  f"{match.group(3)}")
            continue
        if not stripped or stripped.startswith(("First ", "Mismatch at indices")):
            continue
        shapes = _SHAPES.search(stripped)
        if shapes:
            out.append(_shape_text(shapes.group(1), shapes.group(2)))
            continue
        stripped = stripped.replace("Max absolute difference among violations",
                                    "largest absolute difference")
        stripped = stripped.replace("Max relative difference among violations",
                                    "largest relative difference")
        out.append(stripped)
    if mismatches:
        out.append("; ".join(mismatches))
    return "; ".join(out)


def assertion_message(text: str, statement: str = "") -> str:
    """A student's message for a failed assertion.

    ``text`` is ``str()`` of the AssertionError (pytest's rewritten form or numpy's), and
    ``statement`` the source of the failing ``assert`` line, used when the test gave no message.
    """
    text = str(text)
    # pytest's rewriting appends "assert <explanation>" (reprs of every operand) to the message.
    head, sep, _ = text.partition("\nassert ")
    if not sep and text.startswith("assert "):
        head = ""
    if "Not equal to tolerance" in head or "Arrays are not equal" in head \
            or "ACTUAL:" in head:
        message = _numpy_message(head.splitlines())
    else:
        message = " ".join(head.split())
    if not message:
        statement = " ".join(statement.split())
        message = (f"the check `{statement}` does not hold" if statement
                   else "an assertion of the test failed")
    return _swap_hint(_OBJECT_REPR.sub(lambda m: m.group(1).rsplit(".", 1)[-1], message))


def locate(message: str, module_name: str, where) -> str:
    """``message`` with ``module_name:LINE`` and ``(line LINE)`` of the graded module replaced by
    the notebook cell and line that ``where(LINE)`` names (None: left as it is)."""
    def cell(match: re.Match) -> str:
        found = where(int(match.group(2)))
        return match.group(0) if found is None else match.group(1) + found

    message = re.sub(r"(raised at )" + re.escape(module_name) + r":(\d+)", cell, message)
    return re.sub(r"(\()line (\d+)(?=\))",
                  lambda m: (("(" + where(int(m.group(2)))) if where(int(m.group(2)))
                             else m.group(0)), message)


def explain_missing(message: str, dropped: dict) -> str:
    """A "does not define NAME()" message, explained when a dropped cell defined NAME.

    ``dropped`` maps a function name to the note on the cell that defined it.
    """
    match = re.search(r"does not define ([A-Za-z_]\w*)\(\)", message)
    if match and match.group(1) in dropped:
        return f"{match.group(1)}() is missing: {dropped[match.group(1)]}"
    return message
