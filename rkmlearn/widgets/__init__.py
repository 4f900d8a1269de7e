"""Interactive explorers for the book (ipywidgets + matplotlib).

Each explorer does the expensive work once in its constructor and then updates by cheap
slicing when a control moves ("fit once, update by cheap slicing"). Every explorer has

* ``.widget``: the ipywidgets container to display (or display the explorer itself);
* its controls as attributes, and ``.controls``, a dict from name to control;
* ``update(**values)``: set controls and redraw once;
* the figure and its artists, and the arrays last plotted, as attributes (for tests).

The figure is rendered to PNG into an :class:`ipywidgets.Output`, so it shows live in Jupyter
and statically in the HTML book (from the widget state stored in the executed notebook).
"""
from .duality import FenchelYoungExplorer, fenchel_young_sides
from .kernels import RFFConvergenceExplorer
from .ppca import PPCAExplorer
from .rescaling import RescalingExplorer
from .stiefel_training import StiefelTrainingExplorer

__all__ = [
    "RFFConvergenceExplorer",
    "FenchelYoungExplorer",
    "fenchel_young_sides",
    "RescalingExplorer",
    "StiefelTrainingExplorer",
    "PPCAExplorer",
]
