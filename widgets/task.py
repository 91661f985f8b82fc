"""`Task`: a "your turn" task; the learner writes the code, the cluster says whether it happened.

Theory of operation
-------------------
A lesson states a task, leaves the learner a code cell, then checks::

    t = Task("Create the topic payments with 6 partitions and 3 replicas each.",
             check=lambda: checks.topic_has(cluster, "payments", partitions=6,
                                            replication_factor=3),
             hint="cluster.create_topic(name, partitions=..., replication_factor=...)",
             solution='cluster.create_topic("payments", partitions=6, replication_factor=3)')
    # (the learner's cell)
    t.check()

The logic is `minikafka.course.TaskState`; this class is its face:

* the widget shows the task with **Check**, **Hint** and **Solution**
  buttons, and the verdict of the last check;
* ``check()`` asks the cluster (through the task's check) and returns the
  `TaskVerdict`, which a cell displays: done, or not yet with what the
  cluster shows and what to do;
* ``catch_up=True`` is for a task whose result later cells need (a topic
  they use, a broker they expect dead): when ``check()`` is called *from
  code* and finds the task not done, it runs the solution in the calling
  notebook's namespace and says so, so that the lesson can go on (and a
  notebook run unattended still runs).  The widget's Check button never
  does that;
* every check appends a line to the learner's progress file
  (`minikafka.course.progress`).

The ``repr`` is deterministic, for nbval.
"""

from __future__ import annotations

import html
import sys
from typing import Any, Callable

import ipywidgets

from minikafka.course.progress import ProgressLog, current_lesson
from minikafka.course.task import TaskState, TaskVerdict
from widgets.display import show_in_kernel
from widgets.still import StillPicture


def _pre(text: str) -> str:
    return f"<pre style='white-space:pre-wrap;margin:2px 0'>{html.escape(text)}</pre>"


class Task:
    def __init__(self, text: str, check: Callable[[], Any], *, hint: str = "",
                 solution: str = "", catch_up: bool = False, id: str | None = None,
                 lesson: str | None = None, progress: ProgressLog | None = None,
                 show: bool = True):
        if catch_up and not solution:
            raise ValueError("a catch_up task needs the solution's code to run")
        self._state = TaskState(text, check, hint=hint, solution=solution, id=id)
        self.catch_up = catch_up
        self.lesson = lesson or current_lesson()
        self._progress = progress
        self.output = ipywidgets.HTML()
        buttons = []
        for label, style, action in (("Check", "primary", self._check_from_widget),
                                     ("Hint", "warning", self._hint_in_widget),
                                     ("Solution", "", self._solution_in_widget)):
            button = ipywidgets.Button(description=label, button_style=style,
                                       layout=ipywidgets.Layout(width="auto"))
            button.on_click(lambda _b, act=action: act())
            buttons.append(button)
        self.buttons = dict(zip(("check", "hint", "solution"), buttons))
        self._head = f"<b>Your turn:</b> {html.escape(text)}"
        head = ipywidgets.HTML(self._head)
        self.widget = ipywidgets.VBox([head, ipywidgets.HBox(buttons), self.output],
                                      layout=ipywidgets.Layout(border="1px solid #bbb",
                                                               padding="4px 8px", margin="4px 0",
                                                               max_width="60em"))
        self.still = StillPicture(lambda: self.widget._repr_mimebundle_() or {},
                                  self._picture, lambda: repr(self))
        if show:
            show_in_kernel(self)

    # ------------------------------------------------------------------ facts
    @property
    def text(self) -> str:
        return self._state.text

    @property
    def id(self) -> str:
        return self._state.id

    @property
    def done(self) -> bool:
        return self._state.done

    # ------------------------------------------------------------------ verbs
    def check(self) -> TaskVerdict:
        """Ask the cluster whether the task is done; see ``catch_up`` in the module docstring."""
        verdict = self._state.check()
        if not verdict.done and self.catch_up:
            caller = sys._getframe(1).f_globals
            exec(compile(self._state.solution_code, f"<solution of {self.id}>", "exec"), caller)
            self._state.solution_ran = True
            verdict = self._state.check()
            if verdict.done:
                verdict = TaskVerdict(verdict.task, True, verdict.detail, verdict.checks, True,
                                      self._state.solution_code)
        self._record(verdict)
        self.output.value = verdict.html()
        return verdict

    def hint(self) -> None:
        print("Hint:", self._state.hint())

    def solution(self) -> None:
        print(self._state.solution())

    # ------------------------------------------------------------------ the widget's buttons
    def _check_from_widget(self) -> None:
        verdict = self._state.check()
        self._record(verdict)
        self.output.value = verdict.html() + ("" if verdict.done else _pre(
            "Write it in the code cell below the task, run it, then press Check again."))

    def _hint_in_widget(self) -> None:
        self.output.value = _pre("Hint: " + self._state.hint())

    def _solution_in_widget(self) -> None:
        self.output.value = _pre(self._state.solution())

    def _record(self, verdict: TaskVerdict) -> None:
        progress = self._progress if self._progress is not None else ProgressLog()
        progress.record(self.lesson, "task", self.id, done=verdict.done,
                        solution_shown=self._state.solution_shown,
                        solution_ran=verdict.solution_ran)

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        return f"Task({self.text!r})"

    def _picture(self) -> str:
        return (f"<div style='border:1px solid #bbb;padding:4px 8px;max-width:60em'>{self._head}"
                f"<br><i>(Check, Hint and Solution buttons)</i>{self.output.value}</div>")

    def _ipython_display_(self) -> None:
        self.still.display()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        return self.still.bundle()
