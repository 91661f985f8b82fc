"""`FailurePanel`: buttons that break the cluster, and the log of what followed.

Theory of operation
-------------------
One row per node with five buttons, each calling the cluster facade's fault
verb of the same name (the verbs the tests and the simulation use too):

* ``kill(node_id)``     the process dies at once (like ``kill -9``); its data
  directory stays;
* ``restart(node_id)``  a killed node starts again from its data directory;
* ``pause(node_id)``    the process is frozen (like ``SIGSTOP``); messages to
  it queue up and it sends no heartbeats;
* ``resume(node_id)``   a paused process continues;
* ``isolate(node_id)``  a network partition cuts the node off from every
  other node (clients can still reach it);

plus one ``heal()`` button that removes every network partition.

Buttons carry deterministic descriptions ("Kill broker 2", "Heal network")
and tooltips, and are reachable as ``panel.buttons[("kill", 2)]`` (and
``panel.buttons[("heal", None)]``), so a headless test calls ``.click()``
and a browser test finds them by their text.

Buttons have state: `why_not` (the fault verbs' own table of the process
states in which each applies, `minikafka.cluster.faults.APPLIES`) disables a button that cannot act on its node now, and its
tooltip says why ("broker 2 is dead: restart it first").  The panel reads
``cluster.snapshot()`` again after every cluster event (on a `RedrawWorker`
thread, so the cluster's own thread is never held up).  A press that comes
anyway (a click racing an event, ``button.click()`` from code) reaches the
facade, which refuses it in its own words; a verb that fails never raises
into the kernel: the status line shows the error in one line, and
``panel.last_error`` keeps it.  Below the buttons (or beside them, with
``log_beside=True``) an `EventLogView` shows what the cluster did in
response.

``compact=True`` (the `Dashboard`) is the same panel drawn narrow, to sit
beside the diagram: the status line and *Heal network* on top, one row per
node with short verb buttons ("Kill", "Restart"...) after the node's name, then the event
log as a column with a header saying which clock its times are in.  The
short buttons keep their long names where code and tests look for them:
``panel.buttons[("kill", 2)]`` as before, the tooltip starts with the long
name ("Kill broker 2: ..."; while a gate closes the panel it is the gate's
line alone), the status line reports it ("Kill broker 2:
done"), and each button carries the CSS classes ``minikafka-fault`` and
``minikafka-kill-2`` (verb and node id) for a browser test.
A host widget may close every button for a while with a *gate*
(`set_gate`): a function returning one line saying why no button may act
now (a drill before its run), or None.  A gated panel disables its buttons
with that line as their tooltip, and a press that comes anyway shows the
line in the status area and calls nothing.

On a simulated cluster a `SimClock` row sits on top (``sim_clock=False``
leaves it out, as `Dashboard` does for its own panel): while the panel is on
screen virtual time runs by itself, so a kill plays out.

Names follow the driver: "broker 2", "controller 1001", and "node 1" for a
combined broker+controller node.
"""

from __future__ import annotations

import html
from typing import Any, Callable

import ipywidgets

from minikafka.cluster.faults import APPLIES
from widgets.event_log_view import EventLogView
from widgets.redraw import RedrawWorker
from widgets.sim_clock import sim_clock_for
from widgets.still import CLOSED, CLUSTER_STOPPED, StillPicture, caption_html
from widgets.theme import ERROR_COLOUR, muted, style_widget

VERBS = ("kill", "restart", "pause", "resume", "isolate")

_TOOLTIPS = {
    "kill": "Stop {name} abruptly, like kill -9; its data directory stays on disk",
    "restart": "Start {name} again from its data directory (log recovery, then it registers "
               "with the controller)",
    "pause": "Freeze {name}'s process, like SIGSTOP: it sends no heartbeats and messages to "
             "it queue up",
    "resume": "Let {name}'s paused process continue, like SIGCONT",
    "isolate": "Cut {name} off from every other node with a network partition (clients can "
               "still reach it)",
}
_BUTTON_STYLES = {"kill": "danger", "restart": "success", "pause": "warning", "resume": "info",
                  "isolate": "warning"}
