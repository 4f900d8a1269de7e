"""The numeric library's layers do not leak (issue 35): no upward import, no cycle, no private name
imported from another folder, and kernels need no solver. The graph is read from the source by
``tests/import_graph.py`` (run it to print the graph)."""

from __future__ import annotations

import import_graph

FOUND = import_graph.modules()
EDGES = import_graph.imports(FOUND)


def test_every_module_has_a_layer():
    assert all(isinstance(import_graph.layer(m), int) for m in FOUND)


def test_no_module_imports_from_a_higher_layer():
    assert import_graph.upward(EDGES) == []


def test_no_import_cycle():
    assert import_graph.cycles(EDGES) == []


def test_no_private_name_crosses_a_folder():
    assert import_graph.private_crossings(EDGES, FOUND) == []


def test_kernels_import_no_solver():
    """The symmetry and rank helpers that kernels share with the solvers live below both (``_symmetric``)."""
    leaks = [(m, t) for m, out in EDGES.items() if m.startswith("rkmlearn.kernels")
             for t, _, _ in out if t.startswith("rkmlearn.solvers")]
    assert leaks == []


def test_the_checker_sees_an_upward_import_and_a_cycle():
    edges = {"rkmlearn.forecasting": [("rkmlearn.models.kpca", ("KPCA",), 1)],
             "rkmlearn.models.kpca": [("rkmlearn.forecasting", (), 1)]}
    assert import_graph.upward(edges) == [("rkmlearn.forecasting", "rkmlearn.models.kpca", 1)]
    assert import_graph.cycles(edges) == [["rkmlearn.forecasting", "rkmlearn.models.kpca"]]
