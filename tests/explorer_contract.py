"""The contract every explorer of :mod:`rkmlearn.widgets` keeps (shared by the explorer tests).

``assert_explorer_contract(explorer)`` checks, for every state: the manifest in the widget (the
hidden ``rkm-manifest`` HTML, what the browser test reads) lists the state with the SHA-256 of
``explorer.render(**state)``, computed afresh; the frame stored in the widget's stacks is those
bytes; distinct states look different. It renders every frame twice, so tests build explorers
with small ladders.
"""
from __future__ import annotations

import hashlib
import html
import json

import ipywidgets as widgets


def stored_frame(explorer, index):
    """The Image widget's bytes at ladder ``index`` of the explorer's nested stacks."""
    node = explorer.widget.children[1]
    for i in index:
        assert isinstance(node, widgets.Stack)
        node = node.children[i]
    assert isinstance(node, widgets.Image)
    return node.value


def assert_explorer_contract(explorer):
    box = explorer.widget
    assert "rkm-explorer" in box._dom_classes
    (manifest_widget,) = [w for w in box.children if "rkm-manifest" in w._dom_classes]
    manifest = json.loads(html.unescape(manifest_widget.value))
    assert manifest["explorer"] == type(explorer).__name__
    assert [c["name"] for c in manifest["controls"]] == list(explorer.names)
    entries = {tuple(f["index"]): f["sha256"] for f in manifest["frames"]}
    assert len(entries) == len(explorer.states())
    for state in explorer.states():
        index = explorer.indices(**state)
        png = explorer.render(**state)
        assert entries[index] == hashlib.sha256(png).hexdigest(), f"state {state}"
        assert stored_frame(explorer, index) == png
    assert len(set(entries.values())) == len(entries), "two states show the same frame"
    assert manifest["initial"] == list(explorer.indices(**explorer.initial))
