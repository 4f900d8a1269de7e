#!/usr/bin/env python3
"""Write the API reference pages ``book/api/*.md`` (one per public module) from the package.

Every public object (``rkmlearn.__all__`` and the ``__all__`` of each public module) gets one
``autoclass``/``autofunction``/``autodata`` entry, under the name ``book/_ext/rkm_api.py``'s
``api_entries`` gives it; a class with its public methods. Run it after adding a public object
(``tests/test_book_api.py`` fails until the pages name it):

    python book/_tools/api_pages.py          # rewrite book/api/
    python book/_tools/api_pages.py --check  # exit 1 if the pages are not what it would write
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "book" / "_ext"))
import rkm_api  # noqa: E402

API = REPO_ROOT / "book" / "api"
DIRECTIVE = {"class": "autoclass", "function": "autofunction", "data": "autodata"}


def _first_line(module: str) -> str:
    doc = importlib.import_module(module).__doc__ or ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def page_text(page: str, sections: dict[str, list[tuple[str, str]]]) -> str:
    # a submodule named as an object it exports (rkmlearn.grading.check, the module of the
    # function check) is shown, not indexed: the name belongs to the function
    objects = {name for entries in sections.values() for name, _ in entries}
    lines = [f"# `{page}`", "",
             "<!-- Written by book/_tools/api_pages.py from the package's __all__: do not edit. -->",
             "", "```{eval-rst}", f".. automodule:: {page}", "   :no-members:", "```", ""]
    for section, entries in sections.items():
        if section != page:
            lines += [f"## `{section}`", "", "```{eval-rst}", f".. automodule:: {section}",
                      "   :no-members:"]
            lines += ["   :no-index:"] if section in objects else []
            lines += ["```", ""]
        for name, kind in entries:
            lines += ["```{eval-rst}", f".. {DIRECTIVE[kind]}:: {name}"]
            if kind == "class":
                lines += ["   :members:"]
            if kind == "data":
                lines += ["   :no-value:"]
            lines += ["```", ""]
    return "\n".join(lines).rstrip() + "\n"


def index_text(pages: list[str]) -> str:
    lines = ["(api-reference)=", "# API reference", "",
             "<!-- Written by book/_tools/api_pages.py: do not edit. -->", "",
             "One page per public module of `rkmlearn`: every public class and function with its "
             "signature and parameters. A docstring names the equations it implements (the "
             "numbers link to the chapters), and under each entry *Used in* links the chapters "
             "that use it. `rkmlearn.KPCA` and `rkmlearn.models.KPCA` are the same class: each "
             "object is documented once, under the first module that exports it.", ""]
    for page in pages:
        lines.append(f"* {{doc}}`{page} <{page.replace('.', '_')}>`: {_first_line(page)}")
    return "\n".join(lines) + "\n"


def pages() -> dict[Path, str]:
    entries = rkm_api.api_entries()
    out = {API / "index.md": index_text(list(entries))}
    for page, sections in entries.items():
        out[API / f"{page.replace('.', '_')}.md"] = page_text(page, sections)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    wanted = pages()
    stale = [p for p, text in wanted.items() if not p.is_file() or p.read_text() != text]
    extra = [p for p in API.glob("*.md") if p not in wanted]
    if args.check:
        for path in stale + extra:
            print(f"api_pages: {path.relative_to(REPO_ROOT)} is out of date", file=sys.stderr)
        return 1 if stale or extra else 0
    API.mkdir(exist_ok=True)
    for path in extra:
        path.unlink()
    for path, text in wanted.items():
        path.write_text(text)
    print(f"api_pages: wrote {len(wanted)} pages to {API.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
