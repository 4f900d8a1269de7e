"""Explorer frames as files the browser fetches when a control shows them (issue 30: light pages).

Loaded by ``rkm_book.py``. A frame explorer (``rkmlearn/widgets/_base.py``) stores every frame of
every state as an :class:`ipywidgets.Image` in the notebook's widget state, and myst-nb writes that
state into the page, each PNG base64-encoded: a chapter with three explorers carried 1.4 MB of
frames (gzipped) of which a reader first sees three. Here, when a page is written, each image's
bytes go to ``_static/frames/<sha256>.png`` (named by content: a frame shown on several pages, or
built twice, is one file) and the widget keeps only that file's URL (``format="url"``, which the
widget manager's ``ImageView`` puts in ``<img src>`` as it is). The widget manager renders only
the selected child of a ``Stack``, so a page loads its initial frames and fetches one more per
move of a control, from the same site, with no kernel and no network beyond it.

Beside the state, the page gets the cut of each frame into panels for phones (``rkm_panels.py``,
a ``<script class="rkm-frame-cuts" type="application/json">`` keyed by file name), so the book's
script lays panels out without reading pixels. The stored notebooks are untouched (JupyterLab and nbval see the frames inline, as before); the
SHA-256 in each explorer's manifest is also the frame's file name. Relative URLs (``pathto``) keep
the site movable: it works from any folder of a static host.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
FRAMES = "_static/frames"
#: the image formats written out (ipywidgets ``Image.format``); others stay inline
FORMATS = {"png", "jpeg", "gif", "svg+xml", "webp"}
EXTENSIONS = {"svg+xml": "svg", "jpeg": "jpg"}


def _image_values(state: dict):
    """``(fields, buffer)`` of every image widget's value in a parsed widget state."""
    for model in state.get("state", {}).values():
        if model.get("model_name") == "ImageModel":
            fields = model.get("state", {})
            for buffer in model.get("buffers", []):
                if buffer.get("path") == ["value"] and buffer.get("encoding") == "base64":
                    yield fields, buffer


def externalise(state_json: str, save, url_of) -> str:
    """The widget state ``state_json`` with every inline image replaced by its file's URL.

    ``save(name, data)`` writes the bytes ``data`` as ``FRAMES/name``; ``url_of(name)`` is the URL
    of that file as the page refers to it. A state without inline images is returned unchanged.
    """
    state = json.loads(state_json)
    changed = False
    for fields, buffer in _image_values(state):
        if fields.get("format") in FORMATS:
            data = base64.b64decode(buffer["data"])
            name = f"{hashlib.sha256(data).hexdigest()}.{EXTENSIONS.get(fields['format'], fields['format'])}"
            save(name, data)
            buffer["data"] = base64.b64encode(url_of(name).encode("utf-8")).decode("ascii")
            fields["format"] = "url"
            changed = True
    if not changed:
        return state_json
    # inside <script>: a "</" in a string (an HTML widget's markup) must not close the element
    return json.dumps(state, separators=(",", ":"), sort_keys=True).replace("</", "<\\/")


def _frames_on_demand(app, pagename, templatename, context, doctree):
    if app.builder.format != "html" or "script_files" not in context:
        return
    from sphinx.builders.html._assets import _JavaScript

    folder = Path(app.outdir) / FRAMES

    def save(name, data):
        path = folder / name
        if not path.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(path.suffix + ".part")
            temporary.write_bytes(data)
            temporary.replace(path)  # never a half-written frame under the final name

    def url_of(name):
        return context["pathto"](f"{FRAMES}/{name}", 1)

    scripts, frames = [], {}
    for asset in context["script_files"]:
        attributes = dict(getattr(asset, "attributes", {}) or {})
        if attributes.get("type") == WIDGET_STATE and attributes.get("body"):
            body = externalise(attributes["body"], lambda name, data: frames.setdefault(name, data), url_of)
            if body is not attributes["body"]:
                attributes["body"] = body
                asset = _JavaScript(asset.filename,
                                    priority=getattr(asset, "priority", 500), **attributes)
        scripts.append(asset)
    if frames:
        for name, data in frames.items():
            save(name, data)
        # where a phone cuts each frame into panels (rkm_panels.py), read by rkm_book.js
        cuts = {name: _cut(name, data) for name, data in sorted(frames.items()) if name.endswith(".png")}
        body = json.dumps({name: c for name, c in cuts.items() if c is not None}, separators=(",", ":"))
        scripts.append(_JavaScript(None, priority=500, type="application/json", body=body,
                                   **{"class": "rkm-frame-cuts"}))
    context["script_files"] = scripts


_CUTS: dict = {}  # file name (the frame's SHA-256) -> its cut: a frame on several pages is cut once


def _cut(name, data):
    if name not in _CUTS:
        import rkm_panels  # book/_ext is on the path (_config.yml's local_extensions)

        _CUTS[name] = rkm_panels.cut_png(data)
    return _CUTS[name]


_STATE_SCRIPT = re.compile(r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S)


def frames_used(html: str) -> set[str]:
    """The frame files a written page refers to (its widget state's image URLs)."""
    return {base64.b64decode(buffer["data"]).decode("utf-8").rsplit("/", 1)[-1]
            for match in _STATE_SCRIPT.finditer(html)
            for fields, buffer in _image_values(json.loads(match.group(1))) if fields.get("format") == "url"}


def _drop_unused_frames(app, exception):
    """Frames of earlier builds that no page shows any more (a notebook re-executed): the folder
    keeps only what the site refers to, so a deployed site carries no stale frames."""
    folder = Path(app.outdir) / FRAMES
    if exception is not None or app.builder.format != "html" or not folder.is_dir():
        return
    used = set()
    for page in Path(app.outdir).rglob("*.html"):
        used |= frames_used(page.read_text(encoding="utf-8", errors="replace"))
    for path in folder.iterdir():
        if path.name not in used:
            path.unlink()


def setup(app):
    # before rkm_book's asset filter (900), after myst-nb adds the page's widget state (500)
    app.connect("html-page-context", _frames_on_demand, priority=800)
    app.connect("build-finished", _drop_unused_frames)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
