"""Written answers: questions graded by hand, collected into one review page per question.

An exercise notebook marks a question for manual grading with a markdown cell tagged
``written-answer`` (the question, no solution; ``release`` hands it out as it is). The student
answers in the cells below it: everything up to the next tagged cell (another question, an
exercise function or check cell) or the next heading. ``batch`` writes ``written/qN.html`` under
its output folder: the question, then each student's answer (escaped text, as written) with a
place for the score; the scores go into ``marks.csv``'s ``manual`` column.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from .notebook import WRITTEN, _source, _tags, notebook_path, read_notebook

__all__ = ["Question", "questions", "answers", "write_review_pages"]


@dataclass(frozen=True)
class Question:
    number: int
    cell_id: str | None
    text: str

    @property
    def title(self) -> str:
        first = next((ln.strip().lstrip("#").strip() for ln in self.text.splitlines()
                      if ln.strip()), f"question {self.number}")
        return first if len(first) <= 80 else first[:77] + "..."


def questions(exercise_dir) -> list[Question]:
    """The written-answer questions of the exercise's notebook, in order (none without one)."""
    path = notebook_path(exercise_dir)
    if path is None:
        return []
    cells = [c for c in read_notebook(path)["cells"]
             if c.get("cell_type") == "markdown" and WRITTEN in _tags(c)]
    return [Question(i, c.get("id"), _source(c).strip()) for i, c in enumerate(cells, start=1)]


def _ends_answer(cell: dict) -> bool:
    return bool(_tags(cell)) or (cell.get("cell_type") == "markdown"
                                 and _source(cell).lstrip().startswith("#"))


def answers(nb: dict, asked: list[Question]) -> dict[int, str | None]:
    """question number -> the student's answer text ("" when left empty, None when the
    question cell is not in the notebook: deleted or edited)."""
    cells = nb.get("cells", [])
    out: dict[int, str | None] = {}
    for question in asked:
        at = next((i for i, c in enumerate(cells)
                   if question.cell_id is not None and c.get("id") == question.cell_id), None)
        if at is None:
            at = next((i for i, c in enumerate(cells)
                       if c.get("cell_type") == "markdown"
                       and _source(c).strip() == question.text), None)
        if at is None:
            out[question.number] = None
            continue
        parts = []
        for cell in cells[at + 1:]:
            if _ends_answer(cell):
                break
            parts.append(_source(cell).strip())
        out[question.number] = "\n\n".join(p for p in parts if p)
    return out


_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto}"
          "pre{white-space:pre-wrap;background:#f6f6f6;padding:.8em;border-left:3px solid #999}"
          ".q{background:#eef}.none{color:#a00}")


def write_review_pages(out_dir: Path, asked: list[Question], collected: dict) -> list[Path]:
    """Write ``written/qN.html`` for every question; ``collected`` maps (student id, name) to
    their answers (:func:`answers`) or to a reason why there are none."""
    folder = Path(out_dir) / "written"
    folder.mkdir(parents=True, exist_ok=True)
    pages = []
    for question in asked:
        body = [f"<h1>Question {question.number}: {html.escape(question.title)}</h1>",
                f"<pre class='q'>{html.escape(question.text)}</pre>",
                f"<p>{len(collected)} students. Enter the points in marks.csv, column "
                "<code>manual</code> (kept when grading again).</p>"]
        for (sid, name), found in sorted(collected.items()):
            body.append(f"<h2 id='{html.escape(sid)}'>{html.escape(sid)}"
                        f"{' (' + html.escape(name) + ')' if name and name != sid else ''}</h2>")
            answer = found.get(question.number) if isinstance(found, dict) else None
            if isinstance(found, str):
                body.append(f"<p class='none'>{html.escape(found)}</p>")
            elif answer is None:
                body.append("<p class='none'>the question cell is not in this notebook "
                            "(deleted or edited)</p>")
            elif not answer:
                body.append("<p class='none'>no answer</p>")
            else:
                body.append(f"<pre>{html.escape(answer)}</pre>")
            body.append("<p>points: ______</p>")
        page = folder / f"q{question.number}.html"
        page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><title>"
                        f"Question {question.number}</title><style>{_STYLE}</style></head>"
                        f"<body>{''.join(body)}</body></html>\n", encoding="utf-8")
        pages.append(page)
    return pages
