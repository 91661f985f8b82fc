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
* anything else compares with ``==``;
* a choice among offered texts may be named by its text, by its letter
  (``"b"`` for the second text, as `choice_labels` shows them) or by its
  number (``2`` or ``"2"``); `resolve_choice` turns any of these into the
  text, or raises `ChoiceNotOffered` with one line naming what is offered.

Not a Kafka concept: the teaching layer's vocabulary.
"""

from __future__ import annotations

from numbers import Integral, Number
from typing import Any

LETTERS = "abcdefghijklmnopqrstuvwxyz"

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


class ChoiceNotOffered(ValueError):
    """A letter, number or text that names none of the offered choices (one line)."""


def choice_labels(choices) -> list[str]:
    """``"a) text"`` for each choice, as a brief or a drop-down lists them."""
    return [f"{LETTERS[i]}) {text}" for i, text in enumerate(choices)]


def resolve_choice(value: Any, choices) -> str | None:
    """The offered text that ``value`` names: the text itself, its letter (``"b"``, ``"B"``,
    ``"b)"``) or its number counted from 1 (``2``, ``"2"``).  None when ``value`` is neither a
    text nor a whole number (the caller says what kind was expected); `ChoiceNotOffered` when
    it is one but names no choice."""
    choices = tuple(choices)
    count = len(choices)
    letters = LETTERS[:count]
    span = {1: "a", 2: "a or b"}.get(count, f"a to {letters[-1]}")
    if isinstance(value, Integral) and not isinstance(value, bool):
        if 1 <= value <= count:
            return choices[int(value) - 1]
        raise ChoiceNotOffered(f"{value} is not offered: the choices are numbered 1 to {count} "
                               f"(or lettered {span})" if count > 1 else
                               f"{value} is not offered: the only choice is number 1 (letter a)")
    if not isinstance(value, str):
        return None
    if value in choices:
        return value
    word = value.strip().rstrip(").").strip()
    if len(word) == 1 and word.isalpha():
        if word.lower() in letters:
            return choices[letters.index(word.lower())]
        raise ChoiceNotOffered(f"{value!r} is not a letter offered: the letters are {span}")
    if word.isdigit():
        return resolve_choice(int(word), choices)
    raise ChoiceNotOffered(f"{value!r} is not one of the choices: answer with a letter ({span}), "
                           f"a number (1 to {count}) or the text exactly")
