"""`TaskState` and `TaskVerdict`: a "your turn" task, checked by asking the cluster.

Theory of operation
-------------------
A task asks the learner to make something happen with a line or two of
code: a cluster verb, a client call, a Kafka tool command.  Whether it
happened is decided by a *check*, a function of no arguments that looks at
the cluster (never at the learner's code) and returns:

* ``True`` (done) or ``False`` (not done), or
* an `Outcome` (``done`` plus a one-line ``detail`` such as "payments has
  3 partitions, not 6"), as the checks in `minikafka.course.checks` do.

A check that raises is read as "not done", with the exception's message as
the detail: a learner's half-finished cluster must never put a traceback
under the check cell.

``hint()`` and ``solution()`` are there on request; ``solution()`` is
remembered (the progress file says a task was done after its solution was
shown).  A lesson whose later cells need the task's result may run the
solution on the learner's behalf when the check finds it not done; the
widget layer does that (``catch_up``), and `TaskState.solution_ran` records
it.  ``done`` is sticky: once a check passed, the task counts as done even if
the learner later undoes it.

No I/O and no widget: `widgets.Task` is the face.  Not a Kafka concept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from minikafka.course.prediction import slug


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a check found: done or not, and one line saying what it saw."""
    done: bool
    detail: str = ""

    def __bool__(self) -> bool:
        return self.done


@dataclass(frozen=True, slots=True)
class TaskVerdict:
    task: str
    done: bool
    detail: str
    checks: int                 # how many times the task has been checked, this one included
    solution_ran: bool = False
    ran: str = ""               # the solution's code, when the lesson ran it for the learner

    def headline(self) -> str:
        if self.done:
            seen = f" ({self.detail})" if self.detail else ""
            if self.solution_ran:
                return f"Done by the solution, not by your code{seen}."
            return f"Done: the cluster shows it{seen}."
        seen = f": {self.detail}" if self.detail else ""
        return f"Not done yet{seen}. To do: {self.task}"

    def text(self) -> str:
        if self.done and self.ran:
            code = "\n".join("    " + line for line in self.ran.splitlines())
            return f"{self.headline()}\n  So that the lesson can go on, it ran:\n{code}"
        if self.done:
            return self.headline()
        return (self.headline() + "\n  Write it in the code cell above, run that cell, then check "
                "again (ask for a hint with .hint(), the answer with .solution()).")

    def html(self) -> str:
        import html as _html
        colour = "#2e7d32" if self.done and not self.solution_ran else "#6d4c41"
        mark = "✔" if self.done else "…"
        rest = self.text()[len(self.headline()):].strip("\n")
        more = (f"<pre style='white-space:pre-wrap;margin:2px 0'>{_html.escape(rest)}</pre>"
                if rest else "")
        return (f"<div style='border-left:4px solid {colour};padding:4px 10px;margin:4px 0'>"
                f"<b style='color:{colour}'>{mark} {_html.escape(self.headline())}</b>{more}</div>")

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return self.text()


def run_check(check: Callable[[], Any]) -> Outcome:
    """Call a check and read its result as an `Outcome` (an exception is "not done")."""
    try:
        result = check()
    except Exception as error:      # the learner's cluster may be in any state
        message = str(error).splitlines()[0] if str(error) else ""
        return Outcome(False, f"{type(error).__name__}: {message}" if message
                       else type(error).__name__)
    if isinstance(result, Outcome):
        return result
    return Outcome(bool(result))


class TaskState:
    """One task's life; see the module docstring."""

    def __init__(self, text: str, check: Callable[[], Any], *, hint: str = "",
                 solution: str = "", id: str | None = None):
        if not callable(check):
            raise TypeError("check must be a function of no arguments that looks at the cluster")
        self.text = text
        self.id = id or slug(text)
        self._check = check
        self._hint = hint
        self._solution = solution
        self.checks = 0
        self.done = False
        self.solution_shown = False
        self.solution_ran = False

    def check(self) -> TaskVerdict:
        """Ask the cluster whether the task is done."""
        self.checks += 1
        outcome = run_check(self._check)
        self.done = self.done or outcome.done
        return TaskVerdict(self.text, outcome.done, outcome.detail, self.checks,
                           self.solution_ran and outcome.done)

    def hint(self) -> str:
        return self._hint or "No hint for this one: reread the task and the cells above it."

    def solution(self) -> str:
        """The solution's code (remembered as shown)."""
        self.solution_shown = True
        return self._solution or "(no solution given)"

    @property
    def solution_code(self) -> str:
        return self._solution
