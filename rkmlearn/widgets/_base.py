"""Shared machinery of the interactive explorers.

Every explorer follows the same pattern, "fit once, update by cheap slicing":

* the constructor does all the expensive work once (a random feature draw, an exact Gram
  matrix, ...) and builds one matplotlib :class:`~matplotlib.figure.Figure`;
* moving a control only recomputes what depends on it, updates the existing artists in place
  (``set_data``, ``set_ydata``), renders the figure to PNG and puts that PNG into an
  :class:`ipywidgets.Output`.

Why PNG bytes written straight into ``Output.outputs`` instead of ``with output: plt.show()``?
Because it does not depend on the matplotlib backend nor on the kernel routing display
messages to the widget: the same code works live in Jupyter, when a notebook is executed
headless by ``nbclient`` (the stored widget state then contains the initial figure, so the
static HTML book shows it), and in plain ``pytest`` with the Agg backend.
"""
from __future__ import annotations

import base64
import io

import ipywidgets as widgets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["ExplorerBox", "BaseExplorer"]


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


class BaseExplorer:
    """Base class: controls, one figure, ``update(**values)`` and static rendering.

    Subclasses create ``self.figure`` and their artists, fill ``self.controls`` (a dict from
    keyword name to an ipywidgets value widget), implement :meth:`_redraw` (update the artists
    from the current control values) and then call :meth:`_finish_init`.
    """

    #: dots per inch of the PNG shown in the widget; small enough to keep updates fast.
    dpi = 80

    def __init__(self) -> None:
        self.controls: dict[str, widgets.ValueWidget] = {}
        self.output = widgets.Output()
        self._updating = False
        self.png_: bytes | None = None

    # -- construction -------------------------------------------------------------------
    def _new_figure(self, figsize: tuple[float, float]) -> Figure:
        # A bare Figure (not pyplot): it is never registered with pyplot, so the inline backend
        # does not show a second, static copy of it at the end of the notebook cell. Its dpi is
        # the PNG's dpi, so text extents cached at the first draw are reused by every update.
        figure = Figure(figsize=figsize, dpi=self.dpi, layout="constrained")
        FigureCanvasAgg(figure)
        return figure

    def _finish_init(self) -> None:
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        controls_box = widgets.HBox(list(self.controls.values()))
        self.widget = ExplorerBox([controls_box, self.output], label=repr(self))
        self._render()
        # Constrained layout costs about as much as drawing the figure itself. Run it once (the
        # first render above), then freeze the axes where it put them: later updates change
        # data and titles, not the figure's structure.
        self.figure.set_layout_engine("none")

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

    def _render(self) -> None:
        self._redraw()
        buffer = io.BytesIO()
        self.figure.canvas.print_png(buffer)
        self.png_ = buffer.getvalue()
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

    # -- display ------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
