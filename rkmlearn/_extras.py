"""Optional dependencies: which extra of ``pip install rkmlearn[...]`` brings what.

The core library needs numpy, scipy and scikit-learn only. The explorers, the autograder and the
downloads need more; each says which extra to install instead of failing deep inside with a bare
``ModuleNotFoundError``.
"""
from __future__ import annotations

import importlib.util

#: extra -> the modules it provides (the names in pyproject.toml's optional-dependencies).
EXTRAS = {
    "book": ("matplotlib", "ipywidgets"),
    "grading": ("pytest",),
    "data": ("pooch", "statsmodels"),
}


def missing_modules(*modules: str) -> list[str]:
    """The modules of ``modules`` that cannot be imported here (without importing them)."""
    missing = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a None entry in sys.modules, or a broken parent
            found = False
        if not found:
            missing.append(name)
    return missing


def require_extra(extra: str, feature: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise ImportError naming the extra to install when a module ``feature`` needs is missing.

    Parameters
    ----------
    extra : {"book", "grading", "data"}
        The extra that provides the modules.
    feature : str
        What needs them, for the message (e.g. ``"rkmlearn.widgets (the book's explorers)"``).
    modules : tuple of str, optional
        The modules to look for; default: all of the extra's.
    """
    modules = EXTRAS[extra] if modules is None else modules
    missing = missing_modules(*modules)
    if missing:
        raise ImportError(
            f"{feature} needs {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} "
            f"not installed: pip install 'rkmlearn[{extra}]' (or pip install {' '.join(missing)})."
        )
