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


# ---------------------------------------------------------------------------------------------
# book/_ext/rkm_panels.py: where a phone cuts a frame into panels
# ---------------------------------------------------------------------------------------------
import numpy as np  # noqa: E402
import rkm_panels  # noqa: E402


def _canvas(height=300, width=600):
    return np.full((height, width, 3), 255, dtype=np.uint8)


def _box(frame, y0, y1, x0, x1):
    frame[y0:y1, x0] = frame[y0:y1, x1 - 1] = 0
    frame[y0, x0:x1] = frame[y1 - 1, x0:x1] = 0


def test_panels_side_by_side_are_cut_at_the_gutter_full_height():
    frame = _canvas()
    frame[5:15, 100:500] = 0  # a title across the gutter, in the top 12 %
    _box(frame, 50, 290, 10, 280)
    _box(frame, 50, 290, 320, 590)
    cut = rkm_panels.cut(frame)
    assert cut == {"size": [600, 300], "rule": "columns", "pieces": [[10, 0, 280, 300], [320, 0, 590, 300]]}


def test_a_grid_under_a_title_is_cut_in_bands_then_columns_with_the_title_whole():
    frame = _canvas(500, 600)
    _box(frame, 10, 200, 10, 590)            # a wide plot: a band without a gutter
    frame[230:240, 150:450] = 0              # a title over the grid, across its gutter ...
    frame[240:246, 160:170] = 0              # ... with a descender away from the gutter
    _box(frame, 260, 370, 10, 280)
    _box(frame, 260, 370, 320, 590)
    _box(frame, 390, 490, 10, 280)
    _box(frame, 390, 490, 320, 590)
    cut = rkm_panels.cut(frame)
    assert cut["rule"] == "grid"
    pad = rkm_panels.PAD
    wide, title, *grid = cut["pieces"]
    assert wide == [10 - pad, 10 - pad, 590 + pad, 200 + pad]
    assert title[1] == 230 - pad and title[3] == 246 + pad  # the descender stays in the title strip
    assert [p[0] + pad for p in grid] == [10, 320, 10, 320]
    assert [p[1] + pad for p in grid] == [246, 246, 390, 390]  # the grid starts under the title


def test_one_picture_without_gutters_stays_whole():
    frame = _canvas()
    _box(frame, 10, 290, 10, 590)
    assert rkm_panels.cut(frame) is None


def test_a_y_label_apart_from_its_plot_joins_it_instead_of_being_dropped():
    frame = _canvas()
    frame[100:200, 4:14] = 0                 # a rotated y label, a gutter away from its plot
    _box(frame, 20, 290, 30, 280)
    _box(frame, 20, 290, 320, 590)
    assert rkm_panels.cut(frame)["pieces"] == [[4, 0, 280, 300], [320, 0, 590, 300]]
    assert rkm_panels.merge_narrow([[10, 500], [520, 560], [600, 1100]], 1170) == [[10, 560], [600, 1100]]
