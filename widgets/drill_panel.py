"""`DrillPanel`: a drill on screen: the question, the answer controls, the lock, the clock, the verdict.

Theory of operation
-------------------
The panel is a face for a `minikafka.drills.Drill`; every control calls the
drill's own API, so the panel and a headless script grade the same way:

* each question gets a control of its type: a drop-down for choices, True
  or False and one node id ("(no answer)" withdraws), a multiple selection
  for a set of node ids, a text box for numbers (``3``, or ``0, 2`` for a
  set); a change calls ``drill.answer`` at once;
* the buttons follow the drill's life: **Lock and run** (a predict drill:
  the predictions lock, then the fault plays) or **Run the drill** (a
  diagnose or fix drill: the fault plays, then the learner investigates);
  **Check health** (fix drills); **Hint (-1 point)**; **Lock and grade**,
  which shows each answer against the run's own answer, the score and the
  explanation;
* the clock shows the time left when the drill has a time limit (the
  answers lock when it runs out; the engine enforces it), else the time
  spent (``clock_label=False`` hides it);
* a refused answer (wrong type, too late) never raises into the kernel: the
  status line shows the one-line reason, and ``panel.last_error`` keeps it;
* the cluster's `Dashboard` (diagram, fault buttons, event log) sits beside
  the drill unless ``dashboard=False``; beside a *diagnose* drill, the
  `OperatorView` instead: its broker states are what an operator observes
  (alive, fenced, not responding, dead), where the dashboard's diagram names
  the sandbox's own fault (paused, isolated) and would give the answer away.

The drill's run owns the cluster until it has played: before **Lock and
run** (or **Run the drill**) the dashboard's fault buttons are closed (its
panel's gate, `FailurePanel.set_gate`), disabled with a tooltip, and a press
that comes anyway is refused with one line in its status area, so a Kill
pressed too early cannot spoil the scenario.  If the run fails anyway, the
drill stops its cluster; the panel waits for the run to end, shows the
failure in one line under the story, and freezes with a caption saying the
drill is over and how to start it again.  Any other error of a control is
one line in the status area too, never a traceback.

On a simulated cluster the panel also shows a `SimClock` row (the
dashboard's own is left out): virtual time that runs by itself while the
panel is on screen, so after the run a kill plays out (fencing, a new
leader) as on a live cluster, and a fix drill's repair takes effect without
code.  It waits for the run: before *Lock and run* / *Run the drill* the
scene stays as it was set up (every learner with the same seed plays the
same run, and what the learner reads in the brief is still true when they
press the button); the run itself plays in virtual time on the kernel's
thread, where the clock cannot step in, so it grades exactly as without the
clock.  From then on time runs (pause it with ⏸ to study a moment).

Presentation: texts wrap between words, never inside one (JupyterLab's
output ``<pre>`` would break "Part|itionCount"); the scene's tool output
(``kafka-topics.sh --describe`` lines, tab-separated) stays a table, one
row per partition line, scrolling sideways when the panel is narrow, and
the topic line's cells wrap as whole cells (`brief_html`);
the graded report shows each verdict as its word on a coloured badge,
right, wrong or no answer (`report_html`, `widgets.theme.verdict_badge`).

``tick_s=None`` stops the clock's thread and the `SimClock`'s (tests call
`tick` themselves).
The ``repr`` is deterministic, for nbval.
"""

from __future__ import annotations

import html
import re
import threading
from typing import Any, Callable

import ipywidgets

from minikafka.drills.answer_types import choice_labels
from widgets.sim_clock import sim_clock_for
from widgets.still import CLOSED, StillPicture
from widgets.theme import ERROR_COLOUR, verdict_badge

DRILL_STOPPED = "The drill's cluster was stopped: this is the panel's last picture."
RUN_FAILED = ("The drill failed while running and stopped its cluster: this is the panel's last "
              "picture. Start the drill again (drills.start) to play it.")

NO_ANSWER = "(no answer)"

WAITING_FOR_RUN = "time starts when the drill runs"


_WRAP = "white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere"


def _pre(text: str) -> str:
    """Preformatted text that wraps between words (inline style beats JupyterLab's rule)."""
    return f'<pre style="{_WRAP};margin:0">{html.escape(text)}</pre>'


_CODE_FONT = "font-family:var(--jp-code-font-family,monospace);font-size:90%"


