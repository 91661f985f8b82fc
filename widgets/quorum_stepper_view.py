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
``step``, ``back``, ``run_until_leader``, ``drop_next``, ``timeout`` and
``isolate`` (for the controller chosen in ``view.controller``), ``heal`` and
``append`` (the record typed in ``view.record``).  A control the stepper
refuses never raises into the kernel: its one-line message goes to the status
line (``view.status``) and ``view.last_error``.

The view displays with a still picture (`widgets.still`).  When its stepper
is closed the view freezes: the buttons are disabled and the last picture
stays, with a caption, on the page and in the saved notebook.
"""

from __future__ import annotations

import html
from typing import Any, Callable

import ipywidgets

from widgets.quorum_stepper import QuorumStepperError
from widgets.quorum_stepper_render import stepper_html
from widgets.still import CLOSED, StillPicture, caption_html

STEPPER_CLOSED = "The stepper was closed: this is its last picture."

_BUTTONS = (
    ("step", "Step", "Deliver the next message or fire the next timer", "primary"),
    ("back", "Back", "Undo the last event (the run is replayed from the seed)", ""),
    ("run_until_leader", "Run until leader", "Step until a controller wins an election", "info"),
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
        row1 = ipywidgets.HBox([self.buttons[n] for n in ("step", "back", "run_until_leader",
                                                          "drop_next", "heal")])
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
        """What the button ``name`` does (refusals go to the status line, never raised)."""
        actions = {
            "step": lambda: self.stepper.step(),
            "back": lambda: self.stepper.back(),
            "run_until_leader": lambda: self.stepper.run_until_leader(),
            "drop_next": lambda: self.stepper.drop_next(),
            "timeout": lambda: self.stepper.timeout(self.controller.value),
            "isolate": lambda: self.stepper.isolate(self.controller.value),
            "heal": lambda: self.stepper.heal(),
            "append": lambda: self.stepper.append(self.record.value),
        }
        try:
            actions[name]()
        except QuorumStepperError as exc:
            self.last_error = str(exc)
            self.status.value = f'<span style="color:#c62828">{html.escape(str(exc))}</span>'
            return
        self.last_error = None
        self.status.value = ""

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
