"""`PredictionState` and `Verdict`: a prediction committed before the cluster shows the answer.

Theory of operation
-------------------
A prediction lives through three states, in this order only::

    open --answer()--> answered --reveal(actual)--> revealed
      \\________________reveal(actual)_______________/

* ``answer(value)`` commits (or, while the prediction is still hidden,
  replaces) the learner's answer.  A value of the wrong kind is refused with
  one line (`AnswerRefused`) and the earlier answer stays; the placeholder
  ``...`` a lesson leaves in its code commits nothing.
* ``reveal(actual, why)`` grades the committed answer against ``actual``,
  the value the lesson computed *from the cluster* at that moment, and
  returns a `Verdict` (``.correct``, ``.answered``, the answer beside the
  cluster's value, and why).  With nothing committed the verdict says so and
  still shows the value: a notebook may run unattended.
* once revealed, the answer is frozen: ``answer`` is refused with one line
  (`AnswerLocked`), and a second ``reveal`` returns the first verdict.

No I/O and no widget: `widgets.Prediction` is the face, and it writes the
verdict to the learner's progress file.  Not a Kafka concept.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from minikafka.course.answer_kinds import PLACEHOLDER, AnswerKind, AnswerRefused, shown

OPEN, ANSWERED, REVEALED = "open", "answered", "revealed"


class AnswerLocked(AnswerRefused):
    """An answer given after the prediction was revealed."""


def slug(text: str, limit: int = 48) -> str:
    """A stable id from a question's text ("Which broker leads orders-1?" -> "which-broker-leads-orders-1")."""
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return words[:limit].rstrip("-") or "prediction"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A revealed prediction: the learner's answer beside the cluster's value."""
    question: str
    answer: Any                 # the committed answer (None may be a real answer: see answered)
    answered: bool
    actual: Any                 # the value the cluster computed
    correct: bool
    why: str = ""

    def headline(self) -> str:
        """One line: right, wrong, or no prediction, with both values."""
        if not self.answered:
            return f"No prediction was committed. The cluster says: {shown(self.actual)}."
        if self.correct:
            return f"Right: you predicted {shown(self.answer)}, and the cluster says {shown(self.actual)}."
        return f"Not this time: you predicted {shown(self.answer)}; the cluster says {shown(self.actual)}."

    def text(self) -> str:
        lines = [self.question, "  " + self.headline()]
        if self.why:
            lines.append("  Why: " + self.why)
        return "\n".join(lines)

    def html(self) -> str:
        colour = "#2e7d32" if self.correct else "#6d4c41" if not self.answered else "#b71c1c"
        mark = "✔" if self.correct else "–" if not self.answered else "✘"
        why = (f"<div style='margin-top:4px'><b>Why:</b> {html.escape(self.why)}</div>"
               if self.why else "")
        return (f"<div style='border-left:4px solid {colour};padding:4px 10px;margin:4px 0'>"
                f"<div><i>{html.escape(self.question)}</i></div>"
                f"<div style='color:{colour}'><b>{mark} {html.escape(self.headline())}</b></div>"
                f"{why}</div>")

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return self.text()


class PredictionState:
    """One prediction's life; see the module docstring."""

    def __init__(self, question: str, kind: AnswerKind, *, id: str | None = None):
        self.question = question
        self.kind = kind
        self.id = id or slug(question)
        self.state = OPEN
        self._answer: Any = None
        self.verdict: Verdict | None = None

    @property
    def answered(self) -> bool:
        return self.state == ANSWERED or (self.verdict is not None and self.verdict.answered)

    @property
    def current_answer(self) -> Any:
        """The committed answer (meaningful only when ``answered``)."""
        return self._answer

    def answer(self, value: Any) -> Any:
        """Commit ``value`` and return its stored form; `AnswerRefused` (one line) if it is of
        the wrong kind, `AnswerLocked` after the reveal.  ``...`` commits nothing."""
        if self.state == REVEALED:
            kept = shown(self._answer) if self.answered else "no answer"
            raise AnswerLocked(f"This prediction has been revealed; answers are closed (yours "
                               f"stays: {kept}).")
        if value is PLACEHOLDER:
            return PLACEHOLDER
        stored = self.kind.normalise(value)
        self._answer = stored
        self.state = ANSWERED
        return stored

    def reveal(self, actual: Any, why: str = "") -> Verdict:
        """Grade against ``actual`` (computed from the cluster) and freeze the answer."""
        if self.verdict is not None:
            return self.verdict
        answered = self.state == ANSWERED
        correct = answered and self.kind.same(self._answer, actual)
        try:
            actual = self.kind.normalise(actual)
        except AnswerRefused:
            pass
        self.verdict = Verdict(self.question, self._answer if answered else None, answered,
                               actual, correct, why)
        self.state = REVEALED
        return self.verdict
