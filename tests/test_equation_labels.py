"""Every equation label the library cites exists in the book, exactly once.

The library's docstrings name the equation they implement with a Sphinx role,
``:eq:`eq-rbf-kernel```. The book defines labels in two MyST ways:

* dollar math followed by a label, ``$$ ... $$ (eq-rbf-kernel)``, in a markdown cell of a notebook
  or in a ``.md`` page;
* a ``{math}`` directive with a ``:label: eq-rbf-kernel`` option.

This test reads source files only (no imports, no build), so it runs in milliseconds and also
catches a label that a chapter renamed while the code still cites the old name.
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGE = REPO_ROOT / "rkmlearn"
EXERCISES = REPO_ROOT / "exercises"
BOOK = REPO_ROOT / "book"

# Folders of the book that hold tooling, not pages.
BOOK_SKIP_DIRS = {"_build", "_static", "_tools", ".ipynb_checkpoints"}

CITATION = re.compile(r":eq:`([^`\s]+)`")
# A fenced block: ``` or ::: (3 or more), optional {directive} name, body, matching close.
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})[ \t]*(?P<info>[^\n]*)\n(?P<body>.*?)^[ \t]*(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
DOLLAR_MATH = re.compile(r"\$\$(?P<math>.+?)\$\$(?:[ \t]*\((?P<label>[^()\s]+)\))?", re.DOTALL)
DIRECTIVE_LABEL = re.compile(r"^[ \t]*:label:[ \t]*(\S+)[ \t]*$", re.MULTILINE)

# Modules whose public estimators / functions implement book equations (see the shared
# conventions): each must cite at least one label, and so must each public estimator class.
EQUATION_MODULES = ("kernels", "features", "solvers", "models", "level", "views", "forecasting", "preimage")


# --------------------------------------------------------------------------------------------
# Collecting citations and definitions
# --------------------------------------------------------------------------------------------


def cited_labels(text: str) -> list[str]:
    """Labels cited as ``:eq:`label``` in ``text``."""
    return CITATION.findall(text)


def defined_labels(markdown: str) -> list[str]:
    """Labels defined in one MyST markdown text, in order of appearance.

    ``{math}`` directives contribute their ``:label:`` option; other fenced blocks (code,
    other directives) are ignored, so a ``$$`` inside a code example defines nothing.
    """
    labels: list[str] = []
    outside: list[str] = []
    position = 0
    for fence in FENCE.finditer(markdown):
        outside.append(markdown[position : fence.start()])
        position = fence.end()
        if fence.group("info").strip().startswith("{math}"):
            labels.extend(DIRECTIVE_LABEL.findall(fence.group("body")))
    outside.append(markdown[position:])
    for match in DOLLAR_MATH.finditer("\n".join(outside)):
        if match.group("label"):
            labels.append(match.group("label"))
    return labels


def book_pages() -> list[Path]:
    pages = []
    for path in sorted(BOOK.rglob("*")):
        if path.suffix not in (".ipynb", ".md"):
            continue
        if BOOK_SKIP_DIRS.intersection(path.relative_to(BOOK).parts):
            continue
        pages.append(path)
    return pages


def markdown_of(page: Path) -> str:
    """The markdown text of a page: a ``.md`` file, or a notebook's markdown cells."""
    if page.suffix == ".md":
        return page.read_text(encoding="utf-8")
    notebook = json.loads(page.read_text(encoding="utf-8"))
    cells = [c for c in notebook.get("cells", []) if c.get("cell_type") == "markdown"]
    return "\n\n".join(
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells
    )


def book_definitions() -> dict[str, list[str]]:
    """Map each label defined in the book to the pages (relative paths) that define it."""
    where: dict[str, list[str]] = defaultdict(list)
    for page in book_pages():
        for label in defined_labels(markdown_of(page)):
            where[label].append(str(page.relative_to(REPO_ROOT)))
    return dict(where)


def code_citations() -> dict[str, list[str]]:
    """Map each label cited in ``rkmlearn/**/*.py`` and ``exercises/**/*.py`` to its files.

    Exercise statements and starters cite the chapter's equations too; a renamed label must
    not leave a student with a dangling reference.
    """
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted([*PACKAGE.rglob("*.py"), *EXERCISES.rglob("*.py")]):
        for label in cited_labels(path.read_text(encoding="utf-8")):
            name = str(path.relative_to(REPO_ROOT))
            if name not in where[label]:
                where[label].append(name)
    return dict(where)