def _table(lines: list[str]) -> str:
    """Tab-separated lines (a tool's output) as HTML: a line that starts with a tab is a row of
    a table (``kafka-topics.sh --describe``'s partition lines); a line that does not (its topic
    line) lists its cells, which wrap as whole cells."""
    parts: list[str] = []
    rows: list[str] = []

    def close_table() -> None:
        if rows:
            parts.append('<div style="overflow-x:auto;max-width:100%;margin:2px 0">'
                         f'<table style="border-collapse:collapse;{_CODE_FONT}">'
                         f'{"".join(rows)}</table></div>')
            rows.clear()

    for line in lines:
        cells = [html.escape(cell) for cell in line.split("\t") if cell.strip()]
        if line.startswith("\t"):
            rows.append("<tr>" + "".join(f'<td style="padding:0 0.9em 0 {"1.2em" if i == 0 else "0"};'
                                         f'white-space:nowrap">{cell}</td>'
                                         for i, cell in enumerate(cells)) + "</tr>")
            continue
        close_table()
        parts.append(f'<div style="{_CODE_FONT};display:flex;flex-wrap:wrap;column-gap:0.9em">'
                     + "".join(f'<span style="white-space:nowrap">{cell}</span>' for cell in cells)
                     + "</div>")
    close_table()
    return "".join(parts)


def brief_html(text: str) -> str:
    """A drill's scene as HTML: prose wraps by words, runs of tab-separated lines are tables."""
    parts: list[str] = []
    block: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if block:
            parts.append(_table(block))
            block.clear()
        if prose:
            parts.append(f'<div style="{_WRAP}">{html.escape(chr(10).join(prose))}</div>')
            prose.clear()

    for line in text.split("\n"):
        if "\t" in line:
            if prose:
                flush()
            block.append(line)
        else:
            if block:
                flush()
            prose.append(line)
    flush()
    return f'<div class="minikafka-drill-brief">{"".join(parts)}</div>'


_REPORT_LINE = re.compile(r"\[(right|wrong|no points)\] (\S+): (.*)")


def report_html(report: str) -> str:
    """A drill's graded report (`Drill.report`) with each answer's verdict as a coloured word."""
    lines = []
    for line in report.split("\n"):
        match = _REPORT_LINE.fullmatch(line)
        if match is None:
            lines.append(html.escape(line))
            continue
        mark, question, rest = match.groups()
        word = "no answer" if mark == "wrong" and rest.startswith("no answer") else mark
        lines.append(f"{verdict_badge(word)} <b>{html.escape(question)}</b>: {html.escape(rest)}")
    return f'<div style="{_WRAP};font-family:var(--jp-code-font-family,monospace)">' \
           + "\n".join(lines) + "</div>"


def parse_numbers(text: str, many: bool) -> Any:
    """What a learner typed into a number box: ``3`` -> 3, ``0, 2`` -> [0, 2], blank -> None;
    anything else is handed on as text, so the drill explains what it expected."""
    text = text.strip()
    if not text:
        return None
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    try:
        values = [int(p) for p in parts]
    except ValueError:
        return text
    return values if many else values[0] if len(values) == 1 else text


