"""Frame explorers: every state rendered once, selected client-side.

An explorer offers a few controls, each with a short *ladder* of meaningful values (``D = 1, 4,
16, ...``, rescaling on/off), instead of a continuous range. It renders one PNG *frame* per
combination of ladder values, once, and its widget stacks the frames:

* one :class:`ipywidgets.Stack` per control, nested (the outer stack selects along the first
  control, each of its children is a stack along the second, ...); the leaves are
  :class:`ipywidgets.Image` widgets holding the frames;
* each control (a :class:`~ipywidgets.SelectionSlider` or :class:`~ipywidgets.ToggleButtons`) is
  tied to the ``selected_index`` of every stack of its level by :func:`ipywidgets.jslink`.

``jslink`` runs in the browser, so the same widget works identically live in JupyterLab and in the
static HTML book (which embeds the widget state written by the notebook execution): moving a
control shows another stored frame, with no kernel and no network. In the kernel, :meth:`update`
sets the controls *and* the stacks, so a headless execution stores a consistent state.

Contract (the book's Python and browser tests rely on it)
---------------------------------------------------------
* ``explorer.widget`` is a box with the CSS class ``rkm-explorer``. Its children are the controls (an HBox),
  the view (the outer stack, class ``rkm-view``) and, last, a hidden
  :class:`ipywidgets.HTML` with the class ``rkm-manifest`` whose text is the JSON
  :attr:`FrameExplorer.manifest`: the explorer's name, its controls (name, description, value
  labels, values), the initial state and, per state, its ladder indices and the SHA-256 of its PNG.
* ``explorer.render(**state)`` returns the PNG bytes of one state's frame, computed afresh and
  deterministic: ``sha256(explorer.render(**state))`` equals the manifest's entry. Frames are drawn
  with the Agg renderer under fixed rc parameters (matplotlib's defaults plus :data:`FRAME_RC`,
  whatever the user's matplotlibrc says) and encoded by :func:`encode_png`, which writes no
  metadata (no time stamp, no software name).
* Frames are drawn at :attr:`FrameExplorer.scale` (1.5) pixels per displayed pixel: the widget
  shows a frame ``figsize * dpi`` pixels wide (the text column), so it is sharp on high-density
  screens, and a phone (book CSS) shows it at a legible width inside a horizontal scroll box.
* Control labels may be typeset maths: TeX between ``$`` signs in a :class:`Ladder`'s
  description or value labels (``"$\\sigma^2$"``) is shown typeset (see :class:`Ladder`).
* Frames are the same on every machine: the data of lines and images are rounded to 24
  significant bits before drawing (:func:`snap`), and numbers printed in frames are never
  rounding-level digits (use :func:`format_bound` for agreement errors). The explorer's text form
  (:meth:`FrameExplorer.summary`) ends with a digest of the frames' pixels, which nbval compares
  with the stored one.
"""
from __future__ import annotations

import hashlib
import html
import itertools
import json
import re
import struct
import zlib
from dataclasses import dataclass

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .._validation import check_array

__all__ = ["Ladder", "FrameExplorer", "encode_png", "reduce_colours", "snap", "format_bound",
           "tex_label", "FRAME_RC"]

#: rc parameters of every frame (on top of matplotlib's defaults). Fonts in points: at the frame
#: width of 7.8 in shown at 780 px (100 dpi, no scaling in a 784 px column), 10 pt is 14 px
#: (drawn with FrameExplorer.scale times as many pixels).
FRAME_RC = {
    "font.size": 10.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 10.0,
    "legend.fontsize": 9.0,
    "xtick.labelsize": 9.0,
    "ytick.labelsize": 9.0,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "image.interpolation": "nearest",
    "path.simplify": True,
}

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


def _unpack(colours):
    """Packed ``0xRRGGBB`` integers to an ``(n, 3)`` int32 array."""
    return np.stack([(colours >> 16) & 255, (colours >> 8) & 255, colours & 255],
                    axis=1).astype(np.int32)


