"""Cost of the explorers' frames: drawing them once, and encoding them small.

An explorer (``rkmlearn.widgets``) renders every state of its ladders once, when the notebook runs,
and the book ships the frames inside the page. Two numbers matter: how long a notebook cell
spends drawing the frames, and how many bytes they add to the page. For each explorer built as
in the book this prints the number of frames, the time to draw one (matplotlib, Agg), and, for
the same pixels, the time and size of the book's PNG encoder (``encode_png``: palette of the 256
most frequent colours, no filter, zlib 9) against matplotlib's own PNG writer (Pillow, RGBA,
adaptive filters), with their ratios. Timings are printed, never asserted.

Run ``python benchmarks/bench_widgets.py`` (the book's explorers, all frames; a few minutes) or
``--quick`` (small ladders; about 20 s).
"""
from __future__ import annotations

import argparse
import io
import time

import numpy as np
from sklearn.datasets import make_moons

from rkmlearn.widgets import FenchelYoungExplorer, RFFConvergenceExplorer
from rkmlearn.widgets._base import encode_png


def _moons():
    X, y = make_moons(n_samples=300, noise=0.06, random_state=0)
    return X[np.lexsort((X[:, 0], y))]  # Chapter 1 sorts the points by class and position


def cases(quick):
    """(label, explorer) pairs: the Chapter 1 explorers, with the book's ladders unless quick."""
    if quick:
        return [
            ("RFFConvergenceExplorer (D <= 256)",
             RFFConvergenceExplorer(_moons(), sigma=0.5, max_features=256, random_state=0)),
            ("FenchelYoungExplorer (2 x 2 states)",
             FenchelYoungExplorer(lams=(0.5, 2.0), scores=(-1.0, 1.0))),
        ]
    return [
        ("RFFConvergenceExplorer (book)",
         RFFConvergenceExplorer(_moons(), sigma=0.5, max_features=4096, random_state=0)),
        ("FenchelYoungExplorer (book)", FenchelYoungExplorer()),
    ]


def bench_case(label, explorer):
    draw, ours, theirs, ours_bytes, theirs_bytes = [], [], [], 0, 0
    for state in explorer.states():
        start = time.perf_counter()
        figure = explorer.figure(**state)
        draw.append(time.perf_counter() - start)
        pixels = np.asarray(figure.canvas.buffer_rgba())
        start = time.perf_counter()
        png = encode_png(pixels)
        ours.append(time.perf_counter() - start)
        buffer = io.BytesIO()
        start = time.perf_counter()
        figure.canvas.print_png(buffer)
        theirs.append(time.perf_counter() - start)
        ours_bytes += len(png)
        theirs_bytes += buffer.tell()
    n = len(draw)
    return {
        "explorer": label, "frames": n,
        "draw ms": 1e3 * float(np.median(draw)),
        "encode ms": 1e3 * float(np.median(ours)),
        "mpl png ms": 1e3 * float(np.median(theirs)),
        "kB": ours_bytes / 1e3, "mpl kB": theirs_bytes / 1e3,
    }


def format_table(rows):
    lines = [f"{'explorer':<38} {'frames':>6} {'draw ms':>8} {'encode ms':>9} {'mpl ms':>7} "
             f"{'time ratio':>10} {'kB':>7} {'mpl kB':>7} {'size ratio':>10}"]
    for r in rows:
        lines.append(
            f"{r['explorer']:<38} {r['frames']:>6d} {r['draw ms']:>8.0f} {r['encode ms']:>9.0f} "
            f"{r['mpl png ms']:>7.0f} {r['encode ms'] / r['mpl png ms']:>10.2f} {r['kB']:>7.0f} "
            f"{r['mpl kB']:>7.0f} {r['kB'] / r['mpl kB']:>10.2f}")
    return "\n".join(lines)


def main(quick=False):
    """Run the benchmark, print the table, and return its rows."""
    rows = [bench_case(label, explorer) for label, explorer in cases(quick)]
    print("Explorer frames: median time per frame to draw and to encode (ours vs matplotlib's "
          "PNG writer, ratio ours/matplotlib), and the bytes of all frames")
    print(format_table(rows))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small ladders (~20 s)")
    main(quick=parser.parse_args().quick)