HEAL_DESCRIPTION = "Heal network"
SHORT_LABELS = {"kill": "Kill", "restart": "Restart", "pause": "Pause", "resume": "Resume",
                "isolate": "Isolate"}


def button_class(verb: str, node_id: int | None) -> str:
    """The CSS class of a compact panel's button: ``minikafka-kill-2``, ``minikafka-heal``."""
    return f"minikafka-{verb}" if node_id is None else f"minikafka-{verb}-{node_id}"
_HEAL_TOOLTIP = "Remove every network partition: all nodes can talk again"

_REFUSALS = {
    ("kill", "dead"): "{name} is already dead",
    ("restart", "running"): "{name} is running: kill it first",
    ("restart", "paused"): "{name} is paused: resume it, or kill it first",
    ("pause", "paused"): "{name} is already paused",
    ("pause", "dead"): "{name} is dead: restart it first",
    ("resume", "running"): "{name} is not paused",
    ("resume", "dead"): "{name} is dead: restart it first",
}


def why_not(verb: str, node: Any, name: str) -> str | None:
    """Why ``verb`` cannot act on ``node`` (a `NodeSnapshot`) now; None when it can."""
    if verb == "isolate":
        return f"{name} is already isolated: heal the network first" if node.isolated else None
    if node.process in {state.value for state in APPLIES[verb]}:
        return None
    return _REFUSALS[(verb, node.process)].format(name=name)


def node_name(node_id: int, broker_ids: set[int], controller_ids: set[int]) -> str:
    """``broker 2``, ``controller 1001`` or ``node 1`` (both roles), as the driver says."""
    if node_id in broker_ids and node_id in controller_ids:
        return f"node {node_id}"
    return f"{'broker' if node_id in broker_ids else 'controller'} {node_id}"


