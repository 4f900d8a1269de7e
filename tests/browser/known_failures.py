"""Page checks of the browser test that are known to fail today: THE list to empty.

Each entry is ``(page, check)``; ``check`` is one of the names in ``test_book_in_browser.CHECKS``
(e.g. ``"equations-fit-1400"``). A listed check is run and expected to fail (a strict xfail): when
a chapter is fixed, its entry must be removed here, or the suite fails with XPASS. The browser
test's messages give the counts per page (which equations, how wide) for the chapter engineers:
``RKM_BROWSER_PAGES="book/duality/ch02*" python -m pytest tests/browser -s``.
Nothing may be added to this list to make a new failure pass.
"""

# Empty since issue 18: every page passes every check, the ones issues 18 and 30 added included.
# page-weight (3 MB a page, as a gzip-serving host transfers it) was the last to pass: explorer
# frames are files fetched when shown (book/_ext/rkm_frames.py), not base64 in the page, and the
# theme's Font Awesome script is gone (its web font draws the icons). 2026-11-28: Ch 1 4.39 ->
# 2.60 MB, Ch 4 4.43 -> 2.77, Ch 10 4.22 -> 2.48, Ch 9 3.01 -> 2.17.
KNOWN_FAILURES: set[tuple[str, str]] = set()
