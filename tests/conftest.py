"""How the tests are spread over pytest-xdist's workers (``make test``: ``-n 2 --dist loadgroup``).

A *unit* (a group of ``--dist loadgroup``) runs whole on one worker, its tests in collection order:

- a test file is one unit, as under ``--dist loadfile``: its module fixtures run once;
- a file that sets ``XDIST_SPLIT = True`` is cut finer: each test is a unit of its own, except that
  the tests using one module-scoped fixture of the file (not an autouse one) stay in one unit, so
  that the fixture still runs once. Under ``loadfile`` one worker ran all 13 chapters of
  test_chapters_from_scratch.py in a row (a long pole of 10-20 minutes) while the other sat idle;
- a notebook checked by nbval is one unit (its cells run in order in one kernel); book/conftest.py
  groups them the same way when only ``book/`` is collected (``make nbval``).

On a worker the unit is written after the node id (``tests/x.py::test_a@tests/x.py``), as xdist's
``xdist_group`` mark would (join_unit says why not the mark); reports show those ids.

The units are then handed out heaviest first (``--no-loadscope-reorder`` keeps this order), so that
the long ones start at once on both workers and the short ones fill the end: LONG_UNITS gives the
heavy units, measured, longest first; the other notebooks come next, every other unit follows in
collection order. A stale entry costs balance, never a check: nothing here selects or skips a test.
"""
from __future__ import annotations

import pytest

# Units that take longest: seconds, from a pass-1 run with this file (2026-11-28, 2 cores shared,
# load 2-9), the notebooks (nbval units of pass 2) estimated; only the order matters.
CHAPTER = "tests/test_chapters_from_scratch.py::test_visible_code_runs_as_shown[book/"
LONG_UNITS = {
    "tests/browser/test_book_in_browser.py": 200,  # not measured here (one unit of ~600 page checks)
    "tests/test_install_extras.py": 181,
    "book/duality/ch05_forecasting.ipynb": 150,
    "tests/test_course.py": 134,
    "tests/test_grading_attacks.py::test_work_done_at_import_counts_as_cpu_time": 122,
    "book/deep/ch09_deep_rkm.ipynb": 120,
    "tests/test_grading.py+graded": 116,
    "book/recurrent/ch10_recurrent_rkm.ipynb": 100,
    CHAPTER + "duality/ch05_forecasting.ipynb]": 65,
    "tests/test_experiment_scripts.py": 54,
    CHAPTER + "recurrent/ch10_recurrent_rkm.ipynb]": 54,
    CHAPTER + "tensor/ch08_tensor_rkm.ipynb]": 53,
    CHAPTER + "beyond/ch12_kernel_cca.ipynb]": 48,
    "tests/test_book_html.py": 47,
    CHAPTER + "beyond/ch13_generative_rkm.ipynb]": 37,
    CHAPTER + "duality/ch04_stiefel_rotation.ipynb]": 31,
    "tests/test_grading_course.py+course": 29,
    "tests/test_recurrent.py": 28,
    "tests/test_matrix_free.py": 28,
    "tests/test_book_downloads.py": 26,
}


def _module_fixtures(item: pytest.Item) -> list[str]:
    """The module-scoped fixtures of the item's own file that it uses (autouse ones aside)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    autouse = set(item.session._fixturemanager._getautousenames(item))
    module = item.nodeid.split("::")[0]
    return sorted(name for name, defs in info.name2fixturedefs.items()
                  if defs and defs[-1].scope == "module" and defs[-1].baseid == module
                  and name not in autouse)


def unit_of(item: pytest.Item) -> str:
    """The name of the unit the item belongs to; its own node id where it is a unit alone."""
    marked = item.get_closest_marker("xdist_group")  # a test may still name its group
    if marked is not None:
        return str(marked.args[0] if marked.args else marked.kwargs.get("name", "default"))
    path = item.nodeid.split("::")[0]
    if not getattr(getattr(item, "module", None), "XDIST_SPLIT", False):
        return path  # a test file, or a notebook of nbval
    shared = _module_fixtures(item)
    return "+".join([path, *shared]) if shared else item.nodeid  # no "::": it follows a node id


def join_unit(item: pytest.Item, unit: str) -> None:
    """Put the item in its unit as pytest-xdist's ``--dist loadgroup`` reads it: ``@unit`` after
    the node id (what its ``xdist_group`` mark does: xdist 3.8 writes ``item._nodeid``, which
    pytest 9.2 no longer reads, so that the mark is lost and every test runs as a unit alone)."""
    if unit != item.nodeid and "@" not in item.nodeid:
        item._id = type(item._id).parse(f"{item.nodeid}@{unit}")


@pytest.hookimpl(trylast=True)  # after --deselect and -k, which match the plain node ids
def pytest_collection_modifyitems(session, config, items):
    unit = {item: unit_of(item) for item in items}
    first_seen = {}
    for item in items:
        first_seen.setdefault(unit[item], len(first_seen))
    # heaviest first (LONG_UNITS), then the other notebooks (each a whole chapter, tens of seconds:
    # pass 2 collects them after the tests), then the rest in collection order; a unit's tests stay
    # in order
    items.sort(key=lambda item: (-LONG_UNITS.get(unit[item], 0),
                                 not hasattr(item.parent, "skip_compare"),
                                 first_seen[unit[item]]))
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        for item in items:
            join_unit(item, unit[item])
