"""What a score line must be before the score service stores it.

Theory of operation
-------------------
A score line is the JSON object a graded drill writes (the scoreboard's
format, see `minikafka.drills.scoreboard`)::

    {"learner": "ada", "drill": "leader-crash", "kind": "predict", "seed": 3,
     "answers": {...}, "correct": {"new-leader": true, ...},
     "score": 5, "max": 6, "hints": 1, "time_s": 184.2, "at": "2026-01-05T09:14:02Z"}

`checked_score_line` reads the bytes of a post and returns the line to
store, or raises `ScoreLineError` with one sentence (the service answers it
as HTTP 400, or 413 for a body over `MAX_LINE_BYTES`).  It checks what the
teacher's tables read: ``drill`` a short name, ``score`` and ``max`` whole
numbers with ``0 <= score <= max``, ``correct`` an object of booleans, and
the optional fields' types; any other field is refused, so nothing
unexpected reaches the class's tables.  The ``learner`` of the body is
*ignored*: the stored line names the learner the hub authenticated, put
first (whatever the hub allows as a name).  A learner name that arrives in
an address (``api/scores/<name>``) is checked by `checked_learner_name`:
letters, digits, ``. _ @ + -``, no path characters, no leading dot.

Not a Kafka concept: the teaching layer's records.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_LINE_BYTES = 16 * 1024            # a real line is well under 2 KiB
_DRILL = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_LEARNER = re.compile(r"^(?!\.)[\w.@+-]{1,128}$")     # \w: letters of any script, digits, '_'

_OPTIONAL: dict[str, tuple[type, ...]] = {"kind": (str,), "seed": (int, str), "answers": (dict,),
                                          "hints": (int,), "time_s": (int, float), "at": (str,)}
_FIELDS = ("learner", "drill", "kind", "seed", "answers", "correct", "score", "max", "hints", "time_s", "at")


class ScoreLineError(ValueError):
    """A post that is not a score line; the message is one sentence for the learner."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def checked_learner_name(name: str) -> str:
    """``name`` if it can be a hub user's name here; else `ScoreLineError` (a path, a dot first...)."""
    if not isinstance(name, str) or not _LEARNER.fullmatch(name):
        raise ScoreLineError(f"Invalid learner name {str(name)[:80]!r}: use letters, digits and "
                             "'.', '_', '@', '+', '-' (not first a dot), at most 128 of them")
    return name


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def checked_score_line(body: bytes, learner: str) -> dict[str, Any]:
    """The line to store for ``learner`` from a post's ``body`` (see the module docstring)."""
    if len(body) > MAX_LINE_BYTES:
        raise ScoreLineError(f"Score line too large: {len(body)} bytes, at most {MAX_LINE_BYTES}", 413)
    try:
        record = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ScoreLineError("Malformed score line: the body is not JSON") from None
    if not isinstance(record, dict):
        raise ScoreLineError("Malformed score line: expected a JSON object")
    unknown = sorted(set(record) - set(_FIELDS))
    if unknown:
        raise ScoreLineError(f"Malformed score line: unknown field(s) {', '.join(map(repr, unknown))[:200]}")
    drill = record.get("drill")
    if not isinstance(drill, str) or not _DRILL.fullmatch(drill):
        raise ScoreLineError("Malformed score line: 'drill' must be a drill id (lower-case letters, digits, "
                             "'-', '.', '_'; at most 64)")
    score, most = record.get("score"), record.get("max")
    if not (isinstance(score, int) and isinstance(most, int) and _whole(score) and _whole(most)):
        raise ScoreLineError("Malformed score line: 'score' and 'max' must be whole numbers")
    if not 0 <= score <= most:
        raise ScoreLineError(f"Malformed score line: score {score} is not between 0 and max {most}")
    correct = record.get("correct")
    if not isinstance(correct, dict) or not all(isinstance(v, bool) for v in correct.values()):
        raise ScoreLineError("Malformed score line: 'correct' must be an object of true/false values")
    for name, kinds in _OPTIONAL.items():
        value = record.get(name)
        if value is None:
            continue
        if not isinstance(value, kinds) or isinstance(value, bool):
            raise ScoreLineError(f"Malformed score line: {name!r} must be "
                                 f"{' or '.join(kind.__name__ for kind in kinds)}")
    time_s = record.get("time_s")
    if time_s is not None and (not math.isfinite(time_s) or time_s < 0):
        raise ScoreLineError("Malformed score line: 'time_s' must be a number of seconds, not negative")
    if _whole(record.get("hints")) and record["hints"] < 0:
        raise ScoreLineError("Malformed score line: 'hints' must not be negative")
    line = {name: record[name] for name in _FIELDS if name in record and name != "learner"}
    return {"learner": learner, **line}
