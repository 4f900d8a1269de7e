"""The explorers stored in the book's notebooks are wired the way the static page needs.

``make notebooks`` stores each explorer's widget state in its notebook; the HTML book embeds that
state and the widget manager rebuilds the widgets in the browser. This test reads the stored
state (no browser, no kernel) and checks, for every explorer (a ``VBox`` with the class
``rkm-explorer``): its manifest (the hidden ``rkm-manifest`` HTML) matches its controls' labels
and initial positions; the nested stacks have one child per ladder value, start at the initial
state, and end in ``Image`` widgets whose bytes hash to the manifest's SHA-256 of that state;
and there is one ``jslink`` from each control's ``index`` to the ``selected_index`` of every
stack of its level, and no other. (That the stored frames are what the library draws today is
nbval's part: it compares each explorer's text form, which ends with a digest of the pixels, with
a fresh execution. That the browser shows them is tests/browser's.)
"""
from __future__ import annotations

import base64
import hashlib
import html
import importlib.util
import json
from pathlib import Path

import nbformat
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _toc_notebooks():
    """The notebooks of _toc.yml, read by the pipeline's own helper (book/_tools)."""
    path = REPO_ROOT / "book" / "_tools" / "execute_notebooks.py"
    spec = importlib.util.spec_from_file_location("_book_tools_execute_notebooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.toc_notebooks()


def _models(path):
    nb = nbformat.read(path, as_version=4)
    return nb, nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def _ref(value: str) -> str:
    assert value.startswith("IPY_MODEL_"), value
    return value[len("IPY_MODEL_"):]


def _explorers(models):
    return [mid for mid, m in models.items()
            if m["model_name"] == "VBoxModel" and "rkm-explorer" in m["state"].get("_dom_classes", [])]


NOTEBOOKS = [p for p in _toc_notebooks() if _explorers(_models(p)[1])]


def test_the_book_has_explorers():
    assert NOTEBOOKS, "no notebook stores an explorer: run `make notebooks`"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_explorers_are_consistent(path):
    nb, models = _models(path)
    state = {mid: m["state"] for mid, m in models.items()}
    links = {(_ref(s["source"][0]), s["source"][1], _ref(s["target"][0]), s["target"][1])
             for s in state.values() if s.get("_model_name") == "LinkModel"}
    shown = {o["data"][WIDGET_VIEW]["model_id"] for c in nb.cells if c.cell_type == "code"
             for o in c.get("outputs", []) if WIDGET_VIEW in o.get("data", {})}
    for explorer in _explorers(models):
        assert explorer in shown, f"{path.name}: an explorer is stored but not displayed"
        controls_box, view, manifest_widget = (_ref(c) for c in state[explorer]["children"])
        assert "rkm-manifest" in state[manifest_widget]["_dom_classes"]
        manifest = json.loads(html.unescape(state[manifest_widget]["value"]))
        name = f"{path.name}: {manifest['explorer']}"
        controls = [_ref(c) for c in state[controls_box]["children"]]
        assert len(controls) == len(manifest["controls"]), name
        for control, entry, initial in zip(controls, manifest["controls"], manifest["initial"]):
            assert state[control]["_options_labels"] == entry["labels"], name
            assert state[control]["index"] == initial, name
        frames = {tuple(f["index"]): f["sha256"] for f in manifest["frames"]}
        expected_links, found = set(), {}

        def walk(node, level, prefix):
            if level == len(controls):
                model = models[node]
                assert model["model_name"] == "ImageModel", name
                (buffer,) = model["buffers"]
                found[prefix] = hashlib.sha256(base64.b64decode(buffer["data"])).hexdigest()
                return
            assert models[node]["model_name"] == "StackModel", name
            children = state[node]["children"]
            assert len(children) == len(manifest["controls"][level]["labels"]), name
            assert state[node]["selected_index"] == manifest["initial"][level], name
            expected_links.add((controls[level], "index", node, "selected_index"))
            for i, child in enumerate(children):
                walk(_ref(child), level + 1, prefix + (i,))

        walk(view, 0, ())
        assert found == frames, f"{name}: stored frames differ from the manifest"
        mine = {link for link in links if link[0] in controls}
        assert mine == expected_links, f"{name}: controls are not linked to exactly their stacks"
