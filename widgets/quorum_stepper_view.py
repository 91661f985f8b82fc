"""`QuorumStepperView`: the KRaft election stepper as a widget with a button per control.

Theory of operation
-------------------
A view over one `QuorumStepper`, which owns everything: the view holds no
state of the quorum.  It shows `stepper_html` (the controllers, the messages
in flight, the queue and the timeline) in one ``ipywidgets.HTML`` and redraws
it after every control, whether a button or a notebook cell applied it (the
stepper calls its subscribers).  A redraw is one string assignment, done on
the kernel's thread right after the control: no background thread.

Buttons, reachable as ``view.buttons[name]`` so tests can ``click()`` them:
``next_event``, ``step``, ``back``, ``run_until_leader``, ``drop_next``,
``timeout`` and ``isolate`` (for the controller chosen in
``view.controller``), ``heal`` and ``append`` (the record typed in
``view.record``).  Every press leaves one line in the status line
(``view.status``, also ``view.last_status``): what *Next event* landed on,
who leads after *Run until leader* (or that a leader was already there),
what *Isolate* and *Heal* did or that there was nothing to do.  A control the
stepper refuses never raises into the kernel: its one line goes to the
status line in the error colour and to ``view.last_error``.  Colours use
JupyterLab's theme variables with light fallbacks, so the dark theme works.

The view displays with a still picture (`widgets.still`).  When its stepper
is closed the view freezes: the buttons are disabled and the last picture
stays, with a caption, on the page and in the saved notebook.
"""

from __future__ import annotations

import html
from typing import Any, Callable

import ipywidgets

from minikafka.testing.quorum_stepper import QuorumStepperError
from widgets.quorum_stepper_render import stepper_html
from widgets.still import CLOSED, StillPicture, caption_html

STEPPER_CLOSED = "The stepper was closed: this is its last picture."
ERROR_COLOUR = "var(--jp-error-color1, #c62828)"
NOTE_COLOUR = "var(--jp-ui-font-color1, #333)"

_BUTTONS = (
    ("next_event", "Next event", "Step over routine Fetch traffic to the next event that matters "
     "(a timeout, a vote, a role, epoch or high-watermark change)", "primary"),
    ("step", "Step", "Deliver the next message or fire the next timer", ""),
    ("back", "Back", "Undo the last event (the run is replayed from the seed)", ""),
    ("run_until_leader", "Run until leader", "The leader if one leads already; else step until a "
     "controller wins an election", "info"),
    ("drop_next", "Drop next message", "The next message in flight is lost", "warning"),
    ("timeout", "Time out", "The chosen controller's election (or fetch) timer runs out now",
     "warning"),
    ("isolate", "Isolate", "Cut the chosen controller off from the others", "danger"),
    ("heal", "Heal network", "Every controller can reach every other again", "success"),
    ("append", "Append", "The leader appends the record typed on the left", ""),
)


class QuorumStepperView(ipywidgets.VBox):
    """Buttons, diagram, queue and timeline of ``stepper`` (see the module docstring)."""

    def __init__(self, stepper: Any):
        self.stepper = stepper
        self.picture = ipywidgets.HTML()
        self.status = ipywidgets.HTML()
        self.last_error: str | None = None
        self.last_status: str = ""
        self.controller = ipywidgets.Dropdown(options=list(stepper.node_ids),
                                              value=stepper.node_ids[0], description="controller",
                                              layout=ipywidgets.Layout(width="190px"))
        self.record = ipywidgets.Text(value="x", description="record",
                                      layout=ipywidgets.Layout(width="170px"))
        self.buttons: dict[str, ipywidgets.Button] = {}
        for name, text, tooltip, style in _BUTTONS:
            button = ipywidgets.Button(description=text, tooltip=tooltip, button_style=style,
                                       layout=ipywidgets.Layout(width="auto"))
            button.on_click(self._handler(name))
            self.buttons[name] = button
        row1 = ipywidgets.HBox([self.buttons[n] for n in ("next_event", "step", "back",
                                                          "run_until_leader", "drop_next",
                                                          "heal")])
        row2 = ipywidgets.HBox([self.controller, self.buttons["timeout"], self.buttons["isolate"],
                                self.record, self.buttons["append"]])
        super().__init__([row1, row2, self.status, self.picture])
        self.still = StillPicture(lambda: ipywidgets.Widget._repr_mimebundle_(self),
                                  lambda: self.picture.value, lambda: repr(self))
        self._unsubscribe = stepper.subscribe(self.redraw)
        self.redraw()

    def _handler(self, name: str) -> Callable[[Any], None]:
        def run(_button: Any) -> None:
            self.press(name)
        return run

    def press(self, name: str) -> None:
        """What the button ``name`` does; one line in the status line either way (refusals
        included: they are never raised)."""
        stepper = self.stepper
        actions = {
            "next_event": stepper.next_event,
            "step": lambda: stepper.step(),
            "back": lambda: stepper.back(),
            "run_until_leader": self._run_until_leader,
            "drop_next": lambda: stepper.drop_next(),
            "timeout": lambda: stepper.timeout(self.controller.value),
            "isolate": lambda: stepper.isolate(self.controller.value),
            "heal": stepper.heal,
            "append": lambda: f"Offset {stepper.append(self.record.value)} at the leader; it "
                              f"is committed once a majority has fetched it",
        }
        try:
            said = actions[name]()
        except QuorumStepperError as exc:
            self.last_error = str(exc)
            self._say(str(exc), ERROR_COLOUR)
            return
        self.last_error = None
        self._say(str(said) if isinstance(said, str) else "", NOTE_COLOUR)

    def _run_until_leader(self) -> str:
        events = self.stepper.events
        leader = self.stepper.run_until_leader()
        if leader is None:
            return ("No controller won an election within 30 s of virtual time (can a majority "
                    "reach each other?)")
        epoch = self.stepper.state()[leader]["epoch"]
        if self.stepper.events == events:
            return f"Controller {leader} already leads epoch {epoch}: nothing to run"
        return f"Controller {leader} won epoch {epoch} after {self.stepper.events - events} steps"

    def _say(self, line: str, colour: str) -> None:
        self.last_status = line
        self.status.value = (f'<span style="color:{colour}">{html.escape(line)}</span>'
                             if line else "")

    def redraw(self) -> None:
        """Draw the stepper as it is now (a closed stepper: the view freezes instead)."""
        if self.stepper.closed:
            self.freeze(STEPPER_CLOSED)
            return
        self.picture.value = stepper_html(self.stepper)

    def _ipython_display_(self) -> None:
        self.still.display()

    def freeze(self, caption: str = CLOSED) -> None:
        """Disable the controls and keep the last picture with ``caption`` (page and saved
        notebook); later calls do nothing."""
        if self.still.frozen:
            return
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._unsubscribe = None
        for control in (self.controller, self.record, *self.buttons.values()):
            control.disabled = True
        self.status.value = caption_html(caption)
        self.still.freeze(caption)

    def close(self) -> None:
        if getattr(self, "still", None) is not None:
            self.freeze(CLOSED)
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._unsubscribe = None
        for child in (self.picture, self.status, self.controller, self.record,
                      *self.buttons.values()):
            child.close()
        super().close()

    def __repr__(self) -> str:
        return f"QuorumStepperView({self.stepper!r})"
