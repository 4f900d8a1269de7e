"""Shared machinery of the interactive explorers.

Every explorer follows the same pattern, "fit once, update by cheap slicing":

* the constructor does all the expensive work once (a random feature draw, an exact Gram
  matrix, ...) and builds one matplotlib :class:`~matplotlib.figure.Figure`;
* moving a control only recomputes what depends on it, updates the existing artists in place
  (``set_data``, ``set_ydata``), renders the figure to PNG and puts that PNG into an
  :class:`ipywidgets.Output`.

Contract (what notebooks and tests rely on): ``update(**values)`` sets controls and redraws
once; ``png_`` holds the bytes last shown; ``output`` is an :class:`~ipywidgets.Output` whose
single ``display_data`` output carries that PNG as ``image/png``. Why PNG bytes written straight
into ``Output.outputs`` instead of ``with output: plt.show()``? Because it does not depend on
the matplotlib backend nor on the kernel routing display messages to the widget: the same code
works live in Jupyter, when a notebook is executed headless by ``nbclient`` (the stored widget
state then contains the initial figure, so the static HTML book shows it), and in plain
``pytest`` with the Agg backend.

The fast path (budget: 100 ms from a control change to the new PNG in the Output widget)
-----------------------------------------------------------------------------------------
The recomputation behind an update takes a few milliseconds; almost all of the time of a naive
update goes into matplotlib drawing *every* artist again (mostly text: each tick label is laid
out and rasterised glyph by glyph) and into the PNG encoder. Two measures remove that cost:

1. **Blitting on Agg.** Subclasses list the artists that ``_redraw`` changes in
   ``self._dynamic_artists`` (via :meth:`BaseExplorer._mark_dynamic`). A full draw renders the
   figure once with the *overlay* left out (temporarily marked animated) and keeps those
   pixels (``copy_from_bbox``), then draws the overlay on top; an update restores the kept
   pixels (``restore_region``) and draws only the overlay. The overlay of an Axes is
   every artist that Axes draws at or after its first dynamic artist, in the Axes' own order
   (stable sort by zorder), so the pixels are those of a full draw: nothing drawn above a
   dynamic artist can be stale, nothing below it is drawn twice. Subclasses therefore give
   dynamic artists a high zorder when a costly static artist (a legend) would otherwise have to
   be redrawn on every update.
2. **A cheap PNG encoder.** matplotlib's ``print_png`` goes through Pillow with adaptive row
   filters and zlib level 6. Here the RGBA buffer is written with filter type 0 and zlib level
   :attr:`BaseExplorer.png_compress_level` (1): our figures are flat colours and
   nearest-neighbour heat maps, which zlib's string matching compresses well without filters,
   so the file is no larger and encoding is several times faster (see
   ``benchmarks/bench_widgets.py``).

Blitting is an optimisation, never a source of truth: an update falls back to a full draw
whenever the cached pixels could be wrong, i.e. when any Axes' view limits, scales or position,
the canvas size or dpi, or the overlay itself (membership, order, visibility) differ from the
last full draw, when :meth:`BaseExplorer._invalidate_background` was called, when no artist
was marked dynamic, or when ``fast_updates`` is ``False``; ``last_render_`` says which path
an update took. ``_redraw`` may therefore autoscale freely, but limits that move on every
update make every update a full draw (FenchelYoungExplorer snaps its limits to a ladder of
round numbers for that reason). An artist that ``_redraw`` changes without marking it dynamic
(nor drawing it after a dynamic artist of its Axes) would show stale pixels: that is a bug,
which ``tests/test_widgets.py`` catches by comparing the blitted PNG with a fresh full render
of the same state. The blitting assumes that Axes do not overlap one another (true for the
layouts used here).
"""
from __future__ import annotations

import base64
import contextlib
import struct
import zlib
from operator import methodcaller

import ipywidgets as widgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["ExplorerBox", "BaseExplorer", "encode_png"]

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


