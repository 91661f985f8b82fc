"""The learner's copies of the lessons: every notebook with its outputs cleared, never overwriting edits.

Theory of operation
-------------------
The repository's ``lessons/`` keep their executed outputs: nbval checks them,
and a reader on GitHub sees them.  A learner must not: every prediction's
answer would sit right under its question.  So ``make lab`` and Binder's
``postBuild`` open *copies* (``my-lessons/`` by default) made by
`make_copies`:

* every ``.ipynb`` under the source folder is copied with each code cell's
  outputs and execution count removed and the saved widget state dropped;
  other files (a drill guide's ``README.md``) are copied as they are;
  ``nbval_sanitize.cfg`` (a test file) is left out;
* a copy that already exists is **never overwritten if the learner changed
  it**.  The folder keeps a manifest (``.minikafka-copies.json``) of the
  SHA-256 of every file as it was written; a copy still equal to what was
  written is refreshed when the lesson changed upstream, a changed copy is
  kept and one line says so (delete it to get the new version);
* a file in the destination that the manifest does not know is the
  learner's own and is never touched.

`make_copies` returns a `CopyReport` (made, updated, kept, unchanged) whose
``summary()`` is the line ``make lab`` prints.  Command line::

    python -m minikafka.course copies [--source lessons] [--dest my-lessons]

Not a Kafka concept: the course's packaging.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = ".minikafka-copies.json"
SKIPPED = {"nbval_sanitize.cfg"}
SKIPPED_DIRS = {".ipynb_checkpoints", "__pycache__"}


def cleared_notebook(text: str) -> str:
    """A notebook's JSON with every output, execution count and saved widget state removed."""
    notebook = json.loads(text)
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
    notebook.get("metadata", {}).pop("widgets", None)
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class CopyReport:
    dest: Path
    made: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)         # edited by the learner, lesson changed
    unchanged: list[str] = field(default_factory=list)

    def summary(self) -> str:
        line = (f"Lessons for you in {self.dest.name}/ (outputs cleared): {len(self.made)} new, "
                f"{len(self.updated)} updated, {len(self.unchanged) + len(self.kept)} kept as they were")
        for name in self.kept:
            line += (f"\n  kept your edited {name}; the lesson has changed since: delete your copy "
                     f"and run this again to get the new version")
        return line


def _sources(source: Path) -> list[Path]:
    found = []
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_dir() or path.name in SKIPPED or SKIPPED_DIRS & set(relative.parts):
            continue
        found.append(path)
    return found


def make_copies(source: str | os.PathLike = "lessons",
                dest: str | os.PathLike = "my-lessons") -> CopyReport:
    """Copy the lessons from ``source`` to ``dest`` (see the module docstring)."""
    source, dest = Path(source), Path(dest)
    if not source.is_dir():
        raise FileNotFoundError(f"No lessons folder at {source}")
    if dest.resolve() == source.resolve():
        raise ValueError("the learner's copies must go to another folder than the lessons")
    dest.mkdir(parents=True, exist_ok=True)
    manifest_path = dest / MANIFEST
    try:
        written = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        written = {}
    report = CopyReport(dest)
    for path in _sources(source):
        name = path.relative_to(source).as_posix()
        raw = path.read_bytes()
        content = cleared_notebook(raw.decode("utf-8")).encode("utf-8") if path.suffix == ".ipynb" \
            else raw
        target = dest / name
        if target.exists():
            current = _digest(target.read_bytes())
            if current == _digest(content):
                report.unchanged.append(name)
                written[name] = current
                continue
            if written.get(name) != current:          # the learner's edits, or a file of theirs
                report.kept.append(name)
                continue
            report.updated.append(name)
        else:
            report.made.append(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(content)
        os.replace(tmp, target)
        written[name] = _digest(content)
    manifest_path.write_text(json.dumps(written, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return report
