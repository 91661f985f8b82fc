"""`Prediction`: the learner commits to an answer, then the cluster reveals and grades it.

Theory of operation
-------------------
A lesson asks before it shows::

    p = Prediction("Which broker leads orders-1 once broker 3 is dead?",
                   kind="broker", choices=cluster.broker_ids)   # shows the answer widget
    p.answer(...)          # or in code: the learner replaces the ... placeholder
    ...                    # the cells that make it happen
    p.reveal(cluster.leader("orders", 1), why="...")             # graded; returns the Verdict

The logic is `minikafka.course.PredictionState` (kinds, refusals, the lock);
this class is its face:

* the widget has one control for the kind (a drop-down for one broker,
  node or choice; a toggle per broker for a set; a text box for numbers)
  and a **Commit** button; a refused answer shows its one line in the
  widget's status, never a traceback;
* ``answer(value)`` prints one line: committed, refused (what is
  expected), still the placeholder, or closed after the reveal;
* ``reveal(actual, why)`` takes the value the lesson computed *from the
  cluster*, freezes the answer, shows the verdict in the widget, appends a
  line to the learner's progress file (`minikafka.course.progress`) and
  returns the `Verdict` (``.correct``, ``.answered``...), which a cell
  displays (HTML and plain text, so it survives a static rendering).  The
  HTML is this package's (`verdict_html`, via `ShownVerdict`): the verdict
  as its word on a coloured badge, right (green), wrong (red) or no answer
  (grey), so it reads without colour too, and text in the theme's colour
  (`widgets.theme`), so it reads in JupyterLab's dark theme.

The ``repr`` is deterministic, for nbval.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, fields
from typing import Any

import ipywidgets

from minikafka.course.answer_kinds import PLACEHOLDER, AnswerKind, AnswerRefused, shown
from minikafka.course.prediction import AnswerLocked, PredictionState, Verdict
from minikafka.course.progress import ProgressLog, current_lesson
from widgets.display import show_in_kernel
from widgets.drill_panel import parse_numbers
from widgets.still import StillPicture
from widgets.theme import ERROR_COLOUR, VERDICT_COLOURS, border, muted, verdict_badge

_PICK = "(pick one)"
_OK_COLOUR = VERDICT_COLOURS["right"]


def verdict_word(verdict: Verdict) -> str:
    """right, wrong or no answer."""
    if not verdict.answered:
        return "no answer"
    return "right" if verdict.correct else "wrong"


def verdict_html(verdict: Verdict) -> str:
    """The verdict as HTML: the question, the verdict's word on its colour, the headline, why."""
    word = verdict_word(verdict)
    why = (f"<div style='margin-top:4px'><b>Why:</b> {html.escape(verdict.why)}</div>"
           if verdict.why else "")
    return (f"<div class='minikafka-verdict' style='border-left:4px solid {VERDICT_COLOURS[word]};"
            f"padding:4px 10px;margin:4px 0'>"
            f"<div><i>{html.escape(verdict.question)}</i></div>"
            f"<div style='margin-top:2px'>{verdict_badge(word)} "
            f"<b>{html.escape(verdict.headline())}</b></div>{why}</div>")


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ShownVerdict(Verdict):
    """A `Verdict` that displays with `verdict_html` (same fields, same text)."""

    @classmethod
    def of(cls, verdict: Verdict) -> "ShownVerdict":
        return cls(**{f.name: getattr(verdict, f.name) for f in fields(verdict)})

    def html(self) -> str:
        return verdict_html(self)


