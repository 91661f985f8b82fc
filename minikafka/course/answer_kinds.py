"""`AnswerKind`: what a prediction takes as an answer, and the one line that refuses anything else.

Theory of operation
-------------------
A prediction asks for one kind of value.  The kind fixes three things: the
stored form of an answer, the words that describe it ("a broker id: 1, 2
or 3"), and the control a widget shows for it.  The kinds:

==========  =================================================  ==============================
kind        an answer is                                        ``choices``
==========  =================================================  ==============================
broker      one broker id                                       the cluster's broker ids
brokers     a set (or list) of broker ids, possibly empty       the cluster's broker ids
node        one node id (broker or controller)                  the node ids
nodes       a set of node ids                                   the node ids
number      a whole number                                      none
numbers     a set of whole numbers (partitions, offsets)        none
bool        True or False                                       none
choice      one of the offered texts (or its letter / number)   the texts
==========  =================================================  ==============================

``choices`` of a broker or node kind may hold ``None`` for "no broker at
all" (a partition with no leader); ``None`` is then a real answer, so the
placeholder a lesson leaves for the learner to replace is ``...``
(`PLACEHOLDER`), never ``None``.

`AnswerKind.normalise` returns the stored form (a set becomes a sorted list,
``2.0`` becomes ``2``) or raises `AnswerRefused` whose message is one line
saying what was expected and what was given, in the words of
`minikafka.drills.answer_types`: ``"3"`` for a broker id is explained, not
marked wrong.  `AnswerKind.same` compares a stored answer with the value the
cluster computed.

Not a Kafka concept: the teaching layer's vocabulary (shared with the drills'
`Question`, whose types these kinds extend).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from minikafka.drills.answer_types import (ChoiceNotOffered, answers_equal, kind_name,
                                           resolve_choice)

PLACEHOLDER = ...                 # what a lesson's code leaves for the learner to replace
KINDS = ("broker", "brokers", "node", "nodes", "number", "numbers", "bool", "choice")
_NEEDS_CHOICES = ("broker", "brokers", "node", "nodes", "choice")
_SETS = ("brokers", "nodes", "numbers")


class AnswerRefused(ValueError):
    """An answer of the wrong kind; the message is one line saying what is expected."""


def _listed(values: tuple, conjunction: str = "or") -> str:
    words = [shown(v) for v in values]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {conjunction} " + words[-1]


def shown(value: Any) -> str:
    """An answer or a cluster's value as a sentence prints it."""
    if value is None:
        return "none"
    if value is PLACEHOLDER:
        return "no answer"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        return "{" + ", ".join(shown(v) for v in items) + "}" if items else "{} (none)"
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True, slots=True)
class AnswerKind:
    kind: str
    choices: tuple | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind in _NEEDS_CHOICES and not self.choices:
            example = "cluster.broker_ids" if self.kind.startswith("broker") else "[...]"
            raise ValueError(f"a {self.kind!r} prediction needs choices= (for example "
                             f"choices={example}): the values it may take")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))

    # ------------------------------------------------------------------ words
    def describe(self) -> str:
        """What an answer is, in words: "a broker id (1, 2 or 3)"."""
        among, every = _listed(self.choices or ()), _listed(self.choices or (), "and")
        return {"broker": f"a broker id ({among})",
                "brokers": f"a set of broker ids among {every} (e.g. {{1, 3}}, or set() for none)",
                "node": f"a node id ({among})",
                "nodes": f"a set of node ids among {every} (e.g. {{1, 3}}, or set() for none)",
                "number": "a whole number",
                "numbers": "a set of whole numbers (e.g. {0, 2}, or set() for none)",
                "bool": "True or False",
                "choice": f"one of {among}"}[self.kind]

    def _refuse(self, value: Any) -> AnswerRefused:
        return AnswerRefused(f"Expected {self.describe()}, but the answer is {kind_name(value)}: "
                             f"{value!r}")

    # ------------------------------------------------------------------ answers
    def normalise(self, value: Any) -> Any:
        """The stored form of ``value``, or `AnswerRefused` with one line."""
        if self.kind in ("broker", "node"):
            return self._one_of_nodes(value)
        if self.kind in _SETS:
            members = self._members(value)
            if self.kind != "numbers":
                for member in members:
                    self._check_node(member, value)
            return members
        if self.kind == "number":
            return self._whole(value)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise self._refuse(value)
            return value
        if isinstance(value, str) and value in self.choices:
            return value
        try:
            text = resolve_choice(value, self.choices)      # a letter or a number counts too
        except ChoiceNotOffered as refused:
            raise AnswerRefused(f"Expected {self.describe()}; {refused}") from None
        if text is None:
            raise self._refuse(value)
        return text

    def _whole(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, Real):
            raise self._refuse(value)
        if not isinstance(value, Integral) and value != int(value):
            raise self._refuse(value)
        return int(value)

    def _one_of_nodes(self, value: Any) -> int | None:
        if value is None and None in self.choices:
            return None
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise self._refuse(value)
        self._check_node(int(value), value)
        return int(value)

    def _check_node(self, node_id: int, given: Any) -> None:
        if node_id not in self.choices:
            what = "broker" if self.kind.startswith("broker") else "node"
            raise AnswerRefused(f"Expected {self.describe()}; there is no {what} {node_id}")

    def _members(self, value: Any) -> list[int]:
        if not isinstance(value, (set, frozenset, list, tuple)):
            raise self._refuse(value)
        if not all(isinstance(v, Integral) and not isinstance(v, bool) for v in value):
            raise self._refuse(value)
        return sorted({int(v) for v in value})

    def same(self, answer: Any, actual: Any) -> bool:
        """Whether a stored answer equals the cluster's value, normalised the same way (a value
        the kind cannot hold, such as no leader where None is not a choice, matches nothing)."""
        if self.kind == "choice":          # the cluster's value is a text, never a letter
            return isinstance(actual, str) and answer == actual
        try:
            actual = self.normalise(actual)
        except AnswerRefused:
            return False
        return answers_equal(answer, actual)