class DrillPanel(ipywidgets.HBox):
    def __init__(self, drill: Any, *, dashboard: bool = True, tick_s: float | None = 1.0,
                 clock_label: bool = True):
        from minikafka.drills.question import DrillError
        self.drill = drill
        self._refused = (DrillError, )
        self.last_error: str | None = None          # the last refused action, in one line
        self.controls: dict[str, ipywidgets.Widget] = {}
        self.status = ipywidgets.HTML()
        self.clock = ipywidgets.HTML()
        self.story = ipywidgets.HTML()
        self.hints = ipywidgets.HTML()
        self.verdict = ipywidgets.HTML()
        self.buttons = self._make_buttons()
        rows = [self._question_row(q) for q in drill.questions]
        # simulated drills: virtual time runs while shown, once the drill has run (sim_clock.py)
        # (tick_s=None: no thread for it either; a test drives it with its tick())
        self.sim_clock = sim_clock_for(drill.cluster, gate=self._time_may_run,
                                       **({} if tick_s is not None else {"tick_s": None}))
        head = ipywidgets.HTML(f"<b>{html.escape(drill.title)}</b> · {drill.kind} · after lesson "
                               f"{drill.info.lesson} · seed {html.escape(repr(drill.seed))}")
        brief = ipywidgets.HTML(brief_html(drill.scenario.scene()))
        task = [ipywidgets.HTML(_pre("Fix: " + drill.scenario.task()))] if drill.kind == "fix" else []
        # what a still picture of the panel shows, top to bottom (no controls: nothing to press)
        self._pictured = [head, brief, *task, *(row.children[0] for row in rows), self.status,
                          self.hints, self.story, self.verdict]
        side = ipywidgets.VBox([head, brief, *task, *rows,
                                ipywidgets.HBox(list(self.buttons.values()),
                                                layout=ipywidgets.Layout(flex_flow="row wrap")),
                                self.clock if clock_label else ipywidgets.HTML(),
                                *([self.sim_clock] if self.sim_clock is not None else []),
                                self.status,
                                self.hints, self.story, self.verdict],
                               layout=ipywidgets.Layout(flex="1 1 28em", min_width="24em"))
        self.dashboard = None
        children: list[ipywidgets.Widget] = [side]
        if dashboard and drill.cluster is not None:
            if drill.kind == "diagnose":
                from widgets.operator_view import OperatorView
                self.dashboard = OperatorView(drill.cluster, sim_clock=False)
            else:
                from widgets.dashboard import Dashboard
                self.dashboard = Dashboard(drill.cluster, sim_clock=False)
            self.dashboard.layout.flex = "2 1 36em"
            children.append(self.dashboard)
            panel = getattr(self.dashboard, "panel", None)      # the fault buttons, if any
            if panel is not None:
                panel.set_gate(self._fault_gate)
        super().__init__(children=children, layout=ipywidgets.Layout(flex_flow="row wrap",
                                                                     width="100%"))
        self.still = StillPicture(lambda: ipywidgets.Widget._repr_mimebundle_(self),
                                  self.picture, lambda: repr(self))
        self._running = False               # a run is under way (on the kernel's thread)
        self._stopped_while_running = False
        self._unsubscribe_stop = (drill.cluster.events.subscribe_stop(self._cluster_stopped)
                                  if drill.cluster is not None else None)
        self._stop = threading.Event()
        self._thread = None
        self._refresh()
        if tick_s is not None:
            self._thread = threading.Thread(target=self._tick_loop, args=(tick_s,), daemon=True,
                                            name=f"drill-clock-{drill.id}")
            self._thread.start()

    # ------------------------------------------------------------------ building
    def _make_buttons(self) -> dict[str, ipywidgets.Button]:
        specs = [("run", "Lock and run" if self.drill.kind == "predict" else "Run the drill",
                  "primary", self._run)]
        if self.drill.kind == "fix":
            specs.append(("check", "Check health", "info", self._check))
        specs += [("hint", "Hint (-1 point)", "warning", self._hint),
                  ("grade", "Lock and grade", "success", self._grade)]
        buttons = {}
        for key, description, style, action in specs:
            button = ipywidgets.Button(description=description, button_style=style,
                                       layout=ipywidgets.Layout(width="auto"))
            button.on_click(lambda _b, act=action, text=description: self._act(text, act))
            buttons[key] = button
        return buttons

    def _question_row(self, question) -> ipywidgets.VBox:
        if question.type in ("choice", "bool", "node"):
            shown = choice_labels(question.choices) if question.type == "choice" else \
                [str(c) for c in question.choices]
            options = [(NO_ANSWER, None)] + list(zip(shown, question.choices))
            control = ipywidgets.Dropdown(options=options, value=None,
                                          layout=ipywidgets.Layout(width="auto"))
            read = lambda: control.value                                     # noqa: E731
        elif question.type == "nodes":
            control = ipywidgets.SelectMultiple(options=list(question.choices), value=())
            read = lambda: list(control.value) if control.value else None    # noqa: E731
        else:
            control = ipywidgets.Text(placeholder="0, 2" if question.type == "numbers" else "a number",
                                      continuous_update=False)
            read = lambda: parse_numbers(control.value, question.type == "numbers")  # noqa: E731
        control.observe(lambda _change: self._act(f"Answer to {question.id}",
                                                  lambda: self.drill.answer(question.id, read())),
                        names="value")
        self.controls[question.id] = control
        when = "predict before the run" if question.when == "before" else "answer after the run"
        label = ipywidgets.HTML(f"<b>{html.escape(question.id)}</b> ({when}): "
                                f"{html.escape(question.text)}")
        return ipywidgets.VBox([label, control])

    def _time_may_run(self) -> str | None:
        """The `SimClock` gate: virtual time runs by itself only once the drill has run."""
        return None if self.drill.state in ("ran", "graded") else WAITING_FOR_RUN

    # ------------------------------------------------------------------ actions
    def _act(self, description: str, action: Callable[[], Any]) -> None:
        """Call the drill; a refusal is shown in one line, never raised into the kernel."""
        if self.still.frozen:
            self.last_error = "This panel's drill is over: its controls no longer act"
            return
        try:
            action()
        except Exception as error:              # one line, never a traceback in a cell
            text = str(error) if isinstance(error, self._refused) else \
                f"{description} failed: {type(error).__name__}: {error}"
            self.last_error = text.splitlines()[0] if text else type(error).__name__
            self.status.value = (f'<span style="color:{ERROR_COLOUR}">'
                                 f"{html.escape(self.last_error)}</span>")
        else:
            self.last_error = None
            self.status.value = ""
        if self._stopped_while_running:
            self.freeze(RUN_FAILED)
            return
        self._refresh()

    def _fault_gate(self) -> str | None:
        """Why the dashboard's fault buttons are closed now (before the run), or None."""
        if self.drill.state == "ready":
            return (f"Press {self.buttons['run'].description} first: the drill's fault must play on "
                    f"the cluster as the scene left it")
        return None

    def _cluster_stopped(self) -> None:
        if self._running:           # the run failed and its drill stopped the cluster:
            self._stopped_while_running = True      # freeze once the run has said so
        else:
            self.freeze(DRILL_STOPPED)

    def _run(self) -> None:
        self.buttons["run"].disabled = True
        self.story.value = "<i>running...</i>"
        self._running = True
        try:
            story = self.drill.run()
        except Exception as error:
            self.story.value = "<b>The run failed</b>: the drill is over (the reason is below)."
            raise
        finally:
            self._running = False
        self.story.value = _pre(story)
        panel = getattr(self.dashboard, "panel", None)
        if panel is not None:
            panel.refresh()         # the gate has opened: the fault buttons follow the cluster

    def _check(self) -> None:
        self.verdict.value = _pre(self.drill.check())

    def _hint(self) -> None:
        hint = self.drill.hint()
        self.hints.value += _pre(f"Hint {self.drill.hints_used}: {hint}")

    def _grade(self) -> None:
        self.drill.grade()
        self.verdict.value = report_html(self.drill.report())

    # ------------------------------------------------------------------ state on screen
    def _refresh(self) -> None:
        drill = self.drill
        state = drill.state
        for question in drill.questions:
            locked = (state not in ("ready", "ran") or drill.locked
                      or (question.when == "before" and drill.locked_before)
                      or (question.when == "after" and state == "ready"))
            self.controls[question.id].disabled = locked
        self.buttons["run"].disabled = state != "ready"
        self.buttons["grade"].disabled = state != "ran"
        self.buttons["hint"].disabled = state not in ("ready", "ran")
        if "check" in self.buttons:
            self.buttons["check"].disabled = state != "ran"
        self.tick()

    def tick(self) -> None:
        """Update the clock; when the time limit has run out, lock the answers."""
        drill = self.drill
        if drill.state not in ("ready", "ran"):
            self.clock.value = ""
            return
        if drill.time_up():
            for control in self.controls.values():
                control.disabled = True
            self.clock.value = "<b>Time is up:</b> the answers are locked"
            return
        left = drill.remaining_s()
        shown, word = (left, "left") if left is not None else (drill.elapsed_s(), "spent")
        minutes, seconds = divmod(int(shown + (0.999 if left is not None else 0)), 60)
        self.clock.value = f"Time {word}: {minutes}:{seconds:02d}"

    def _tick_loop(self, tick_s: float) -> None:
        while not self._stop.wait(tick_s):
            try:
                self.tick()
            except Exception:       # a clock must never take the kernel down
                return

    # ------------------------------------------------------------------ still picture
    def picture(self) -> str:
        """The panel as HTML: brief, questions, what the run and the grade said, and the
        cluster's view beside them."""
        side = "".join(f"<div>{part.value}</div>" for part in self._pictured)
        view = self.dashboard.still.picture() if self.dashboard is not None else ""
        return (f'<div style="display:flex;flex-wrap:wrap;gap:1em"><div style="flex:1 1 28em">'
                f'{side}</div><div style="flex:2 1 36em">{view}</div></div>')

    def _ipython_display_(self) -> None:
        self.still.display()

    def freeze(self, caption: str = CLOSED) -> None:
        """Stop the clock, disable the controls, keep the last picture with ``caption``."""
        if self.still.frozen:
            return
        if self._unsubscribe_stop is not None:
            self._unsubscribe_stop()
        self._stop.set()
        if self.sim_clock is not None:
            self.sim_clock.freeze(caption)
        for control in (*self.controls.values(), *self.buttons.values()):
            control.disabled = True
        if self.dashboard is not None:
            self.dashboard.freeze(caption)
        self.still.freeze(caption)

    def close(self) -> None:
        """Freeze, stop the clock and close the dashboard (the drill itself stays;
        drill.close() ends it)."""
        if getattr(self, "still", None) is not None:
            self.freeze(CLOSED)
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        dashboard = getattr(self, "dashboard", None)
        if dashboard is not None:
            dashboard.close()
        if getattr(self, "sim_clock", None) is not None:
            self.sim_clock.close()
        super().close()

    def __repr__(self) -> str:
        return (f"DrillPanel(drill={self.drill.id!r}, seed={self.drill.seed!r}, "
                f"questions={len(self.drill.questions)})")
