"""The scoreboard: one JSON line per graded drill, in a file a teacher can collect.

Theory of operation
-------------------
When a drill is graded it appends one line to a scores file::

    {"learner": "ada", "drill": "leader-crash", "kind": "predict", "seed": 3,
     "answers": {"new-leader": 2, ...}, "correct": {"new-leader": true, ...},
     "score": 5, "max": 6, "hints": 1, "time_s": 184.2, "at": "2026-01-05T09:14:02Z"}

On a JupyterHub with the class's score service (`minikafka.classroom`),
``MINIKAFKA_SCORE_SERVICE`` names it: `record_score` posts the line there
with the learner's hub token (``JUPYTERHUB_API_TOKEN``) and writes no file;
the service stores it under the hub user the token belongs to, whatever
``learner`` says.  When the post fails (the service cannot be reached, or
refuses), the line goes to the file below instead and one line on stderr
says so; so does a line written on a hub (``JUPYTERHUB_USER`` set) where no
service is configured.  Elsewhere the file is the destination, silently.

Where the file is:

* ``MINIKAFKA_SCOREBOARD`` names a folder (it exists, or the value ends with
  ``/``): the line goes to ``<folder>/<learner>.jsonl``.  Learners who hand
  in their files, or a teacher's own tries, use one; a folder *shared* by a
  class lets anyone write under any name, which the score service is for.
* ``MINIKAFKA_SCOREBOARD`` names a file: the line goes there.
* Otherwise a per-user default: ``$XDG_DATA_HOME/minikafka/scores.jsonl``
  (``~/.local/share/minikafka/scores.jsonl``).

A path that cannot be written is refused when the drill starts, in one line,
before any cluster runs.  Appending is one ``write`` of one line in append
mode, so a crash never leaves half a line behind another learner's, and the
file is never opened through a symbolic link (in a folder others can write,
a link planted under a learner's name would send the line into another file
of theirs).

Not a Kafka concept: the teaching layer's records.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from minikafka.classroom.score_client import (SCORE_SERVICE_ENV, ScoreServiceClient, ScoreServiceError,
                                              client_from_environment)
from minikafka.drills.question import DrillError

ENV_VAR = "MINIKAFKA_SCOREBOARD"


def default_learner() -> str:
    """Who is playing: ``JUPYTERHUB_USER`` on a hub, else the login name."""
    name = os.environ.get("JUPYTERHUB_USER") or ""
    if not name:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):
            name = "learner"
    return name


def _file_name(learner: str) -> str:
    # A learner's name becomes a file name: keep it readable, never a path.
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", learner).strip("._") or "learner"
    return f"{safe}.jsonl"


def learner_file(learner: str, chosen: str, default_name: str) -> Path:
    """Where a learner's lines go when ``chosen`` (a path, or "") names a folder, a file or
    nothing: ``<folder>/<learner>.jsonl``, the file itself, or the per-user default
    ``$XDG_DATA_HOME/minikafka/<default_name>``.  Shared with the course's progress file."""
    if not chosen:
        base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                              "share")
        return Path(base) / "minikafka" / default_name
    target = Path(chosen).expanduser()
    if target.is_dir() or chosen.endswith(("/", os.sep)):
        return target / _file_name(learner)
    return target


def scoreboard_path(learner: str, path: str | os.PathLike | None = None) -> Path:
    """Where ``learner``'s scores go: ``path`` if given, else ``MINIKAFKA_SCOREBOARD``,
    else the per-user default (see the module docstring for folders and files)."""
    chosen = os.fspath(path) if path is not None else os.environ.get(ENV_VAR, "")
    return learner_file(learner, chosen, "scores.jsonl")


def check_writable(path: Path) -> None:
    """Refuse, in one line, a scores file that could not be appended to."""
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise DrillError(f"Cannot write scores to {path}: {folder} is a file, not a folder; set "
                         f"{ENV_VAR} to a writable file or folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DrillError(f"Cannot write scores to {path}: cannot create {folder} "
                         f"({error.strerror}); set {ENV_VAR} to a writable file or folder") from None
    if path.is_dir():
        raise DrillError(f"Cannot write scores to {path}: it is a folder; set {ENV_VAR} to a "
                         f"file, or to a folder ending with '/'")
    writable = os.access(path, os.W_OK) if path.exists() else os.access(folder, os.W_OK | os.X_OK)
    if not writable:
        raise DrillError(f"Cannot write scores to {path}: permission denied; set {ENV_VAR} "
                         f"to a writable file or folder")


def append_score(path: Path, record: dict[str, Any]) -> None:
    """Append one record as one JSON line."""
    line = json.dumps(record, sort_keys=False, separators=(", ", ": ")) + "\n"
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags, 0o644)
        with open(descriptor, "a", encoding="utf-8") as scores:
            scores.write(line)
    except OSError as error:
        raise DrillError(f"Cannot write scores to {path}: {error.strerror}; set {ENV_VAR} to a "
                         f"writable file or folder (the grade itself is in drill.result)") from None


def score_service() -> ScoreServiceClient | None:
    """The class's score service named by ``MINIKAFKA_SCORE_SERVICE``, or None (not set, or not an
    address: then one line on stderr says the file will be used)."""
    try:
        return client_from_environment()
    except ScoreServiceError as error:
        _note(f"{error}; scores go to the local file")
        return None


def _note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def record_score(path: Path, record: dict[str, Any], service: ScoreServiceClient | None,
                 note: Callable[[str], None] = _note) -> str:
    """Send one score line to ``service`` when there is one, else (or when it fails) append it to
    ``path``; where it went ("score service" or the file's path).  A fallback says so in one line."""
    if service is not None:
        try:
            service.post(record)
            return "score service"
        except ScoreServiceError as error:
            note(f"{error}; this score is kept in {path} instead")
    elif os.environ.get("JUPYTERHUB_USER"):
        note(f"No class score service on this hub ({SCORE_SERVICE_ENV} is not set): this score is kept "
             f"in {path}")
    append_score(path, record)
    return str(path)
