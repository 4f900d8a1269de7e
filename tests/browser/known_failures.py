"""Page checks of the browser test that are known to fail today: THE list to empty.

Each entry is ``(page, check)``; ``check`` is one of the names in ``test_book_in_browser.CHECKS``
(e.g. ``"equations-fit-1400"``). A listed check is run and expected to fail (a strict xfail): when
a chapter is fixed, its entry must be removed here, or the suite fails with XPASS. The browser
test's messages give the counts per page (which equations, how wide) for the chapter engineers:
``RKM_BROWSER_PAGES="book/duality/ch02*" python -m pytest tests/browser -s``.
Nothing may be added to this list to make a new failure pass.
"""

# Issue 18 ("A textbook students choose") added the checks code-fits-1400, no-plumbing,
# figures-captioned, figures-sharp and no-label-text while the chapters were being rewritten on
# their own branches. These are the chapters' failures of those checks before that rewrite (the
# per-page counts: `python -m pytest tests/browser -s`). The lead empties this list after merging
# the chapter branches (and re-executing their notebooks: figures and explorer frames are drawn
# at 2x and 1.5x only when a notebook runs with the new rkmlearn.widgets).
KNOWN_FAILURES: set[tuple[str, str]] = {
    # book/duality/ch02_primal_dual.html
    ("book/duality/ch02_primal_dual.html", "figures-captioned"),
    ("book/duality/ch02_primal_dual.html", "figures-sharp"),
    ("book/duality/ch02_primal_dual.html", "no-label-text"),
    ("book/duality/ch02_primal_dual.html", "no-plumbing"),
    # book/duality/ch03_rescaling.html
    ("book/duality/ch03_rescaling.html", "figures-captioned"),
    ("book/duality/ch03_rescaling.html", "figures-sharp"),
    ("book/duality/ch03_rescaling.html", "no-label-text"),
    ("book/duality/ch03_rescaling.html", "no-plumbing"),
    # book/duality/ch04_stiefel_rotation.html
    ("book/duality/ch04_stiefel_rotation.html", "figures-captioned"),
    ("book/duality/ch04_stiefel_rotation.html", "figures-sharp"),
    ("book/duality/ch04_stiefel_rotation.html", "no-label-text"),
    ("book/duality/ch04_stiefel_rotation.html", "no-plumbing"),
    # book/duality/ch05_forecasting.html
    ("book/duality/ch05_forecasting.html", "figures-captioned"),
    ("book/duality/ch05_forecasting.html", "figures-sharp"),
    ("book/duality/ch05_forecasting.html", "no-label-text"),
    ("book/duality/ch05_forecasting.html", "no-plumbing"),
    # book/foundations/ch01_kernels.html
    ("book/foundations/ch01_kernels.html", "figures-captioned"),
    ("book/foundations/ch01_kernels.html", "figures-sharp"),
    ("book/foundations/ch01_kernels.html", "no-label-text"),
    ("book/foundations/ch01_kernels.html", "no-plumbing"),
    # book/recurrent/ch10_recurrent_rkm.html
    ("book/recurrent/ch10_recurrent_rkm.html", "figures-captioned"),
    ("book/recurrent/ch10_recurrent_rkm.html", "figures-sharp"),
    ("book/recurrent/ch10_recurrent_rkm.html", "no-plumbing"),
    # book/tensor/ch08_tensor_rkm.html
    ("book/tensor/ch08_tensor_rkm.html", "figures-captioned"),
    ("book/tensor/ch08_tensor_rkm.html", "figures-sharp"),
    ("book/tensor/ch08_tensor_rkm.html", "no-label-text"),
    ("book/tensor/ch08_tensor_rkm.html", "no-plumbing"),
}