class FailurePanel(ipywidgets.VBox):
    """Fault buttons for every node of ``cluster`` plus its event log."""

    def __init__(self, cluster: Any, *, show_log: bool = True, log_beside: bool = False,
                 history: int = 20, log_height: str = "16em", compact: bool = False,
                 sim_clock: bool = True):
        self._cluster = cluster
        self.compact = compact
        # simulated clusters only: virtual time runs while shown (widgets/sim_clock.py)
        self.sim_clock = sim_clock_for(cluster) if sim_clock else None
        brokers, controllers = set(cluster.broker_ids), set(cluster.controller_ids)
        # Brokers first (what most lessons break), then dedicated controllers.
        self.node_ids = sorted(brokers) + sorted(controllers - brokers)
        self.buttons: dict[tuple[str, int | None], ipywidgets.Button] = {}
        self.status = ipywidgets.HTML()             # result of the last button, in words
        self.last_error: str | None = None          # the last verb's error message, if it failed
        self._long: dict[tuple[str, int | None], str] = {}   # key -> "Kill broker 2"
        self._gate: Callable[[], str | None] | None = None   # see set_gate
        rows = [self._node_row(n, node_name(n, brokers, controllers)) for n in self.node_ids]
        heal = self._button(("heal", None), HEAL_DESCRIPTION, _HEAL_TOOLTIP,
                            "info", lambda: cluster.heal())
        self.event_log: EventLogView | None = None
        if show_log:
            self.event_log = EventLogView(cluster.events, history=history, height=log_height,
                                          data_dir=getattr(cluster, "data_dir", None),
                                          simulated=bool(getattr(cluster, "simulated", False)))
        if compact:
            children = self._compact_children(rows, heal)
        else:
            controls = ipywidgets.VBox([*rows, ipywidgets.HBox([heal]), self.status])
            children = [controls]
            if self.event_log is not None:
                log_box = ipywidgets.VBox([ipywidgets.HTML("<b>Cluster events</b>"),
                                           self.event_log],
                                          layout=ipywidgets.Layout(flex="1 1 0%",
                                                                   min_width="20em"))
                children = [ipywidgets.HBox([controls, log_box])] if log_beside \
                    else [controls, log_box]
            children.append(style_widget())
        if self.sim_clock is not None:
            children = [self.sim_clock, *children]
        super().__init__(children=children)
        self.still = StillPicture(lambda: ipywidgets.Widget._repr_mimebundle_(self),
                                  self.picture, lambda: repr(self))
        self._names = {n: node_name(n, brokers, controllers) for n in self.node_ids}
        self._update_buttons()
        self._worker = RedrawWorker(self._update_buttons, name="minikafka-failure-panel")
        self._unsubscribe_events = cluster.events.subscribe(lambda _event: self._worker.request())
        self._unsubscribe_stop = cluster.events.subscribe_stop(
            lambda: self.freeze(CLUSTER_STOPPED))

    # ------------------------------------------------------------------ button states
    def _compact_children(self, rows: list[ipywidgets.HBox],
                          heal: ipywidgets.Button) -> list[ipywidgets.Widget]:
        """Status line, a grid of short buttons, then the event log under its header."""
        self.add_class("minikafka-compact")
        self.status.layout = ipywidgets.Layout(flex="1 1 auto")
        top = ipywidgets.HBox([self.status, heal], layout=ipywidgets.Layout(
            align_items="center", justify_content="space-between"))
        grid = ipywidgets.VBox([top, *rows], layout=ipywidgets.Layout(margin="0 0 2px 0"))
        grid.add_class("minikafka-fault-grid")
        children: list[ipywidgets.Widget] = [style_widget(), grid]
        if self.event_log is not None:
            children.append(ipywidgets.HTML(self._log_header()))
            self.event_log.layout.width = "100%"
            children.append(self.event_log)
        return children

    def _log_header(self) -> str:
        note = self.event_log.clock_note if self.event_log is not None else ""
        return (f'<b>Cluster events</b> <span style="color:{muted()};font-size:90%">'
                f"newest first · {html.escape(note)}</span>")

    def _tooltip(self, key: tuple[str, int | None], text: str) -> str:
        """Compact buttons show one word, so their tooltip starts with the long name."""
        return f"{self._long[key]}: {text}" if self.compact else text
    def set_gate(self, gate: Callable[[], str | None] | None) -> None:
        """Close every button while ``gate()`` returns a reason (one line); None opens them
        again.  Call `refresh` when the gate's answer may have changed without a cluster event."""
        self._gate = gate
        self.refresh()

    def refresh(self) -> None:
        """Re-read the buttons' states (on the panel's worker thread)."""
        self._worker.request()

    def _closed_by_gate(self) -> str | None:
        return self._gate() if self._gate is not None else None

    def _update_buttons(self) -> None:
        """Enable exactly the buttons whose verb applies to its node now (tooltips say why not)."""
        if self.still.frozen:
            return
        closed = self._closed_by_gate()
        if closed is not None:
            for button in self.buttons.values():
                button.disabled, button.tooltip = True, closed
            return
        heal = self.buttons[("heal", None)]
        heal.disabled, heal.tooltip = False, self._tooltip(("heal", None), _HEAL_TOOLTIP)
        snapshot = self._cluster.snapshot()
        for node_id, name in self._names.items():
            node = snapshot.node(node_id)
            for verb in VERBS:
                button = self.buttons[(verb, node_id)]
                reason = why_not(verb, node, name)
                button.disabled = reason is not None
                button.tooltip = self._tooltip((verb, node_id),
                                               reason or _TOOLTIPS[verb].format(name=name))

    def _node_row(self, node_id: int, name: str) -> ipywidgets.HBox:
        label = ipywidgets.Label(name, layout=ipywidgets.Layout(
            width="7.5em" if self.compact else "9em", min_width="7.5em" if self.compact else ""))
        buttons = [
            self._button((verb, node_id), f"{verb.capitalize()} {name}",
                         _TOOLTIPS[verb].format(name=name), _BUTTON_STYLES[verb],
                         self._verb_call(verb, node_id))
            for verb in VERBS
        ]
        if self.compact:
            return ipywidgets.HBox([label, *buttons])
        # wrap instead of clipping: "Isolate controller 1001" rows are wide
        return ipywidgets.HBox([label, *buttons], layout=ipywidgets.Layout(flex_flow="row wrap"))

    def _verb_call(self, verb: str, node_id: int) -> Callable[[], Any]:
        return lambda: getattr(self._cluster, verb)(node_id)

    def _button(self, key: tuple[str, int | None], description: str, tooltip: str,
                style: str, action: Callable[[], Any]) -> ipywidgets.Button:
        self._long[key] = description
        shown = SHORT_LABELS.get(key[0], description) if self.compact else description
        button = ipywidgets.Button(description=shown, tooltip=self._tooltip(key, tooltip),
                                   button_style=style, layout=ipywidgets.Layout(width="auto"))
        button.add_class("minikafka-fault")
        button.add_class(button_class(*key))
        button.on_click(lambda _button: self._run(description, action))
        self.buttons[key] = button
        return button

    def _run(self, description: str, action: Callable[[], Any]) -> None:
        """Call the verb; show its error in the panel instead of raising it."""
        if self.still.frozen:           # a press from code after the freeze: one line, no verb
            self.last_error = f"{description} not done: this panel is frozen. {self.still.caption}"
            self.status.value = html.escape(self.last_error)
            return
        try:
            closed = self._closed_by_gate()
            if closed is not None:
                raise RuntimeError(closed)
            action()
        except Exception as exc:      # shown to the learner, never raised into the kernel
            self.last_error = f"{description} failed: {str(exc) or type(exc).__name__}"
            self.status.value = (f'<span style="color:{ERROR_COLOUR}">'
                                 f"{html.escape(self.last_error)}</span>")
            return
        self.last_error = None
        self.status.value = f"{html.escape(description)}: done"

    # ------------------------------------------------------------------ still picture
    def picture(self) -> str:
        """The panel as HTML for a still picture: the event log (buttons cannot be pressed
        in a picture, so they are left out)."""
        if self.event_log is None:
            return "<i>Failure buttons (live in a running notebook).</i>"
        header = "<b>Cluster events</b>"
        if self.compact:
            header += (f' <span style="color:{muted()};font-size:90%">newest first · times: '
                       f"seconds after the oldest event shown</span>")
        return header + self.event_log.picture()

    def _ipython_display_(self) -> None:
        self.still.display()

    def freeze(self, caption: str = CLOSED) -> None:
        """Disable the buttons, stop following the log, keep the picture with ``caption``."""
        if self.still.frozen:
            return
        for name in ("_unsubscribe_stop", "_unsubscribe_events"):
            unsubscribe = getattr(self, name, None)
            if unsubscribe is not None:
                unsubscribe()
        worker = getattr(self, "_worker", None)
        if worker is not None:
            worker.close()
        if getattr(self, "sim_clock", None) is not None:
            self.sim_clock.freeze(caption)
        self.still.freeze(caption)      # before the buttons: a last update must not re-enable them
        for button in self.buttons.values():
            button.disabled = True
        if self.event_log is not None:
            self.event_log.freeze(caption)
        self.status.value = caption_html(caption)

    def close(self) -> None:
        """Freeze (the saved notebook keeps the log), then close the widgets."""
        if getattr(self, "still", None) is not None:
            self.freeze(CLOSED)
        event_log = getattr(self, "event_log", None)     # absent if __init__ failed
        if event_log is not None:
            event_log.close()
        if getattr(self, "sim_clock", None) is not None:
            self.sim_clock.close()
        super().close()

    def __repr__(self) -> str:
        return f"FailurePanel(nodes={self.node_ids!r})"
