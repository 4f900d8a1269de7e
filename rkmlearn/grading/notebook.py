"""Exercise notebooks: one source for the statement, the starter and the solution.

An exercise's notebook (``exercises/chNN_name/chNN_exercises.ipynb``) is the single source of its
code. Its code cells carry tags:

``exercise-setup``
    imports and helpers, part of the module;
``exercise-function``
    one function the student writes, part of the module;
``check``
    a check cell (``check("rbf_gram")``), never part of the module;

and the reference code sits between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` lines, as in
nbgrader. From the notebook, :func:`sync_exercise` writes ``solution.py`` (markers removed) and
``starter.py`` (each marked block replaced: inside a function by ``raise NotImplementedError``,
at the top level by a comment), and the student's copy of the notebook has the same
replacements, so starter, solution and handout cannot drift apart.

A notebook handed in for grading (:func:`submission_module`) is turned into a module of its
*definitions*: imports, functions, classes and UPPER_CASE constants of every code cell except the
check cells, in cell order. The student's experiments (calls, plots, prints) are left out, so a
scratch cell that raises cannot fail the import.
"""
from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

from .errors import GradingError
from .sources import parse_python, read_regular_file

__all__ = ["BEGIN", "END", "strip_solutions", "remove_markers", "read_notebook", "write_notebook",
           "exercise_module", "submission_module", "student_notebook", "sync_exercise",
           "notebook_path", "definitions_only"]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
SETUP, FUNCTION, CHECK = "exercise-setup", "exercise-function", "check"
_TOP_LEVEL_PLACEHOLDER = "# YOUR CODE HERE (helpers you may want)"
_GENERATED = "# Generated from {nb} (python -m rkmlearn.grading sync): edit the notebook.\n"
_MAX_NOTEBOOK_BYTES = 20 * 2**20


def _marker_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(begin, end) line indices of every solution block; malformed markers are an error."""
    blocks, begin = [], None
    for i, line in enumerate(lines):
        text = line.strip()
        if text == BEGIN:
            if begin is not None:
                raise GradingError(f"line {i + 1}: {BEGIN} inside another solution block")
            begin = i
        elif text == END:
            if begin is None:
                raise GradingError(f"line {i + 1}: {END} without a {BEGIN}")
            blocks.append((begin, i))
            begin = None
    if begin is not None:
        raise GradingError(f"line {begin + 1}: {BEGIN} is never closed by {END}")
    return blocks


def _enclosing_function(lines: list[str], index: int, indent: int) -> str | None:
    for line in reversed(lines[:index]):
        match = re.match(r"(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(", line)
        if match and len(match.group(1)) < indent:
            return match.group(2)
    return None


def strip_solutions(source: str) -> str:
    """Replace every solution block by what the student starts from.

    Inside a function the block becomes ``raise NotImplementedError("NAME: write your
    implementation here")`` at the block's indentation; at the top level, a comment.
    """
    lines = source.splitlines()
    out, last = [], 0
    for begin, end in _marker_blocks(lines):
        out.extend(lines[last:begin])
        marker = lines[begin]
        indent = len(marker) - len(marker.lstrip())
        pad = marker[:indent]
        if indent == 0:
            out.append(_TOP_LEVEL_PLACEHOLDER)
        else:
            name = _enclosing_function(lines, begin, indent) or "this function"
            out.append(f'{pad}raise NotImplementedError("{name}: write your implementation here")')
        last = end + 1
    out.extend(lines[last:])
    return "\n".join(out) + ("\n" if source.endswith("\n") else "")


def remove_markers(source: str) -> str:
    """The reference code: the solution blocks kept, their marker lines removed."""
    lines = source.splitlines()
    drop = {i for block in _marker_blocks(lines) for i in block}
    kept = [line for i, line in enumerate(lines) if i not in drop]
    return "\n".join(kept) + ("\n" if source.endswith("\n") else "")


def read_notebook(path) -> dict:
    """Read a notebook file with ``nbformat`` (a regular file only, nbformat 4, at most 20 MiB).

    Raises
    ------
    GradingError
        If the file is not a readable notebook (not JSON, not nbformat 4, too large).
    """
    import nbformat

    path = Path(path)
    raw = read_regular_file(path)
    if len(raw) > _MAX_NOTEBOOK_BYTES:
        raise GradingError(f"notebook {str(path)!r} is larger than 20 MiB; clear its outputs "
                           "(Kernel > Restart and Clear Outputs) and save it again")
    not_v4 = GradingError(f"notebook {str(path)!r} is not an nbformat-4 notebook; save it from "
                          "Jupyter (File > Save Notebook) and submit the .ipynb file")
    try:
        # The reader, not nbformat.reads: no conversion from older formats, and no schema
        # validation, whose log lines a student's slightly unusual (but gradable) file would
        # print on the grader's output.
        nb = nbformat.reader.reads(raw.decode("utf-8"))
    except (UnicodeDecodeError, nbformat.reader.NotJSONError) as exc:
        raise GradingError(f"notebook {str(path)!r} is not valid notebook JSON ({exc}); save it "
                           "from Jupyter again") from None
    except (ValueError, nbformat.ValidationError):  # an unknown version, keys it lacks
        raise not_v4 from None
    if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        raise not_v4
    return nb


def write_notebook(nb: dict, path) -> None:
    """Write ``nb`` as nbformat does (one-space indent, sorted keys, final newline)."""
    import nbformat

    Path(path).write_text(nbformat.writes(nbformat.from_dict(nb)), encoding="utf-8")


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _tags(cell: dict) -> set[str]:
    tags = (cell.get("metadata") or {}).get("tags") or []
    return {t for t in tags if isinstance(t, str)}


def _code_cells(nb: dict, *tags: str) -> list[str]:
    return [_source(c) for c in nb["cells"]
            if c.get("cell_type") == "code" and (not tags or _tags(c) & set(tags))]


def exercise_module(nb: dict, *, solutions: bool, name: str = "the exercise notebook") -> str:
    """The module of an exercise notebook's setup and function cells: solution or starter."""
    cells = _code_cells(nb, SETUP, FUNCTION)
    if not cells:
        raise GradingError(f"{name} has no code cell tagged {SETUP!r} or {FUNCTION!r}")
    convert = remove_markers if solutions else strip_solutions
    body = "\n\n\n".join(convert(c).strip("\n") for c in cells)
    return _GENERATED.format(nb=name) + body + "\n"


def _imports_the_grader(node: ast.stmt) -> bool:
    names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
        [alias.name for alias in node.names]
    return any(n == "rkmlearn.grading" or n.startswith("rkmlearn.grading.") for n in names)


def _is_definition(node: ast.stmt) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return not _imports_the_grader(node)  # the check cells' import: not the student's code
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Name) and t.id.isupper() for t in targets)
    # A module docstring or other string literal documents, it does not run anything.
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, str)


