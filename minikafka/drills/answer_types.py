"""The words for the kinds of answer a learner gives, and how two answers compare.

Theory of operation
-------------------
An exercise or a drill question expects one kind of value: a whole number,
True or False, a text, a set of broker ids.  When a learner gives another
kind (``"3"`` for ``3``, a list where one broker id is wanted), the answer
is not wrong, it is misunderstood, and the learner should be told what kind
was expected in plain words.  This module holds those words and the rules
shared by the lessons' `widgets.check_answer` and the drills:

* numbers compare as numbers (``2.0`` equals ``2``), but True and False are
  not numbers, however Python treats them;
* a set expected accepts a set, list or tuple and compares by elements;
* anything else compares with ``==``.

Not a Kafka concept: the teaching layer's vocabulary.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

_NAMES = {int: "a whole number", float: "a number", str: "a text (str)", bool: "True or False",
          list: "a list", dict: "a dict", set: "a set", frozenset: "a set", tuple: "a tuple"}


def kind_name(value: Any) -> str:
    """How to call the kind of ``value`` in a sentence: "a whole number", "a text (str)"..."""
    if value is None:
        return "None"
    return _NAMES.get(type(value), type(value).__name__)


def same_kind(answer: Any, expected: Any) -> bool:
    """Whether ``answer`` is of the kind ``expected`` is (None expects anything)."""
    if isinstance(expected, bool) or isinstance(answer, bool):
        return isinstance(answer, bool) == isinstance(expected, bool) or expected is None
    if isinstance(expected, Number):
        return isinstance(answer, Number)
    if isinstance(expected, (set, frozenset)):
        return isinstance(answer, (set, frozenset, list, tuple))
    if expected is None:
        return True
    return isinstance(answer, type(expected))


def answers_equal(answer: Any, expected: Any) -> bool:
    """Whether two answers of the same kind are the same answer."""
    try:
        if isinstance(expected, (set, frozenset)):
            return set(answer) == set(expected)
        return answer == expected
    except TypeError:
        return False