# --------------------------------------------------------------------------------------------
# The parsers themselves (so that a parser bug cannot make the real checks vacuous)
# --------------------------------------------------------------------------------------------


def test_defined_labels_finds_dollar_math_and_math_directives():
    text = (
        "Intro $x$ and\n\n$$\nk(x, y) = x^T y\n$$ (eq-a)\n\n"
        "$$ (x + y)^2 $$\n\n"  # unlabelled, and its parentheses are not a label
        "```{math}\n:label: eq-b\n\ne^T h\n```\n\n"
        ":::{math}\n:label: eq-c\nz\n:::\n\n"
        "```python\n# $$ fake $$ (eq-not-a-label)\n```\n"
        "$$a$$ (eq-d)"
    )
    assert defined_labels(text) == ["eq-b", "eq-c", "eq-a", "eq-d"]


def test_cited_labels_reads_sphinx_eq_roles():
    doc = "Implements :eq:`eq-rbf` and ``:eq:`eq-sqdist` ``; not {eq}`eq-book-only`."
    assert cited_labels(doc) == ["eq-rbf", "eq-sqdist"]


# --------------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------------


def test_book_defines_labels():
    assert book_definitions(), (
        "no equation label is defined in book/: Chapter 1 (book/foundations/ch01_kernels.ipynb) "
        "should define them as `$$ ... $$ (eq-label)`."
    )


def test_every_cited_label_is_defined_in_the_book():
    defined = book_definitions()
    missing = {label: files for label, files in code_citations().items() if label not in defined}
    assert not missing, "labels cited in rkmlearn but defined nowhere in book/:\n" + "\n".join(
        f"  {label!r} cited in {', '.join(files)}" for label, files in sorted(missing.items())
    )


def test_every_label_is_defined_once():
    duplicates = {label: pages for label, pages in book_definitions().items() if len(pages) > 1}
    assert not duplicates, "equation labels defined more than once:\n" + "\n".join(
        f"  {label!r} in {', '.join(pages)}" for label, pages in sorted(duplicates.items())
    )


def module_files(name: str) -> list[Path]:
    """Source files of ``rkmlearn.<name>`` (a module, or every file of a subpackage)."""
    module = PACKAGE / f"{name}.py"
    package = PACKAGE / name
    if module.exists():
        return [module]
    if package.is_dir():
        return sorted(package.rglob("*.py"))
    return []


def public_estimators(tree: ast.Module) -> list[ast.ClassDef]:
    """Top-level public classes with a ``fit`` method (scikit-learn style estimators)."""
    return [
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and not node.name.startswith("_")
        and any(isinstance(f, ast.FunctionDef) and f.name == "fit" for f in node.body)
    ]


@pytest.mark.parametrize("name", EQUATION_MODULES)
def test_equation_module_cites_a_label(name):
    files = module_files(name)
    assert files, (
        f"rkmlearn/{name}.py (or rkmlearn/{name}/) is missing; it implements book equations "
        "and must exist."
    )
    citations = [label for path in files for label in cited_labels(path.read_text("utf-8"))]
    assert citations, (
        f"rkmlearn.{name} cites no equation: name the book equation each public function "
        "implements, e.g. 'Implements :eq:`eq-rbf-kernel` (Chapter 1, ...)'."
    )


@pytest.mark.parametrize("name", EQUATION_MODULES)
def test_each_public_estimator_cites_a_label(name):
    uncited = []
    for path in module_files(name):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in public_estimators(tree):
            docstrings = [ast.get_docstring(cls) or ""] + [
                ast.get_docstring(f) or ""
                for f in cls.body
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
            if not any(cited_labels(doc) for doc in docstrings):
                uncited.append(f"{path.relative_to(REPO_ROOT)}::{cls.name}")
    assert not uncited, (
        "public estimators whose docstrings cite no book equation (add "
        "'Implements :eq:`label` (Chapter N, *title*)'): " + ", ".join(uncited)
    )
