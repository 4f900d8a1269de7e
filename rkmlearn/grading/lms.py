"""Learning-management-system exports: who handed in what, and when.

``batch`` reads a folder of submissions as Moodle, Canvas or Blackboard export them (unzipped)
or as plain ``NAME.py``/``NAME.ipynb``/``NAME/`` entries:

* Moodle: ``Eve Example_1234_assignsubmission_file_/`` (a folder per student; older exports
  prefix the file name the same way); keys 1234 and the full name.
* Canvas: ``exampleeve_1234_5678_ch01_exercises.ipynb`` (``_late_`` or ``_LATE_`` after the
  login when late; ``-1`` after a resubmission); keys 1234 and the login.
* Blackboard: ``Chapter 1_eexample_attempt_2026-12-01-23-59-59_ch01.ipynb`` (and a ``.txt``
  receipt per attempt: ignored); the latest attempt counts, its time is the submission time;
  key the username.
* plain: ``eve.ipynb``, ``eve.py``, ``eve/`` (one file inside); key ``eve``.

A roster CSV (``--roster``) maps these keys to student ids: it has an ``id`` column, a ``name``
column (optional) and any others (``username``, ``login``, ``email``, ``moodle_id``,
``canvas_id``...); an export entry belongs to the roster row that has one of its keys in any
column (case and surrounding spaces ignored). Late penalties (:class:`LatePolicy`) use the
submission time: Blackboard's attempt time, else the file's modification time (which the LMS
zip keeps).
"""
from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .errors import GradingError

__all__ = ["ExportEntry", "parse_export_name", "Roster", "LatePolicy", "parse_due"]

_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?:file|onlinetext)_"
                     r"(?P<file>.*)$")
_CANVAS = re.compile(r"^(?P<login>[A-Za-z0-9.\-]+?)(?P<late>_late|_LATE)?_(?P<uid>\d+)_"
                     r"(?P<sid>\d+)_(?P<file>.+)$")
_BLACKBOARD = re.compile(r"^(?P<assignment>.+)_(?P<user>[^_]+)_attempt_"
                         r"(?P<time>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?:_(?P<file>.+))?$")


@dataclass
class ExportEntry:
    """One exported submission's identity: its keys, display name, LMS and submission time."""

    keys: tuple[str, ...]
    name: str
    lms: str
    submitted: datetime | None = None
    late_flag: bool = False

    @property
    def key(self) -> str:
        return self.keys[0]


def parse_export_name(name: str) -> ExportEntry:
    """The identity of an export entry (a file or folder name) of Moodle, Canvas, Blackboard or
    a plain ``NAME.py``/``NAME.ipynb``/``NAME`` folder."""
    match = _MOODLE.match(name)
    if match:
        return ExportEntry((match["id"], match["name"].strip()), match["name"].strip(), "moodle")
    match = _BLACKBOARD.match(Path(name).stem if not _BLACKBOARD.match(name) else name)
    if match:
        when = datetime.strptime(match["time"], "%Y-%m-%d-%H-%M-%S")
        return ExportEntry((match["user"],), match["user"], "blackboard", submitted=when)
    match = _CANVAS.match(name)
    if match:
        return ExportEntry((match["uid"], match["login"]), match["login"], "canvas",
                           late_flag=bool(match["late"]))
    stem = name[: -len(Path(name).suffix)] if Path(name).suffix in (".py", ".ipynb") else name
    return ExportEntry((stem,), stem, "plain")


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


@dataclass
class Roster:
    """The class list: student id -> row (every column), and a lookup from any of its values."""

    rows: dict = field(default_factory=dict)
    lookup: dict = field(default_factory=dict)

    @classmethod
    def read(cls, path) -> Roster:
        path = Path(path)
        try:
            with open(path, newline="", encoding="utf-8-sig") as fh:
                table = list(csv.DictReader(fh))
        except OSError as exc:
            raise GradingError(f"--roster {str(path)!r} cannot be read: {exc.strerror}") from None
        if not table or "id" not in table[0]:
            raise GradingError(f"--roster {str(path)!r} needs a header row with an 'id' column "
                               "(and optionally 'name' and columns such as username, email, "
                               "moodle_id, canvas_id that match the LMS export)")
        roster = cls()
        for row in table:
            sid = (row.get("id") or "").strip()
            if not sid:
                continue
            if sid in roster.rows:
                raise GradingError(f"--roster {str(path)!r}: id {sid!r} appears twice")
            roster.rows[sid] = row
            for value in row.values():
                if value and value.strip():
                    roster.lookup.setdefault(_norm(value), set()).add(sid)
        return roster

    def find(self, entry: ExportEntry) -> str | None:
        """The id of the roster row one of ``entry``'s keys names (None: none, or several)."""
        for key in entry.keys:
            found = self.lookup.get(_norm(key), set())
            if len(found) == 1:
                return next(iter(found))
        return None

    def name(self, sid: str) -> str:
        return (self.rows.get(sid, {}).get("name") or "").strip()


def parse_due(text: str) -> datetime:
    """``--due``: an ISO date and time (``2026-12-01T23:59``, ``2026-12-01 23:59``), local time."""
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise GradingError(f"--due {text!r} is not a date and time; write it as "
                           "2026-12-01T23:59 (local time)") from None


@dataclass(frozen=True)
class LatePolicy:
    """A late penalty: ``percent`` per started ``unit`` (day or hour) after the due time, at most
    ``cap`` percent. ``--late-policy``: ``"10%/day"``, ``"5%/hour,max=50%"``, ``"zero"`` (no
    marks once late), ``"none"``."""

    percent: float = 10.0
    unit: str = "day"
    cap: float = 100.0

    @classmethod
    def parse(cls, text: str) -> LatePolicy:
        spec = text.replace(" ", "").lower()
        if spec == "zero":
            return cls(100.0, "day", 100.0)
        if spec == "none":
            return cls(0.0, "day", 0.0)
        match = re.fullmatch(r"(\d+(?:\.\d+)?)%/(day|hour)(?:,max=(\d+(?:\.\d+)?)%)?", spec)
        if not match:
            raise GradingError(f"--late-policy {text!r} is not understood; write e.g. '10%/day', "
                               "'5%/hour,max=50%', 'zero' or 'none'")
        cap = float(match[3]) if match[3] else 100.0
        if not 0 <= cap <= 100:
            raise GradingError(f"--late-policy: max must be between 0% and 100%, got {cap:g}%")
        return cls(float(match[1]), match[2], cap)

    def late_units(self, submitted: datetime, due: datetime) -> int:
        """Started days (or hours) after ``due``; 0 when on time."""
        seconds = (submitted - due).total_seconds()
        return 0 if seconds <= 0 else math.ceil(seconds / (86400 if self.unit == "day" else 3600))

    def penalty(self, submitted: datetime, due: datetime) -> float:
        """The penalty in percent of the marks."""
        return min(self.cap, self.percent * self.late_units(submitted, due))
