"""Downloads of the built site: the library's wheel and each chapter's exercise hand-out.

Loaded by ``rkm_book.py``. A reader runs the book on their own machine from the site alone:

* **The wheel** ``downloads/rkmlearn-VERSION-py3-none-any.whl``, built from the source tree when
  the HTML book is built (``pip wheel . --no-deps --no-build-isolation``, in a temporary copy so
  that the tree gets no ``build/`` folder).
* **The hand-outs** ``downloads/handout-chNN_name.zip``: what ``python -m rkmlearn.grading release
  exercises/chNN_name OUT`` writes (the exercise notebook without solutions, the starter, the
  README, the public tests; never ``solution*``, never ``tests/hidden``), zipped in a folder
  ``chNN_name/``. The zip is checked for those names before it is written.
* **The role** ``{rkm-download}`wheel``` / ``{rkm-download}`handout ch01_kernels``` links to one of
  them (the file name is the link text).
* **No repository commands.** A page's inline ``python -m rkmlearn.grading release
  exercises/X DIR`` (how an instructor makes the hand-out, in the repository) becomes the link
  to the hand-out ``X`` itself.
* **Each chapter's exercise section** (a section titled "Exercises" in ``.../chNN_*``) ends with a
  note: the chapter's hand-out, the wheel, and the page "Running the book" that says how to
  install them and how ``check()`` works. The chapters need no edit for it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

DOWNLOADS = "downloads"
RUNNING = "book/running"
#: files a hand-out must never contain (solutions, hidden tests)
FORBIDDEN = re.compile(r"(^|/)(solution[^/]*|hidden/.*)$")


def repo_root(app) -> Path:
    return Path(app.srcdir)


def wheel_name() -> str:
    import rkmlearn

    return f"rkmlearn-{rkmlearn.__version__}-py3-none-any.whl"


def exercise_folders(root: Path) -> dict[str, str]:
    """{"ch01": "ch01_kernels", ...}: the exercise folder of each chapter number."""
    return {p.name[:4]: p.name for p in sorted((root / "exercises").glob("ch[0-9][0-9]_*"))
            if (p / "pytest.ini").is_file()}


def handout_name(folder: str) -> str:
    return f"handout-{folder}.zip"


def _href(docname: str, filename: str) -> str:
    return "../" * docname.count("/") + f"{DOWNLOADS}/{filename}"


def download_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{rkm-download}`wheel``` or ``{rkm-download}`handout chNN_name```."""
    env = inliner.document.settings.env
    words = text.split()
    if words == ["wheel"]:
        filename = wheel_name()
    elif len(words) == 2 and words[0] == "handout" \
            and words[1] in exercise_folders(Path(env.srcdir)).values():
        filename = handout_name(words[1])
    else:
        message = inliner.reporter.error(
            f"rkm-download: {text!r} is neither 'wheel' nor 'handout <exercise folder>'",
            line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    reference = nodes.reference(rawtext, "", refuri=_href(env.docname, filename),
                                classes=["rkm-download"])
    reference += nodes.literal(filename, filename)
    return [reference], []


class InstallLines(SphinxDirective):
    """``{rkm-install}``: the install lines, with the wheel's real file name."""

    def run(self):
        lines = ("python -m venv rkm-course\n"
                 "source rkm-course/bin/activate     # Windows: rkm-course\\Scripts\\activate\n"
                 f'pip install "{wheel_name()}[book,grading,lab]"\n'
                 "jupyter lab")
        block = nodes.literal_block(lines, lines, language="bash")
        self.set_source_info(block)
        return [block]


class HandoutList(SphinxDirective):
    """``{rkm-handouts}``: a list with the hand-out of every chapter, linked."""

    def run(self):
        items = nodes.bullet_list()
        for number, folder in exercise_folders(Path(self.env.srcdir)).items():
            paragraph = nodes.paragraph()
            paragraph += nodes.Text(f"Chapter {int(number[2:])}: ")
            paragraph += nodes.reference("", "", nodes.literal(text=handout_name(folder)),
                                         refuri=_href(self.env.docname, handout_name(folder)),
                                         classes=["rkm-download"])
            items += nodes.list_item("", paragraph)
        return [items]


#: an instruction that needs the repository: ``python -m rkmlearn.grading release exercises/X DIR``
RELEASE = re.compile(r"^python -m rkmlearn\.grading release exercises/(\w+)(?:/)? \S+$")


def handout_links(app, doctree):
    """``python -m rkmlearn.grading release exercises/X DIR`` in a page's text (how an
    instructor makes a hand-out, in the repository) becomes the link to the hand-out itself."""
    docname = app.env.docname
    folders = set(exercise_folders(repo_root(app)).values())
    for literal in list(doctree.findall(nodes.literal)):
        match = RELEASE.match(" ".join(literal.astext().split()))
        if match and match.group(1) in folders and not isinstance(literal.parent, nodes.reference):
            name = handout_name(match.group(1))
            literal.parent.replace(literal, nodes.reference(
                "", "", nodes.literal(text=name), refuri=_href(docname, name),
                classes=["rkm-download"]))


def exercise_notes(app, doctree):
    """After each chapter's "Exercises" section: the hand-out, the wheel, Running the book."""
    handout_links(app, doctree)
    docname = app.env.docname
    chapter = re.match(r"ch(\d\d)_", docname.rsplit("/", 1)[-1])
    folder = chapter and exercise_folders(repo_root(app)).get(f"ch{chapter.group(1)}")
    if not folder:
        return
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is None or not title.astext().strip().lower().startswith("exercises"):
            continue
        note = nodes.admonition(classes=["tip", "rkm-run-note"])
        note += nodes.title(text="Run these exercises on your own machine")
        paragraph = nodes.paragraph()
        paragraph += nodes.Text("Download this chapter's hand-out ")
        paragraph += nodes.reference("", "", nodes.literal(text=handout_name(folder)),
                                     refuri=_href(docname, handout_name(folder)),
                                     classes=["rkm-download"])
        paragraph += nodes.Text(" (exercise notebook, starter, public tests) and the library ")
        paragraph += nodes.reference("", "", nodes.literal(text=wheel_name()),
                                     refuri=_href(docname, wheel_name()),
                                     classes=["rkm-download"])
        paragraph += nodes.Text("; ")
        xref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget="/" + RUNNING,
                                     refexplicit=True, refwarn=True, refdoc=docname)
        xref += nodes.inline(text="Running the book")
        paragraph += xref
        paragraph += nodes.Text(" says how to install them, open the notebook and check each "
                                "function with check().")
        note += paragraph
        section += note
        app.env.note_dependency(str(repo_root(app) / "exercises"))
        break


