"""``python -m rkmlearn.grading``: see :mod:`rkmlearn.grading.cli`."""
import time

from .cli import main
from .procs import process_age

# execution_time counts from the start of this process: interpreter and imports included.
raise SystemExit(main(started=time.monotonic() - process_age()))