class Prediction:
    def __init__(self, question: str, kind: str = "choice", choices: Any = None, *,
                 id: str | None = None, lesson: str | None = None,
                 progress: ProgressLog | None = None, show: bool = True):
        self._state = PredictionState(question, AnswerKind(kind, choices), id=id)
        self.lesson = lesson or current_lesson()
        self._progress = progress
        self.status = ipywidgets.HTML()
        self._control, self._read = self._make_control()
        self.commit_button = ipywidgets.Button(description="Commit", button_style="primary",
                                               layout=ipywidgets.Layout(width="auto"))
        self.commit_button.on_click(lambda _button: self._commit_from_widget())
        self._head = (f"<b>Predict:</b> {html.escape(question)} "
                      f"<span style='color:{muted()}'>({html.escape(self.kind.describe())})</span>")
        head = ipywidgets.HTML(self._head)
        self.widget = ipywidgets.VBox(
            [head, ipywidgets.HBox([self._control, self.commit_button],
                                   layout=ipywidgets.Layout(flex_flow="row wrap")), self.status],
            layout=ipywidgets.Layout(border=f"1px solid {border()}", padding="4px 8px", margin="4px 0",
                                     max_width="60em"))
        self.still = StillPicture(lambda: self.widget._repr_mimebundle_() or {},
                                  self._picture, lambda: repr(self))
        if show:
            show_in_kernel(self)

    # ------------------------------------------------------------------ facts
    @property
    def question(self) -> str:
        return self._state.question

    @property
    def kind(self) -> AnswerKind:
        return self._state.kind

    @property
    def id(self) -> str:
        return self._state.id

    @property
    def answered(self) -> bool:
        return self._state.answered

    @property
    def verdict(self) -> Verdict | None:
        return self._state.verdict

    # ------------------------------------------------------------------ answering
    def answer(self, value: Any) -> None:
        """Commit ``value`` (the placeholder ``...`` commits nothing); prints one line."""
        print(self._commit(value))

    def _commit(self, value: Any) -> str:
        try:
            stored = self._state.answer(value)
        except AnswerLocked as refusal:
            return str(refusal)                 # the widget keeps showing the verdict
        except AnswerRefused as refusal:
            message = str(refusal)
            self._set_status(message, ERROR_COLOUR)
            return message
        if stored is PLACEHOLDER:
            if self._state.answered:
                message = (f"Your answer from the widget stands: {shown(self._state.current_answer)}"
                           f" (replace ... to change it in code).")
            else:
                message = (f"No answer yet: replace ... with {self.kind.describe()}, or use the "
                           f"widget above.")
            return message
        message = f"Committed: {shown(stored)}. You can change it until the reveal."
        self._set_status(message, _OK_COLOUR)
        self._sync_control(stored)
        return message

    def _commit_from_widget(self) -> None:
        value = self._read()
        if value is PLACEHOLDER:
            self._set_status(f"Pick {self.kind.describe()} first.", ERROR_COLOUR)
            return
        self._commit(value)

    # ------------------------------------------------------------------ revealing
    def reveal(self, actual: Any, why: str = "") -> Verdict:
        """Grade the committed answer against ``actual``, the cluster's value; return the verdict."""
        first = self._state.verdict is None
        verdict = ShownVerdict.of(self._state.reveal(actual, why))
        if first:
            for control in [self.commit_button, self._control, *getattr(self._control, "children", ())]:
                control.disabled = True
            self.status.value = verdict.html()
            progress = self._progress if self._progress is not None else ProgressLog()
            progress.record(self.lesson, "prediction", self.id, answered=verdict.answered,
                            correct=verdict.correct)
        return verdict

    # ------------------------------------------------------------------ the control
    def _make_control(self):
        kind = self.kind
        if kind.kind in ("broker", "node", "choice", "bool"):
            values = kind.choices if kind.kind != "bool" else (True, False)
            options = [(_PICK, PLACEHOLDER)] + [(shown(v) if not isinstance(v, str) else v, v)
                                                for v in values]
            control = ipywidgets.Dropdown(options=options, value=PLACEHOLDER,
                                          layout=ipywidgets.Layout(width="auto"))
            return control, lambda: control.value
        if kind.kind in ("brokers", "nodes"):
            toggles = [ipywidgets.ToggleButton(description=str(v), value=False,
                                               layout=ipywidgets.Layout(width="4em"))
                       for v in kind.choices]
            box = ipywidgets.HBox(toggles)
            return box, lambda: [v for v, t in zip(kind.choices, toggles) if t.value]
        text = ipywidgets.Text(placeholder="0, 2" if kind.kind == "numbers" else "a number",
                               layout=ipywidgets.Layout(width="10em"))
        return text, lambda: _parse_number_text(text.value, kind.kind == "numbers")

    def _sync_control(self, stored: Any) -> None:
        control = self._control
        if isinstance(control, ipywidgets.Dropdown):
            control.value = stored
        elif isinstance(control, ipywidgets.Text):
            control.value = ", ".join(map(str, stored)) if isinstance(stored, list) else str(stored)
        else:
            for choice, toggle in zip(self.kind.choices, control.children):
                toggle.value = choice in stored

    def _set_status(self, message: str, colour: str) -> None:
        self.status.value = f"<span style='color:{colour}'>{html.escape(message)}</span>"

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        return f"Prediction({self.question!r}, kind={self.kind.kind!r}): answer with {self.kind.describe()}"

    def _picture(self) -> str:
        return (f"<div style='border:1px solid {border()};padding:4px 8px;max-width:60em'>{self._head}"
                f"<br><i>(answer box and Commit button)</i> {self.status.value}</div>")

    def _ipython_display_(self) -> None:
        self.still.display()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        return self.still.bundle()


def _parse_number_text(text: str, many: bool) -> Any:
    """What was typed into a number box, read as the drill panel reads it (`parse_numbers`);
    set braces are allowed ("{0, 2}", "{}" for none), and a blank box is no answer."""
    text = text.strip()
    inner = text.strip("{}[]() ")
    if not inner:
        return PLACEHOLDER if not text else [] if many else text
    return parse_numbers(inner, many)
