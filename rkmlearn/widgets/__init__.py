"""Explorers for the book: every state rendered once, selected in the browser.

Each explorer offers a few controls with a short ladder of meaningful values, renders one PNG
frame per combination once, and shows them through nested :class:`ipywidgets.Stack` widgets
whose ``selected_index`` the controls drive with :func:`ipywidgets.jslink`. The same widget is
live in JupyterLab and works in the static HTML book with no kernel (see :mod:`._base` for the
contract the tests rely on). Every explorer has

* ``.widget``: the widget to display (or display the explorer itself);
* ``.ladders``, ``.states()``, ``.render(**state)`` (PNG bytes of one frame) and ``.manifest``;
* ``update(**values)``: select a state (in the kernel and in the stored widget state);
* accessors for the data a frame shows, for tests and for the chapters' checks.
"""
from .._extras import require_extra

require_extra("book", "rkmlearn.widgets (the book's explorers and figures)")

from .deep import DeepLatentExplorer  # noqa: E402 - after the check of the extra
from .duality import FenchelYoungExplorer, fenchel_young_sides
from .kernels import RFFConvergenceExplorer
from .plotting import annotate_cells, portable_figures
from .ppca import PPCAExplorer
from .recurrent import RecurrentAblationExplorer
from .rescaling import RescalingExplorer
from .stiefel_training import StiefelTrainingExplorer
from .tensor import TensorCouplingExplorer, xor_views

__all__ = [
    "RFFConvergenceExplorer",
    "FenchelYoungExplorer",
    "fenchel_young_sides",
    "RescalingExplorer",
    "StiefelTrainingExplorer",
    "PPCAExplorer",
    "RecurrentAblationExplorer",
    "annotate_cells",
    "portable_figures",
    "DeepLatentExplorer",
    "TensorCouplingExplorer",
    "xor_views",
]