def reduce_colours(pixels, max_colours=256):
    """Map an RGB image onto at most ``max_colours`` of its own colours, deterministically.

    Frames are flat colours plus the anti-aliased shades at their edges; a palette of the most
    frequent colours holds every flat colour and the common shades, and each rarer shade is
    replaced by the nearest palette colour (squared RGB distance; ties to the smaller colour
    value). The palette is chosen by count (ties by colour value) with integer arithmetic only,
    so the result is the same on every machine. Typical frames change in well under 1 % of
    their pixels, invisibly, and their PNG shrinks by half (one byte per pixel instead of three).

    Parameters
    ----------
    pixels : ndarray of shape (height, width, 3), dtype uint8
    max_colours : int, default=256

    Returns
    -------
    palette : ndarray of shape (n_colours, 3), dtype uint8
        Sorted by packed colour value.
    indices : ndarray of shape (height, width), dtype uint8
        Index into ``palette`` of every pixel.
    """
    height, width, _ = pixels.shape
    packed = (pixels[:, :, 0].astype(np.int64) << 16) | (pixels[:, :, 1].astype(np.int64) << 8) \
        | pixels[:, :, 2]
    colours, inverse, counts = np.unique(packed.ravel(), return_inverse=True, return_counts=True)
    if colours.size <= max_colours:
        return _unpack(colours).astype(np.uint8), inverse.reshape(height, width).astype(np.uint8)
    kept = np.sort(colours[np.lexsort((colours, -counts))[:max_colours]])
    kept_rgb, nearest = _unpack(kept), np.empty(colours.size, dtype=np.intp)
    for start in range(0, colours.size, 2048):  # bounded memory: 2048 x 256 distances at a time
        chunk = _unpack(colours[start:start + 2048])
        distances = ((chunk[:, None, :] - kept_rgb[None, :, :]) ** 2).sum(axis=2)
        nearest[start:start + 2048] = np.argmin(distances, axis=1)  # first minimum on ties
    return kept_rgb.astype(np.uint8), nearest[inverse].reshape(height, width).astype(np.uint8)


def encode_png(rgba) -> bytes:
    """Encode an opaque 8-bit image as a small, deterministic, indexed-colour PNG.

    The alpha channel is dropped (frames are drawn on an opaque white figure) and the colours
    are reduced to a palette of at most 256 by :func:`reduce_colours`. Rows are stored unfiltered
    (filter type 0, the best for palette images of flat colours) and compressed by :mod:`zlib`
    at level 9. Only the ``IHDR``, ``PLTE``, ``IDAT`` and ``IEND`` chunks are written: no time
    stamp, no software name, so the bytes depend on the pixels only (and on zlib, whose output
    for a given level is stable).

    Why not Pillow (issue 23): the frames stored in the book must keep their bytes, and Pillow
    cannot write them. Its PNG encoder deflates with zlib's ``memLevel=9`` (fixed in its C code;
    :func:`zlib.compress` uses 8) and splits ``IDAT`` at 64 KiB, so its file differs for every
    stored frame (118 of 118, same chunks, palette and filtered rows otherwise); and its
    palette mapping (``quantize(palette=...)``) looks colours up in a cache of 6-bit cells, so it
    is not the nearest colour (white, itself in the palette, became ``(252, 252, 252)``).

    Parameters
    ----------
    rgba : array-like of shape (height, width, 4) or (height, width, 3), dtype uint8
        The pixels, e.g. ``canvas.buffer_rgba()`` of an Agg canvas.

    Returns
    -------
    bytes
        A complete PNG file (colour type 3, 8 bits per index).

    Raises
    ------
    ValueError
        If ``rgba`` is not a non-empty ``(height, width, 3 or 4)`` uint8 array, or has
        transparent pixels.
    """
    pixels = np.asarray(rgba)
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] not in (3, 4) \
            or pixels.size == 0:
        raise ValueError(
            f"rgba must be a non-empty (height, width, 3 or 4) uint8 array, got dtype "
            f"{pixels.dtype} and shape {pixels.shape}; pass canvas.buffer_rgba() of an Agg canvas."
        )
    if pixels.shape[2] == 4:
        if np.any(pixels[:, :, 3] != 255):
            raise ValueError(
                "rgba has transparent pixels; draw the frame on an opaque figure "
                "(figure.facecolor 'white')."
            )
        pixels = pixels[:, :, :3]
    height, width, _ = pixels.shape
    palette, indices = reduce_colours(pixels)
    rows = np.zeros((height, 1 + width), dtype=np.uint8)  # first byte of a row: filter type 0
    rows[:, 1:] = indices
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join((
        _PNG_SIGNATURE,
        _png_chunk(b"IHDR", header),
        _png_chunk(b"PLTE", palette.tobytes()),
        _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)),
        _png_chunk(b"IEND", b""),
    ))


