"""nbval options of the book's notebooks.

``RKM_COMPARE_FIGURES=1`` makes nbval compare the figures' PNG bytes too (nbval skips
``image/png`` by default): ``make figures-check`` runs it under another BLAS and NumPy SIMD
configuration to list the figures whose pixels depend on the machine. It is not part of
``make test``: four figures of non-convex or recursive trajectories (Chapters 5, 9 and 10), whose
rounding differences grow, still move a few anti-aliased pixels (see book/README.md).

Under ``--dist loadgroup`` (the Makefile's XDIST) a notebook is one unit of work: its cells run in
order in one worker, as under ``--dist loadfile`` (tests/conftest.py says how, and orders the
units when tests/ is collected too).
"""
import os

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        for item in items:
            if hasattr(item.parent, "skip_compare") and "@" not in item.nodeid:  # an nbval cell
                item._id = type(item._id).parse(f"{item.nodeid}@{item.nodeid.split('::')[0]}")
    if os.environ.get("RKM_COMPARE_FIGURES") != "1":
        return
    for item in items:
        parent = item.parent
        if hasattr(parent, "skip_compare"):  # an nbval notebook
            parent.skip_compare = tuple(key for key in parent.skip_compare if key != "image/png")
