"""`check_answer`: the one line an exercise's check cell prints.

Theory of operation
-------------------
Every lesson ends with exercises whose check cells compute the expected
answer from the cluster and compare it with the learner's variable.  The
comparison has four outcomes, each one line and never a traceback:

* the variable still holds its placeholder: ``Not answered yet``;
* the answer has the wrong type (a string where a number is expected, a
  list where a broker id is expected...): what type was expected and what
  was given, so ``"3"`` for ``3`` is explained instead of marked wrong;
* the answer equals the expected value: ``Correct!``;
* otherwise: ``Not quite: <hint>``.

Numbers compare as numbers (``2.0`` equals ``2``, but ``True`` is not a
number); sets, lists and tuples compare by their elements when the expected
value is a set.  The check never reveals the expected value itself.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

_NAMES = {int: "a whole number", float: "a number", str: "a text (str)", bool: "True or False",
          list: "a list", dict: "a dict", set: "a set", tuple: "a tuple"}


def _kind(value: Any) -> str:
    if value is None:
        return "None"
    return _NAMES.get(type(value), type(value).__name__)


def _same_kind(answer: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(answer, bool):
        return isinstance(answer, bool) == isinstance(expected, bool) or expected is None
    if isinstance(expected, Number):
        return isinstance(answer, Number)
    if isinstance(expected, (set, frozenset)):
        return isinstance(answer, (set, frozenset, list, tuple))
    if expected is None:
        return True
    return isinstance(answer, type(expected))


def _equal(answer: Any, expected: Any) -> bool:
    if isinstance(expected, (set, frozenset)):
        return set(answer) == set(expected)
    return answer == expected


def check_answer(answer: Any, expected: Any, *, hint: str, placeholder: Any = None) -> str:
    """The verdict on ``answer`` as one line (``print`` it in the check cell)."""
    if answer is placeholder or (placeholder is not None and answer == placeholder):
        return "Not answered yet"
    if not _same_kind(answer, expected):
        return (f"Expected {_kind(expected)} here, but the answer is {_kind(answer)}: "
                f"{answer!r}")
    try:
        correct = _equal(answer, expected)
    except TypeError:
        correct = False
    return "Correct!" if correct else f"Not quite: {hint}"
