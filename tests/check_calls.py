"""Count the ``check_*`` calls left in the bodies of models and solvers (issue 32: checks belong to
the declared rules of a public entry point, not to the work).

``python tests/check_calls.py [ROOT]`` prints, per file of ``ROOT/rkmlearn/models`` and
``ROOT/rkmlearn/solvers``, the calls of a function named ``check_*`` made inside a function body,
except inside a function that is itself a check (its name starts with ``check_`` or ``_check``: a
rule a public method declares, e.g. ``checked_by("_check_input")``) and in decorators (the
declared rules). ROOT defaults to this checkout.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def _is_check(name):
    return name.startswith(("check_", "_check"))


def body_checks(path):
    """Lines of the ``check_*`` calls in the work of the functions of ``path``."""
    tree = ast.parse(Path(path).read_text())
    found = []

    def visit(node, in_rule):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for child in node.body:  # decorators and defaults are not the body
                visit(child, in_rule or _is_check(node.name))
            return
        if isinstance(node, ast.Call) and not in_rule:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name.startswith("check_"):
                found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, in_rule)

    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                visit(item, False)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            visit(node, False)
    return found


def main(root):
    total = 0
    for folder in ("models", "solvers"):
        for path in sorted((Path(root) / "rkmlearn" / folder).rglob("*.py")):
            lines = body_checks(path)
            total += len(lines)
            if lines:
                print(f"{path.relative_to(root)}: {len(lines)} ({', '.join(map(str, lines))})")
    print(f"total: {total}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
