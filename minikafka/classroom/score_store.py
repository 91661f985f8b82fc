"""`ScoreStore`: the class's score lines in one SQLite table, kept across restarts.

Theory of operation
-------------------
One table, ``score_lines(id, learner, line)``: ``id`` orders the lines as
they arrived, ``learner`` is the hub user the line belongs to (indexed: a
learner reads their own lines), ``line`` the JSON text of the checked line
(`score_line`).  `add` writes one line in one transaction, so a line is
either wholly stored or not at all, and a crash of the service never leaves
half of one; `lines_of` and `all_lines` read them back in arrival order.

The database runs in WAL mode with ``synchronous=NORMAL``: a committed line
survives the service's own crash or restart (the test restarts it), and a
reader never waits for a writer; a power cut may lose the last few lines
(the full-sync setting would cost a disk flush per post, several times the
time of a whole class's posts, see docs/benchmarks.md).  The file is
created with mode 0600: only the service's user reads it.

Not a Kafka concept: the teaching layer's records.  Simplified: no
deletion, no migration (a new schema would be a new table).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS score_lines (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    learner TEXT NOT NULL,
    line TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS score_lines_by_learner ON score_lines (learner, id);
"""


class ScoreStore:
    """Score lines per learner in the SQLite file ``path`` (":memory:" for a throw-away one)."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = os.fspath(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
        self._lock = threading.Lock()       # one connection, used from the server's thread and tests'
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def add(self, learner: str, line: dict[str, Any]) -> int:
        """Store ``line`` as ``learner``'s, in one transaction; its id."""
        text = json.dumps(line, separators=(", ", ": "))
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute("INSERT INTO score_lines (learner, line) VALUES (?, ?)",
                                          (learner, text))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return int(cursor.lastrowid or 0)

    def lines_of(self, learner: str) -> list[dict[str, Any]]:
        """``learner``'s lines, oldest first."""
        return self._read("SELECT line FROM score_lines WHERE learner = ? ORDER BY id", (learner,))

    def all_lines(self) -> list[dict[str, Any]]:
        """Every learner's lines, in the order they arrived."""
        return self._read("SELECT line FROM score_lines ORDER BY id", ())

    def learners(self) -> list[str]:
        """The learners with at least one line, sorted."""
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT learner FROM score_lines ORDER BY learner").fetchall()
        return [str(row[0]) for row in rows]

    def _read(self, query: str, arguments: tuple[Any, ...]) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(query, arguments).fetchall()
        return [json.loads(row[0]) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"ScoreStore({self.path!r})"
