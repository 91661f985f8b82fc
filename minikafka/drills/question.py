"""`Question` and `DrillError`: what a drill asks, and what counts as an answer to it.

Theory of operation
-------------------
A question has an id (``"new-leader"``), a text, and a type that fixes which
values are answers:

==========  ==============================================  ====================
type        an answer is                                    ``choices``
==========  ==============================================  ====================
choice      a choice text, its letter or its number         the texts
number      a whole number                                  None
bool        True or False                                   (True, False)
node        one node id of the drill's cluster              the allowed ids
nodes       a set (or list) of such node ids                the allowed ids
numbers     a set (or list) of whole numbers (partitions)   None
==========  ==============================================  ====================

`Question.normalise` turns a given value into the stored form (a set becomes
a sorted list, ``2.0`` becomes ``2``) or raises `DrillError` with one line
saying what was expected, in the words of `answer_types`.  ``None`` clears
an answer.  ``when`` says whether the question is a prediction, answered
before the scenario runs, or a diagnosis, answered after it.

Not a Kafka concept; the node ids, error names and numbers in the questions
are Kafka's.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from minikafka.drills.answer_types import (LETTERS, ChoiceNotOffered, kind_name,
                                           resolve_choice)

TYPES = ("choice", "number", "bool", "node", "nodes", "numbers")
BEFORE, AFTER = "before", "after"       # answered before the run (predict) or after it


class DrillError(ValueError):
    """Bad input to a drill (unknown drill or question, an answer of the wrong type, an
    answer after the lock...); the message is one line saying what to do instead.

    In a notebook, IPython shows `_render_traceback_` instead of a traceback: the learner
    reads that one line, not the drill engine's stack."""

    def _render_traceback_(self) -> list[str]:
        return [f"DrillError: {self}"]


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    type: str
    choices: tuple | None = None
    when: str = BEFORE
    points: int = 2

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"question type must be one of {', '.join(TYPES)}, not {self.type!r}")
        if self.type == "bool" and self.choices is None:
            object.__setattr__(self, "choices", (True, False))

    # ------------------------------------------------------------------ answers
    def normalise(self, value: Any) -> Any:
        """The stored form of ``value`` as an answer to this question (None stays None)."""
        if value is None:
            return None
        return getattr(self, f"_as_{self.type}")(value)

    def _refuse(self, wanted: str, value: Any) -> DrillError:
        return DrillError(f"Question {self.id!r} expects {wanted}, but the answer is "
                          f"{kind_name(value)}: {value!r}")

    def _as_choice(self, value: Any) -> str:
        try:
            text = resolve_choice(value, self.choices)
        except ChoiceNotOffered as refused:
            raise DrillError(f"Question {self.id!r}: {refused}") from None
        if text is None:
            raise self._refuse("one of its choices (a letter such as 'b', a number such as 2, "
                               "or the text)", value)
        return text

    def _as_number(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, Real):
            raise self._refuse("a whole number", value)
        if not isinstance(value, Integral) and value != int(value):
            raise self._refuse("a whole number", value)
        return int(value)

    def _as_bool(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self._refuse("True or False", value)
        return value

    def _as_node(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise self._refuse("a node id (a whole number)", value)
        self._check_node(int(value))
        return int(value)

    def _as_nodes(self, value: Any) -> list[int]:
        members = self._members(value, "a set of node ids, e.g. {1, 3}")
        for member in members:
            self._check_node(member)
        return members

    def _as_numbers(self, value: Any) -> list[int]:
        return self._members(value, "a set of whole numbers, e.g. {0, 2}")

    def _members(self, value: Any, wanted: str) -> list[int]:
        if not isinstance(value, (set, frozenset, list, tuple)):
            raise self._refuse(wanted, value)
        if not all(isinstance(v, Integral) and not isinstance(v, bool) for v in value):
            raise self._refuse(wanted, value)
        return sorted({int(v) for v in value})

    def _check_node(self, node_id: int) -> None:
        if self.choices is not None and node_id not in self.choices:
            raise DrillError(f"Question {self.id!r} is about nodes "
                             f"{', '.join(map(str, self.choices))}; {node_id} is not one of them")

    # ------------------------------------------------------------------ display
    def describe(self) -> str:
        """The question with what kind of answer it takes, as the brief lists it."""
        if self.type == "choice":
            options = "\n".join(f"      {LETTERS[i]}) {c!r}" for i, c in enumerate(self.choices))
            return f"{self.text}\n    (answer with its letter, its number or its text:)\n{options}"
        form = {"number": "a whole number", "bool": "True or False",
                "node": f"a node id: {', '.join(map(str, self.choices or ()))}",
                "nodes": f"a set of node ids among {', '.join(map(str, self.choices or ()))}",
                "numbers": "a set of whole numbers"}[self.type]
        return f"{self.text}\n    ({form})"


def shown(value: Any) -> str:
    """An answer as a report prints it."""
    if value is None:
        return "no answer"
    if isinstance(value, list):
        return "{" + ", ".join(map(str, value)) + "}" if value else "{} (none)"
    return repr(value) if isinstance(value, str) else str(value)