def snap(values, *, relative=False, bits=24):
    """Round floating-point values to a grid 2^-bits (about 1e-7) as fine as their scale.

    Data computed on two machines may differ in their last bits (another BLAS kernel, another
    thread count), and a value that is zero up to rounding may be ``-3e-15`` on one and
    ``+2e-15`` on the other. Drawn as they are, such differences can move an anti-aliased edge
    by a 1/256 pixel step, or change how a path is simplified, somewhere in a frame. Rounded
    first, the values are identical, except in the rare case (about one in 10^8 per value) that
    one lies within rounding of a grid boundary. Invisible: 2^-24 of an axis span is far below
    a pixel.

    Parameters
    ----------
    values : array-like of float
    relative : bool, default=False
        ``False``: one absolute grid, the power of two just above ``max |values|`` times
        ``2^-bits`` (values at rounding level become exactly 0; for linear axes and colour
        scales). ``True``: each value rounded to ``bits`` significant bits (for log axes).
    bits : int, default=24

    Returns
    -------
    ndarray
        Same shape; non-finite values unchanged.
    """
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    if not finite.any():
        return values
    with np.errstate(invalid="ignore", over="ignore"):
        if relative:
            mantissa, exponent = np.frexp(values)
            snapped = np.ldexp(np.round(np.ldexp(mantissa, bits)), exponent - bits)
        else:
            top = float(np.abs(values[finite]).max())
            if top == 0.0:
                return values
            step = 2.0 ** (int(np.ceil(np.log2(top))) - bits)
            snapped = np.round(values / step) * step
    return np.where(finite, snapped, values)


def _all_axes(figure) -> list:
    """The Axes of a figure and of its subfigures, recursively."""
    axes = list(figure.axes)
    for sub in figure.subfigs:
        axes += _all_axes(sub)
    return axes


def _snap_artists(figure) -> None:
    """Apply :func:`snap` to the data of every line and image of a figure (see there why).

    Coordinates along a log-scaled axis are snapped relatively, all others absolutely; then the
    axis limits (which are computed from data too) are snapped the same way.
    """
    for ax in _all_axes(figure):
        log = (ax.get_xscale() == "log", ax.get_yscale() == "log")
        for line in ax.get_lines():
            coordinates = []
            for data, relative in zip(line.get_data(orig=True), log):
                data = np.asarray(data)
                coordinates.append(snap(data, relative=relative) if data.dtype.kind == "f"
                                   else data)
            line.set_data(*coordinates)
        for image in ax.get_images():
            array = image.get_array()
            if array is not None and np.asarray(array).dtype.kind == "f":
                image.set_data(snap(np.ma.getdata(array)))
        # Limits computed from data (autoscaled, or set from a maximum) move every drawn point.
        ax.set_xlim(*snap(ax.get_xlim(), relative=log[0]), auto=None)
        ax.set_ylim(*snap(ax.get_ylim(), relative=log[1]), auto=None)


def format_bound(value: float, bound: float) -> str:
    """Print ``value`` portably: its digits if above ``bound``, else ``"<= bound"``.

    Agreement errors at rounding level (``2.2e-16`` on one machine, ``0`` or ``4.4e-16`` on
    another) must not appear as digits in a stored frame or output; the bound they meet is
    the same everywhere.

    Parameters
    ----------
    value : float
    bound : float
        The rounding-level threshold, e.g. ``1e-12``.

    Returns
    -------
    str
        ``f"{value:.2e}"`` or ``f"<= {bound:.0e}"``.
    """
    return f"{value:.2e}" if abs(value) > bound else f"<= {bound:.0e}"


_TEX = re.compile(r"\$([^$]+)\$")


