"""The README's code blocks are what a new user runs first: they must run as printed."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READMES = ["README.md", "rkmlearn/README.md"]


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", (ROOT / path).read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("path", [p for p in READMES if python_blocks(p)])
def test_readme_python_blocks_run_in_order(path):
    namespace = {"__name__": "readme_example"}
    for block in python_blocks(path):
        exec(compile(block, f"{path} (code block)", "exec"), namespace)