def encode_png(rgba, compress_level: int = 1) -> bytes:
    """Encode an 8-bit RGBA image as PNG, fast.

    Every row uses PNG filter type 0 (none) and the data is compressed by zlib at
    ``compress_level``. For figures made of flat colours, text and nearest-neighbour heat maps
    this is several times faster than matplotlib's ``print_png`` (Pillow, adaptive filters,
    level 6) for a file of about the same size.

    Parameters
    ----------
    rgba : array-like of shape (height, width, 4), dtype uint8
        The pixels, e.g. ``canvas.buffer_rgba()`` of a
        :class:`~matplotlib.backends.backend_agg.FigureCanvasAgg`.
    compress_level : int, default=1
        zlib level in ``[0, 9]``; 1 is the fastest that still compresses.

    Returns
    -------
    bytes
        A complete PNG file (colour type 6, RGBA, 8 bits per channel).

    Raises
    ------
    ValueError
        If ``rgba`` is not a ``(height, width, 4)`` uint8 array or ``compress_level`` is not an
        integer in ``[0, 9]``.
    """
    rgba = np.asarray(rgba)
    if rgba.dtype != np.uint8 or rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.size == 0:
        raise ValueError(
            f"rgba must be a non-empty (height, width, 4) uint8 array, got dtype {rgba.dtype} "
            f"and shape {rgba.shape}; pass canvas.buffer_rgba() of an Agg canvas."
        )
    if isinstance(compress_level, bool) or not isinstance(compress_level, (int, np.integer)) \
            or not 0 <= compress_level <= 9:
        raise ValueError(
            f"compress_level must be an integer in [0, 9], got {compress_level!r}; "
            f"use 1 for speed."
        )
    height, width, _ = rgba.shape
    # Each PNG row is one filter-type byte followed by the row's pixels.
    rows = np.empty((height, 1 + 4 * width), dtype=np.uint8)
    rows[:, 0] = 0
    rows[:, 1:] = rgba.reshape(height, 4 * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"".join((
        _PNG_SIGNATURE,
        _png_chunk(b"IHDR", header),
        _png_chunk(b"IDAT", zlib.compress(rows, int(compress_level))),
        _png_chunk(b"IEND", b""),
    ))


class ExplorerBox(widgets.VBox):
    """A :class:`ipywidgets.VBox` with a short, deterministic text representation.

    The default ``repr`` of a box lists its children with all their non-default traits, which
    for an :class:`~ipywidgets.Output` includes the base64 PNG it shows. That text would land in
    the notebook's ``text/plain`` output and make regression tools (nbval) compare image bytes.
    """

    def __init__(self, children, *, label: str, **kwargs):
        super().__init__(children, **kwargs)
        self._label = label

    def __repr__(self) -> str:
        return self._label


@contextlib.contextmanager
def _left_out_of_draw(artists):
    """Temporarily mark ``artists`` animated, which ``canvas.draw()`` leaves out.

    Animated rather than invisible: Axes still lay out an animated title (an invisible one
    has an empty extent, and the Axes would move the visible title out of the figure).
    """
    for artist in artists:
        artist.set_animated(True)
    try:
        yield
    finally:
        for artist in artists:
            artist.set_animated(False)


class BaseExplorer:
    """Base class: controls, one figure, ``update(**values)`` and static rendering.

    Subclasses create ``self.figure`` (with :meth:`_new_figure`) and their artists, mark the
    artists that :meth:`_redraw` changes with :meth:`_mark_dynamic`, fill ``self.controls`` (a
    dict from keyword name to an ipywidgets value widget), implement :meth:`_redraw` (update the
    artists from the current control values) and then call :meth:`_finish_init`.

    Attributes
    ----------
    fast_updates : bool
        Whether updates may blit (default ``True``). ``False`` makes every update a full draw,
        the reference the fast path is tested and benchmarked against.
    last_render_ : {"full", "fast"}
        How the PNG in :attr:`png_` was produced.
    png_ : bytes
        The PNG last shown in the widget.
    """

    #: dots per inch of the PNG shown in the widget; small enough to keep updates fast.
    dpi = 80
    #: zlib level of the PNG (see :func:`encode_png`): 1 is the fastest that still compresses.
    png_compress_level = 1
    #: class default of :attr:`fast_updates`.
    fast_updates = True

    def __init__(self) -> None:
        self.controls: dict[str, widgets.ValueWidget] = {}
        self.output = widgets.Output()
        self._updating = False
        self.png_: bytes | None = None
        self.last_render_: str | None = None
        self._dynamic_artists: list[Artist] = []
        self._background = None
        self._background_key = None
        self._overlay: list[Artist] = []

    # -- construction -------------------------------------------------------------------
    def _new_figure(self, figsize: tuple[float, float]) -> Figure:
        # A bare Figure (not pyplot): it is never registered with pyplot, so the inline backend
        # does not show a second, static copy of it at the end of the notebook cell. Its dpi is
        # the PNG's dpi, so text extents cached at the first draw are reused by every update.
        figure = Figure(figsize=figsize, dpi=self.dpi, layout="constrained")
        FigureCanvasAgg(figure)
        return figure

    def _mark_dynamic(self, *artists: Artist) -> None:
        """Declare artists that :meth:`_redraw` changes (drawn on every fast update).

        Call it while building the figure, before :meth:`_finish_init`. Every artist that its
        Axes draws after the first dynamic one (higher zorder: spines, titles, a legend) is
        redrawn on each fast update too, so keep costly static artists below the dynamic ones.

        Parameters
        ----------
        *artists : matplotlib.artist.Artist
            Direct children of an Axes of :attr:`figure` (lines, images, ``ax.title``, ...) or
            of the figure itself.

        Raises
        ------
        ValueError
            If an artist is not a direct child of an Axes or of the figure: its parent draws it
            as part of something larger, which cannot be redrawn on its own.
        """
        for artist in artists:
            container = self._container(artist)
            if container is None or not any(
                    child is artist for child in container.get_children()):
                raise ValueError(
                    f"_mark_dynamic() got {artist!r}, which is not a direct child of an Axes "
                    f"of this explorer's figure nor of the figure; mark its parent instead."
                )
            if not any(known is artist for known in self._dynamic_artists):
                self._dynamic_artists.append(artist)
        self._invalidate_background()

    def _finish_init(self) -> None:
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        controls_box = widgets.HBox(list(self.controls.values()))
        self.widget = ExplorerBox([controls_box, self.output], label=repr(self))
        self._redraw()
        # Constrained layout costs about as much as drawing the figure itself. Run it once,
        # for the initial data and with every artist taking part (the background draw leaves
        # the dynamic ones out), then freeze the Axes where it put them: later updates change
        # data and titles, not the figure's structure.
        self.figure.get_layout_engine().execute(self.figure)
        self.figure.set_layout_engine("none")
        self._render()

    # -- updating -----------------------------------------------------------------------
    def _on_change(self, change) -> None:
        if not self._updating:
            self._render()

    def update(self, **values) -> None:
        """Set one or more controls and redraw once.

        Parameters
        ----------
        **values
            Control name to new value, e.g. ``update(n_features=64)``. The names are the keys
            of :attr:`controls`.

        Raises
        ------
        ValueError
            If a name is not a control of this explorer, or a value lies outside the control's
            range (a slider would otherwise silently clip it and show something else).
        """
        for name, value in values.items():
            if name not in self.controls:
                raise ValueError(
                    f"update() got an unknown control {name!r}; "
                    f"use one of {sorted(self.controls)}."
                )
            control = self.controls[name]
            low = getattr(control, "min", None)
            high = getattr(control, "max", None)
            if isinstance(control, widgets.FloatLogSlider):  # min/max are exponents there
                low, high = control.base ** low, control.base ** high
            if low is not None and not (low <= value <= high):
                raise ValueError(
                    f"{name}={value!r} is outside the control's range [{low}, {high}]; "
                    f"pass a value inside it."
                )
        self._updating = True
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._updating = False
        self._render()

    def _invalidate_background(self) -> None:
        """Make the next render a full draw (call after changing anything not dynamic)."""
        self._background = None

    def _render(self) -> None:
        self._redraw()
        if self.fast_updates and self._background_is_valid():
            self._draw_fast()
        else:
            self._draw_full()
        self.png_ = encode_png(self.figure.canvas.buffer_rgba(), self.png_compress_level)
        self.output.outputs = (
            {
                "output_type": "display_data",
                "data": {
                    "image/png": base64.b64encode(self.png_).decode("ascii"),
                    "text/plain": f"<{type(self).__name__} figure>",
                },
                "metadata": {},
            },
        )

    def _redraw(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- drawing ------------------------------------------------------------------------
    def _container(self, artist: Artist):
        """The Axes or Figure whose ``draw`` draws ``artist``, or None if not in our figure."""
        if artist.axes is not None and artist.axes is not artist:
            return artist.axes if artist.axes.get_figure(root=True) is self.figure else None
        return self.figure if artist.get_figure(root=True) is self.figure else None

    @staticmethod
    def _drawn_children(container) -> list[Artist]:
        """The children ``container.draw`` draws, in its order (mirrors Axes/Figure.draw)."""
        children = container.get_children()
        children.remove(container.patch)
        if isinstance(container, Axes):
            skipped = []
            if not (container.axison and container.get_frame_on()):
                skipped += container.spines.values()
            if not container.axison:
                skipped += [child for child in children if isinstance(child, Axis)]
            children = [c for c in children if not any(c is s for s in skipped)]
        children = [c for c in children if not c.get_animated()]
        return sorted(children, key=methodcaller("get_zorder"))

    def _overlay_artists(self) -> list[Artist] | None:
        """Artists redrawn by a fast update, in drawing order; None if blitting cannot work."""
        if not self._dynamic_artists:  # nothing declared: the safe reading is "all may change"
            return None
        containers = []
        for artist in self._dynamic_artists:
            container = self._container(artist)
            if container is None:
                return None
            if not any(container is known for known in containers):
                containers.append(container)
        overlay = []
        for container in containers:
            if getattr(container, "_rasterization_zorder", None) is not None:
                return None  # rasterised artists are drawn in a separate first pass
            drawn = self._drawn_children(container)
            first = next((i for i, child in enumerate(drawn)
                          if any(child is d for d in self._dynamic_artists)), None)
            if first is None:  # no dynamic artist is drawn (e.g. all animated)
                continue
            overlay += [child for child in drawn[first:] if child.get_visible()]
        return overlay

    def _layout_key(self):
        """Everything whose change invalidates the cached background pixels."""
        figure = self.figure
        key = [figure.canvas.get_width_height(), figure.dpi, self.dpi,
               tuple(figure.get_size_inches())]
        for ax in figure.axes:
            key.append((
                ax.get_visible(), ax.get_position().bounds, ax.viewLim.bounds,
                ax.get_xscale(), ax.get_yscale(),
            ))
        overlay = self._overlay_artists()
        key.append(None if overlay is None else tuple(
            (id(artist), artist.get_zorder()) for artist in overlay))
        return key, overlay

    def _background_is_valid(self) -> bool:
        if self._background is None:
            return False
        key, overlay = self._layout_key()
        return overlay is not None and key == self._background_key

    def _draw_full(self) -> None:
        canvas = self.figure.canvas
        if self.figure.dpi != self.dpi:
            self.figure.set_dpi(self.dpi)
        self.last_render_ = "full"
        overlay = self._overlay_artists() if self.fast_updates else None
        if overlay is None:
            self._background = None
            canvas.draw()
            return
        with _left_out_of_draw(overlay):
            canvas.draw()
        self._background = canvas.copy_from_bbox(self.figure.bbox)
        # The key is taken after the draw: drawing settles some state (an Axes with a fixed
        # aspect moves to its final position), and the key must describe the pixels kept.
        self._background_key, overlay_after = self._layout_key()
        if overlay_after != overlay:  # drawing changed what the overlay is: do not blit
            self._background = None
        self._overlay = overlay
        self._draw_overlay()

    def _draw_fast(self) -> None:
        self.last_render_ = "fast"
        self.figure.canvas.restore_region(self._background)
        self._draw_overlay()

    def _draw_overlay(self) -> None:
        renderer = self.figure.canvas.get_renderer()
        for artist in self._overlay:
            artist.draw(renderer)

    # -- display ------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