def definitions_only(cells: list[str]) -> tuple[str, list[str]]:
    """Imports, functions, classes and UPPER_CASE constants of ``cells``, in order.

    Returns the module source and notes on what was left out (cells that do not parse).
    IPython magics and shell lines (``%...``, ``!...``) are left out.
    """
    parts, notes = [], []
    for number, cell in enumerate(cells, start=1):
        code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                         for line in cell.splitlines())
        try:
            tree = parse_python(code)
        except SyntaxError as exc:
            notes.append(f"code cell {number} has a syntax error (line {exc.lineno}: {exc.msg}) "
                         "and was left out")
            continue
        lines = code.splitlines()
        kept = []
        for node in tree.body:
            if _is_definition(node):
                start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
                kept.append("\n".join(lines[start - 1:node.end_lineno]))
        if kept:
            parts.append(f"# --- code cell {number} ---\n" + "\n\n".join(kept))
    return "\n\n\n".join(parts) + "\n", notes


def submission_module(nb: dict) -> tuple[str, list[str]]:
    """The module graded for a submitted notebook: definitions of every non-check code cell."""
    cells = [_source(c) for c in nb["cells"]
             if c.get("cell_type") == "code" and CHECK not in _tags(c)]
    return definitions_only(cells)


def student_notebook(nb: dict) -> dict:
    """The handout: solution blocks replaced, outputs and execution counts cleared."""
    out = copy.deepcopy(nb)
    for cell in out["cells"]:
        if cell.get("cell_type") == "code":
            cell["source"] = strip_solutions(_source(cell)).splitlines(keepends=True)
            cell["outputs"], cell["execution_count"] = [], None
        elif BEGIN in _source(cell):
            raise GradingError("a markdown cell holds a solution marker; solutions go in code "
                               "cells only")
    return out


def notebook_path(exercise_dir) -> Path | None:
    """The exercise's source notebook ``chNN_exercises.ipynb``, or None when it has none."""
    found = sorted(Path(exercise_dir).glob("*_exercises.ipynb"))
    if len(found) > 1:
        raise GradingError(f"{exercise_dir} has several *_exercises.ipynb: {found}; keep one")
    return found[0] if found else None


def sync_exercise(exercise_dir, *, check: bool = False) -> list[str]:
    """Write (or with ``check``, compare) ``solution.py`` and ``starter.py`` from the notebook.

    Returns the names of the files that were (or, with ``check``, would be) changed.
    """
    folder = Path(exercise_dir)
    nb_file = notebook_path(folder)
    if nb_file is None:
        raise GradingError(f"{folder} has no *_exercises.ipynb to generate the .py files from")
    nb = read_notebook(nb_file)
    wanted = {"solution.py": exercise_module(nb, solutions=True, name=nb_file.name),
              "starter.py": exercise_module(nb, solutions=False, name=nb_file.name)}
    changed = []
    for name, text in wanted.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            changed.append(name)
            if not check:
                path.write_text(text, encoding="utf-8")
    return changed