def tex_label(text: str) -> str:
    """A control label for the widget: TeX between ``$`` signs becomes ``\\(...\\)``.

    ipywidgets typesets a control's description with MathJax, whose inline delimiters in the book
    (and in JupyterLab) are ``\\(...\\)``; the book's script (``book/_static/rkm_book.js``)
    typesets the value labels of an explorer's controls (buttons, slider read-out) the same way.
    Text without ``$`` is returned unchanged, so plain labels stay plain.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    return _TEX.sub(lambda match: "\\(" + match.group(1) + "\\)", text)


@dataclass(frozen=True)
class Ladder:
    """One control of an explorer: its keyword, its label and its ladder of values.

    Parameters
    ----------
    name : str
        Keyword of the state (``explorer.render(**{name: value})``).
    description : str
        Label shown beside the control: plain text, or with TeX between ``$`` signs, shown
        typeset (``r"$\\sigma^2 / \\lambda_q$"``; see :func:`tex_label`).
    values : tuple
        The values, in the order the control offers them.
    labels : tuple of str
        How each value reads on the control (default ``str(value)``); TeX between ``$`` signs
        is typeset in the book (``r"$U = \\tilde U \\Lambda^{1/2}$"``; JupyterLab shows the
        TeX of value labels as typed, and typesets descriptions).
    style : {"slider", "buttons"}
        A :class:`~ipywidgets.SelectionSlider` or :class:`~ipywidgets.ToggleButtons`.
    """

    name: str
    description: str
    values: tuple
    labels: tuple = ()
    style: str = "slider"

    @property
    def widget_description(self) -> str:
        """The description as the widget shows it (:func:`tex_label`)."""
        return tex_label(self.description)

    @property
    def widget_labels(self) -> tuple:
        """The value labels as the widget shows them (:func:`tex_label`)."""
        return tuple(tex_label(label) for label in self.labels)

    def __post_init__(self):
        values = tuple(self.values)
        labels = tuple(self.labels) if self.labels else tuple(str(v) for v in values)
        if not values:
            raise ValueError(f"the ladder of {self.name!r} is empty; give at least one value.")
        if len(labels) != len(values) or len(set(labels)) != len(labels):
            raise ValueError(
                f"the ladder of {self.name!r} needs one distinct label per value; got "
                f"{len(labels)} labels for {len(values)} values."
            )
        if self.style not in ("slider", "buttons"):
            raise ValueError(f"style={self.style!r} is not supported; use 'slider' or 'buttons'.")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "labels", labels)

    def index(self, value) -> int:
        """Position of ``value`` on the ladder.

        Raises
        ------
        ValueError
            If ``value`` is not on the ladder (the explorer has no frame for it).
        """
        flag = isinstance(value, (bool, np.bool_))
        for i, known in enumerate(self.values):
            if isinstance(known, (bool, np.bool_)) != flag:
                continue  # True is not the value 1 here
            try:
                if known == value:
                    return i
            except (TypeError, ValueError):  # e.g. an array compared with a number
                continue
        raise ValueError(
            f"{self.name}={value!r} is not on the explorer's ladder; use one of "
            f"{list(self.values)}."
        )


def _json_value(value):
    """A ladder value as JSON (numpy scalars as Python numbers)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    return str(value)


