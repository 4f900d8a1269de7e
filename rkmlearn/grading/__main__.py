"""``python -m rkmlearn.grading``: see :mod:`rkmlearn.grading.cli`."""
from .cli import main

raise SystemExit(main())
