"""The import graph of the numeric library (``rkmlearn/`` without ``grading/``), read from its source.

``python tests/import_graph.py`` prints each module's layer and its imports inside the library,
then the edges that point up a layer, the import cycles and the private names imported from
another folder (the three lists :mod:`tests.test_layering` wants empty). Every import statement
counts, those inside functions too: a lazy import is still a dependency.

The layers, lowest first (a module may import its own layer and those below it):

0. ``_validation``, ``_blas``, ``_extras``: input checks, BLAS products, optional extras
1. ``_symmetric``: symmetric matrices and the rank tolerance, shared by kernels and solvers;
   ``datasets``: loaders (they need only the checks)
2. ``solvers``: eigen, linear, generalized, Stiefel, optimisers
3. ``kernels``
4. ``features``
5. ``views``, ``base`` (estimator plumbing, the level options)
6. ``level``, ``preimage``, ``forecasting`` (the recursive loop; duck-typed, it receives its model)
7. ``models``
8. ``rkmlearn`` (the package: re-exports the public names)
9. ``widgets`` (the book's explorers, on top of everything)

``grading/`` is a part of its own (it imports nothing of the numeric library) and is not drawn.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rkmlearn"
LAYERS = {
    "_validation": 0, "_blas": 0, "_extras": 0,
    "_symmetric": 1, "datasets": 1,
    "solvers": 2,
    "kernels": 3,
    "features": 4,
    "views": 5, "base": 5,
    "level": 6, "preimage": 6, "forecasting": 6, "matrix_free": 6,
    "models": 7,
    "": 8,  # rkmlearn/__init__.py
    "widgets": 9,
}
EXCLUDED = ("grading",)


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules():
    """``{dotted name: path}`` of every module of the numeric library."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] in EXCLUDED:
            continue
        found[module_name(path)] = path
    return found


def layer(module):
    """The layer of ``rkmlearn.<top>...``: that of its first component below ``rkmlearn``."""
    parts = module.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else ""]


def _absolute(node, module, is_package):
    """The module a ``from ... import`` names, made absolute."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(found):
    """``{module: [(imported module, names imported from it, line)]}`` inside the library."""
    edges = {}
    for module, path in found.items():
        tree = ast.parse(path.read_text(), str(path))
        out = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out += [(alias.name, (), node.lineno) for alias in node.names if alias.name.startswith("rkmlearn")]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(node, module, path.name == "__init__.py")
                if not source.startswith("rkmlearn"):
                    continue
                plain = []
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    if sub in found:  # "from . import _fetch": the submodule itself
                        out.append((sub, (), node.lineno))
                    else:
                        plain.append(alias.name)
                if plain:
                    out.append((source, tuple(plain), node.lineno))
        edges[module] = [(target, names, line) for target, names, line in out
                         if target in found and target != module]
    return edges


def upward(edges):
    """Imports from a higher layer: ``(module, imported, line)``."""
    return [(m, t, line) for m, out in edges.items() for t, _, line in out if layer(t) > layer(m)]


def cycles(edges):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w, _, _ in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _folder(module, found):
    return found[module].parent


def private_crossings(edges, found):
    """Private names (``_x``) imported from a module in another folder: ``(module, name, source, line)``.

    Within one folder (a subpackage, or the top level) modules may share private helpers; across
    folders only public names travel. A private MODULE (``_blas``, ``_validation``) is the library's
    internal API: importing its public names is fine.
    """
    return [(m, name, t, line) for m, out in edges.items() for t, names, line in out for name in names
            if name.startswith("_") and _folder(t, found) != _folder(m, found)]


def main():
    found = modules()
    edges = imports(found)
    for module in sorted(found, key=lambda m: (layer(m), m)):
        targets = sorted({t for t, _, _ in edges[module]})
        print(f"[{layer(module)}] {module} -> {', '.join(t.replace('rkmlearn.', '') for t in targets) or '-'}")
    print("\nupward imports:", upward(edges) or "none")
    print("cycles:", cycles(edges) or "none")
    print("private names across folders:", private_crossings(edges, found) or "none")


if __name__ == "__main__":
    main()