class FrameExplorer:
    """Base class of the explorers: a ladder per control, one frame per state.

    Subclasses do their expensive work in ``__init__``, set :attr:`ladders` (a tuple of
    :class:`Ladder`) and :attr:`initial` (a dict from control name to a ladder value), and
    implement :meth:`draw`, which draws one state into a fresh figure. Everything else (the
    frames, the widget, the manifest, :meth:`update`) is here.

    Attributes
    ----------
    ladders : tuple of Ladder
    initial : dict
        The state the widget shows first.
    figsize : tuple of float
        Frame size in inches (class attribute); the width stays at 7.8 in so that a frame is
        shown at its natural size in the book's text column.
    dpi : float
        Displayed pixels per inch (class attribute): the widget shows a frame
        ``figsize[0] * dpi`` pixels wide.
    scale : float
        Frame pixels per displayed pixel (class attribute; at least 1.5, which the book's
        browser test requires): frames are drawn at ``dpi * scale`` dots per inch, with the same
        layout and fonts, so they stay sharp on high-density screens and when a phone shows
        them at a legible width. 1.5, not 2: a palette PNG grows about linearly with the scale,
        and a chapter embeds every frame of its explorers.
    """

    figsize = (7.8, 3.2)
    dpi = 100
    scale = 1.5

    ladders: tuple = ()
    initial: dict = {}

    # -- subclass interface ---------------------------------------------------------------
    def draw(self, figure: Figure, **state) -> None:  # pragma: no cover - abstract
        """Draw the frame of ``state`` into ``figure`` (an empty, constrained-layout figure)."""
        raise NotImplementedError

    # -- states ---------------------------------------------------------------------------
    @property
    def names(self) -> tuple:
        """Control names, in the order of :attr:`ladders` (and of the nested stacks)."""
        return tuple(ladder.name for ladder in self.ladders)

    def check_state(self, **state) -> dict:
        """Complete a (partial) state with :attr:`initial` and check it is on the ladders.

        Returns
        -------
        dict
            Every control name to a ladder value, in ladder order.

        Raises
        ------
        ValueError
            If a name is not a control, or a value is not on its ladder.
        """
        unknown = sorted(set(state) - set(self.names))
        if unknown:
            raise ValueError(f"unknown control(s) {unknown}; use {list(self.names)}.")
        full = {}
        for ladder in self.ladders:
            value = state.get(ladder.name, self.initial[ladder.name])
            full[ladder.name] = ladder.values[ladder.index(value)]
        return full

    def states(self) -> list:
        """Every state (dict), the last control varying fastest."""
        return [dict(zip(self.names, values))
                for values in itertools.product(*(ladder.values for ladder in self.ladders))]

    def indices(self, **state) -> tuple:
        """Ladder positions of a state."""
        state = self.check_state(**state)
        return tuple(ladder.index(state[ladder.name]) for ladder in self.ladders)

    # -- frames ---------------------------------------------------------------------------
    def figure(self, **state) -> Figure:
        """The drawn (not yet rasterised) figure of a state, under the frame rc parameters."""
        state = self.check_state(**state)
        with mpl.rc_context():
            mpl.rcdefaults()
            mpl.rcParams.update(FRAME_RC)
            figure = Figure(figsize=self.figsize, dpi=self.dpi * self.scale, layout="constrained")
            FigureCanvasAgg(figure)
            self.draw(figure, **state)
            _snap_artists(figure)
            figure.canvas.draw()
        return figure

    def render(self, **state) -> bytes:
        """PNG bytes of the frame of a state (computed afresh, deterministic).

        Parameters
        ----------
        **state
            Control name to ladder value; missing controls take their initial value.

        Returns
        -------
        bytes
        """
        return encode_png(self.figure(**state).canvas.buffer_rgba())

    @property
    def frames(self) -> dict:
        """Ladder indices (tuple) to PNG bytes, for every state (rendered once, then kept)."""
        if getattr(self, "_frames", None) is None:
            frames, digest = {}, hashlib.sha256()
            for state in self.states():
                pixels = np.ascontiguousarray(self.figure(**state).canvas.buffer_rgba())
                digest.update(pixels.tobytes())
                frames[self.indices(**state)] = encode_png(pixels)
            self._frames, self._pixel_digest = frames, digest.hexdigest()
        return self._frames

    @property
    def manifest(self) -> dict:
        """Machine-readable description of the widget: controls, initial state, frame hashes."""
        return {
            "explorer": type(self).__name__,
            "controls": [
                {"name": ladder.name, "description": ladder.widget_description,
                 "labels": list(ladder.widget_labels),
                 "values": [_json_value(v) for v in ladder.values]}
                for ladder in self.ladders
            ],
            "initial": list(self.indices(**self.initial)),
            "frames": [
                {"index": list(index), "sha256": hashlib.sha256(png).hexdigest()}
                for index, png in self.frames.items()
            ],
        }

    # -- widget ---------------------------------------------------------------------------
    @property
    def widget(self) -> widgets.VBox:
        """The widget to display (built on first access)."""
        if getattr(self, "_widget", None) is None:
            self._build_widget()
        return self._widget

    def _build_widget(self) -> None:
        initial = self.indices(**self.initial)
        self.controls = {}
        for ladder, index in zip(self.ladders, initial):
            options = list(zip(ladder.widget_labels, ladder.values))
            common = dict(options=options, index=index, description=ladder.widget_description,
                          style={"description_width": "initial"})
            margin = "0 24px 4px 0"  # room between a slider's readout and the next control
            if ladder.style == "buttons":
                control = widgets.ToggleButtons(layout=widgets.Layout(margin=margin), **common)
            else:
                width = max(180, min(460, 70 * len(ladder.values)))
                control = widgets.SelectionSlider(
                    continuous_update=True, layout=widgets.Layout(width=f"{width}px", margin=margin),
                    **common)
            control.add_class("rkm-control")
            self.controls[ladder.name] = control
        frames = self.frames
        width_px = int(round(self.figsize[0] * self.dpi))
        # Nested stacks: level k selects along ladder k; every stack of a level is linked to
        # the control of that level.
        self._stacks = [[] for _ in self.ladders]

        def build(level: int, prefix: tuple):
            if level == len(self.ladders):
                # shown at the design width (scale times fewer pixels than drawn), never wider
                # than the column (the book's CSS lets a phone show it wider, in a scroll box)
                image = widgets.Image(value=frames[prefix], format="png", layout=widgets.Layout(
                    width=f"{width_px}px", max_width="100%", height="auto"))
                image.add_class("rkm-frame")
                return image
            ladder = self.ladders[level]
            children = [build(level + 1, prefix + (i,)) for i in range(len(ladder.values))]
            stack = widgets.Stack(children, selected_index=initial[level])
            self._stacks[level].append(stack)
            return stack

        view = build(0, ())
        view.add_class("rkm-view")
        self._links = [
            widgets.jslink((self.controls[ladder.name], "index"), (stack, "selected_index"))
            for ladder, stacks in zip(self.ladders, self._stacks) for stack in stacks
        ]
        manifest = widgets.HTML(value=html.escape(json.dumps(self.manifest, sort_keys=True)),
                                layout=widgets.Layout(display="none"))
        manifest.add_class("rkm-manifest")
        self._widget = _ExplorerBox(
            [widgets.HBox(list(self.controls.values()),
                          layout=widgets.Layout(flex_flow="row wrap")),
             view, manifest],
            label=self.summary(), layout=widgets.Layout(max_width=f"{width_px}px"),
        )
        self._widget.add_class("rkm-explorer")

    @property
    def state(self) -> dict:
        """The state shown (the widget's controls, or :attr:`initial` before it is built)."""
        if getattr(self, "_widget", None) is None:
            return self.check_state()
        return {name: control.value for name, control in self.controls.items()}

    def update(self, **values) -> None:
        """Select a state: set controls, and the stacks, to ladder values.

        Parameters
        ----------
        **values
            Control name to a value on its ladder; other controls keep theirs.

        Raises
        ------
        ValueError
            If a name is not a control or a value is not on its ladder.
        """
        state = self.check_state(**{**self.state, **values})
        if getattr(self, "_widget", None) is None:
            self.initial = state
            return
        for ladder, index in zip(self.ladders, self.indices(**state)):
            self.controls[ladder.name].index = index
            for stack in self._stacks[self.names.index(ladder.name)]:
                stack.selected_index = index

    # -- text -----------------------------------------------------------------------------
    def summary(self) -> str:
        """One line: controls and ladders, number of frames, their size and a pixel digest.

        The digest is the SHA-256 (first 16 hex digits) of the frames' decoded pixels, in state
        order: it changes exactly when a frame looks different, and does not depend on the PNG
        encoder. Notebooks print it (as the widget's text form), so that nbval, which compares
        stored and fresh text outputs, fails when the stored frames are not what the code draws.
        """
        controls = "; ".join(f"{ladder.description} in {{{', '.join(ladder.labels)}}}"
                             for ladder in self.ladders)
        total = sum(len(png) for png in self.frames.values())
        width, height = (int(round(x * self.dpi)) for x in self.figsize)
        return (f"{type(self).__name__}: {controls}; {len(self.frames)} frames of "
                f"{width} x {height} px at {self.scale:g}x, {total / 1e3:.0f} kB; "
                f"pixels sha256 {self._pixel_digest[:16]}")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} with {len(self.states())} states>"

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


class _ExplorerBox(widgets.VBox):
    """A :class:`ipywidgets.VBox` whose text form is a given line, not its children's traits.

    The default ``repr`` of a box lists its children with their non-default traits (here
    megabytes of PNG bytes), which would land in the notebook's ``text/plain`` output.
    """

    def __init__(self, children, *, label: str, **kwargs):
        super().__init__(children, **kwargs)
        self._label = label

    def __repr__(self) -> str:
        return self._label

    def _repr_mimebundle_(self, **kwargs):
        # ipywidgets cuts text/plain at 110 characters; the whole line (with the pixel digest
        # that nbval compares) is the point of it.
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle:
            bundle["text/plain"] = self._label
        return bundle
