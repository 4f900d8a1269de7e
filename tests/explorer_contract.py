"""The contract every explorer of :mod:`rkmlearn.widgets` keeps (shared by the explorer tests).

``assert_explorer_contract(explorer)`` checks, for every state: the manifest in the widget (the
hidden ``rkm-manifest`` HTML, what the browser test reads) lists the state with the SHA-256 of the
frame stored at its place in the widget's stacks, and distinct states look different. For a
sample of the states (the first, the last, the initial one, and each one-step neighbour of the
first along every ladder: a swapped or shifted index shows there) it renders the frame afresh
with ``explorer.render(**state)`` and checks it is those bytes. Building the widget renders every
frame once; rendering all of them a second time doubled the cost of the widget tests (issue 24)
and could only catch a frame that is right in the stacks but not reproducible, which the sample
already would for a systematic cause.
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


def sampled_states(explorer):
    """The first, last and initial states and the neighbours of the first, one ladder at a time."""
    states = explorer.states()
    first = states[0]
    sample = [first, states[-1], dict(explorer.initial)]
    for ladder in explorer.ladders:
        if len(ladder.values) > 1:
            sample.append({**first, ladder.name: ladder.values[1]})
    unique = []
    for state in sample:
        if state not in unique:
            unique.append(state)
    return unique


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
        assert entries[index] == hashlib.sha256(stored_frame(explorer, index)).hexdigest(), f"state {state}"
    for state in sampled_states(explorer):
        index = explorer.indices(**state)
        assert stored_frame(explorer, index) == explorer.render(**state), f"state {state} is not its render"
    assert len(set(entries.values())) == len(entries), "two states show the same frame"
    assert manifest["initial"] == list(explorer.indices(**explorer.initial))