def _run(cmd, cwd=None):
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise ExtensionError(f"rkm_downloads: {' '.join(map(str, cmd))} failed:\n"
                             f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def build_wheel(root: Path, out: Path) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(root / name, src / name)
        shutil.copytree(root / "rkmlearn", src / "rkmlearn",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
              "-w", str(Path(tmp) / "dist"), str(src)])
        (built,) = (Path(tmp) / "dist").glob("rkmlearn-*.whl")
        if built.name != wheel_name():
            raise ExtensionError(f"rkm_downloads: pip built {built.name}, the pages link "
                                 f"{wheel_name()}")
        target = out / built.name
        shutil.copy(built, target)
    return target


def build_handout(root: Path, folder: str, out: Path) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        released = Path(tmp) / folder
        _run([sys.executable, "-m", "rkmlearn.grading", "release",
              str(root / "exercises" / folder), str(released)], cwd=tmp)
        files = sorted(p for p in released.rglob("*") if p.is_file()
                       and "__pycache__" not in p.parts)
        leaked = [p.relative_to(released).as_posix() for p in files
                  if FORBIDDEN.search(p.relative_to(released).as_posix())]
        if leaked:
            raise ExtensionError(f"rkm_downloads: the hand-out of {folder} holds {leaked}")
        target = out / handout_name(folder)
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, f"{folder}/{path.relative_to(released).as_posix()}")
    return target


def write_downloads(app, exception):
    if exception is not None or app.builder.name != "html":
        return
    root = repo_root(app)
    out = Path(app.outdir) / DOWNLOADS
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    from concurrent.futures import ThreadPoolExecutor

    # the release CLI takes seconds per exercise (it collects the tests): one per core
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        jobs = [pool.submit(build_wheel, root, out)]
        jobs += [pool.submit(build_handout, root, folder, out)
                 for folder in exercise_folders(root).values()]
        for job in jobs:
            job.result()


def setup(app):
    app.add_role("rkm-download", download_role)
    app.add_directive("rkm-install", InstallLines)
    app.add_directive("rkm-handouts", HandoutList)
    app.connect("doctree-read", exercise_notes)
    app.connect("build-finished", write_downloads)
