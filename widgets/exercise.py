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
value is a set (the rules live in `minikafka.drills.answer_types`, shared with the
drills).  The check never reveals the expected value itself.
"""

from __future__ import annotations

from typing import Any

from minikafka.drills.answer_types import answers_equal, kind_name, same_kind


def check_answer(answer: Any, expected: Any, *, hint: str, placeholder: Any = None) -> str:
    """The verdict on ``answer`` as one line (``print`` it in the check cell)."""
    if answer is placeholder or (placeholder is not None and answer == placeholder):
        return "Not answered yet"
    if not same_kind(answer, expected):
        return (f"Expected {kind_name(expected)} here, but the answer is {kind_name(answer)}: "
                f"{answer!r}")
    correct = answers_equal(answer, expected)
    return "Correct!" if correct else f"Not quite: {hint}"
