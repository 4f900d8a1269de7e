"""What each test of an exercise does, read from its source (parsed, never imported).

For a test ``file::name``: the submission functions it calls (``submission.NAME``, directly or
through module-level helpers of its file) and whether it is a bad-input test (``pytest.raises``
in its code). :func:`rkmlearn.grading.check` runs the tests of one function with it; the judge
voids the points of bad-input tests whose function fails with valid input.
"""
from __future__ import annotations

import ast
from pathlib import Path

from .sources import parse_python

__all__ = ["base_id", "tests_calling", "test_kinds"]


def base_id(nodeid: str) -> str:
    """``file::name`` of a test id, without its class and parameters."""
    file_part, _, rest = nodeid.partition("::")
    return file_part + "::" + rest.split("[", 1)[0].split("::")[-1]


def tests_calling(folder: Path, function: str, kinds: dict | None = None) -> set[str]:
    """``file::name`` of the test functions under ``folder/tests`` that call
    ``submission.FUNCTION`` (directly or through module-level helpers of their file)."""
    kinds = test_kinds(folder) if kinds is None else kinds
    return {test for test, (functions, _) in kinds.items() if function in functions}


def _submission_attributes(tree) -> dict[str, set[str]]:
    """For each function of a parsed test file, the ``submission.NAME`` attributes it uses,
    through the file's module-level helpers too (transitively)."""
    direct: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            attrs, names = set(), set()
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                        and sub.value.id == "submission":
                    attrs.add(sub.attr)
                elif isinstance(sub, ast.Name):
                    names.add(sub.id)
            direct[node.name], calls[node.name] = attrs, names
    closed = {}
    for name in direct:
        seen, todo, attrs = {name}, [name], set()
        while todo:
            current = todo.pop()
            attrs |= direct.get(current, set())
            for callee in calls.get(current, set()) & direct.keys():
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        closed[name] = attrs
    return closed


def test_kinds(folder: Path) -> dict[str, tuple[frozenset, bool]]:
    """``file::name`` -> (the submission functions the test calls, whether it is a bad-input
    test, i.e. one that expects the submission to raise: ``pytest.raises`` in its code).
    Each test file is parsed once, never imported."""
    kinds = {}
    for path in sorted((folder / "tests").rglob("test_*.py")):
        rel = path.relative_to(folder).as_posix()
        try:
            tree = parse_python(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        attrs = _submission_attributes(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and node.name.startswith("test"):
                raises = any(isinstance(n, ast.Attribute) and n.attr == "raises"
                             for n in ast.walk(node))
                kinds[f"{rel}::{node.name}"] = (frozenset(attrs.get(node.name, ())), raises)
    return kinds
