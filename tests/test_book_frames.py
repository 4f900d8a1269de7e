"""book/_ext/rkm_frames.py: the widget state of a page with its frames moved to files (issue 30).

No book build needed: ``externalise`` is run on a state like the one a frame explorer stores.
"""
from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
from rkm_frames import externalise  # noqa: E402

PNG = b"\\x89PNG\\r\\n\\x1a\\n" + bytes(range(64))


def _state(*images, html="<b>manifest</b></script>"):
    state = {f"img{i}": {"model_name": "ImageModel", "state": {"format": "png", "_dom_classes": ["rkm-frame"]},
                         "buffers": [{"path": ["value"], "encoding": "base64",
                                      "data": base64.b64encode(data).decode()}]}
             for i, data in enumerate(images)}
    state["html"] = {"model_name": "HTMLModel", "state": {"value": html}}
    return json.dumps({"version_major": 2, "version_minor": 0, "state": state})


def test_every_inline_image_becomes_a_url_to_its_content_named_file():
    saved = {}
    frames = [PNG, PNG + b"other", PNG]  # the third repeats the first: one file
    out = externalise(_state(*frames), saved.__setitem__, lambda name: f"../../_static/frames/{name}")
    state = json.loads(out)["state"]
    for i, data in enumerate(frames):
        model = state[f"img{i}"]
        name = hashlib.sha256(data).hexdigest() + ".png"
        assert model["state"]["format"] == "url"
        assert base64.b64decode(model["buffers"][0]["data"]).decode() == f"../../_static/frames/{name}"
        assert saved[name] == data
    assert len(saved) == 2
    assert state["html"]["state"]["value"] == "<b>manifest</b></script>"  # the text itself unchanged
    assert "</script>" not in out  # ... but it cannot end the page's <script> element


def test_a_state_without_inline_images_is_returned_as_it_is():
    text = json.dumps({"state": {"h": {"model_name": "HTMLModel", "state": {"value": "x"}}}})
    assert externalise(text, lambda *a: 1 / 0, lambda name: 1 / 0) is text
    done = externalise(_state(PNG), lambda *a: None, lambda name: "f.png")
    assert externalise(done, lambda *a: 1 / 0, lambda name: 1 / 0) is done  # a second build: nothing to do
