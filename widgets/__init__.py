"""Widgets and diagrams for the minikafka lessons.

Everything here reads the cluster only through ``cluster.snapshot()`` (a
`minikafka.ClusterSnapshot`) and ``cluster.events`` (an
`EventLog`), and breaks it only through the facade's fault verbs
(``kill``, ``restart``, ``pause``, ``resume``, ``isolate``, ``heal``).

Pure functions (no widgets, no threads):

* `topology_dot(snapshot)`: Graphviz DOT source of the cluster picture;
* `topology_text(snapshot)`: the same picture as plain text;
* `topology_diagram(snapshot)`: an object that displays as SVG in a cell
  (text when Graphviz's ``dot`` is missing), with the text as ``text/plain``.

Widgets (ipywidgets; safe to update from the cluster's thread):

* `TopologyView(cluster)`: the diagram, redrawn on every cluster event;
* `FailurePanel(cluster)`: fault buttons per node plus the event log;
* `EventLogView(cluster.events)`: the event log alone;
* `Dashboard(cluster)`: the diagram beside a narrow column with the
  buttons and the event log, sized for one projector screen
  (``operator=True`` adds the operator's view, collapsed, under them);
  every widget follows JupyterLab's light or dark theme (`widgets.theme`);
* `OperatorView(cluster)`: the operator's view alone: health tiles (active
  controller, offline and under-replicated partitions, brokers alive) and
  per-broker disk, partition/leader balance and traffic from Kafka's MBeans;
  `operator_text(snapshot)` is the same view as stable text, `operator_html`
  as an HTML fragment; its broker states are what an operator observes, and
  `probe_text(snapshot)` lists the observations behind them (is the process
  listed, is the broker fenced, does a request to its port get an answer);
* `SimClock(cluster)`: a simulated cluster's virtual time, running by itself
  while the row is on screen (speed buttons, pause); the views of a
  simulated cluster show one (`widgets.sim_clock`);
* `ReplicaView(cluster, topic, partition)`: one partition's replicas side by
  side (log end offset, high watermark, ISR), live; `replica_table(snapshot,
  topic, partition)` is the same table as text.

The learner acts (`minikafka.course` holds the logic, these are the faces):

* `Prediction(question, kind=..., choices=...)`: an answer widget the
  learner commits before the cells that show the result, ``p.answer(...)``
  in code, and ``p.reveal(value_from_the_cluster, why=...)`` grading it;
* `Task(text, check=..., hint=..., solution=...)`: a "your turn" task whose
  check asks the cluster whether the learner's code did it (`checks` has
  ready-made checks);
* `progress_report(folder)`: this learner's predictions and tasks per lesson.

Drills (`minikafka.drills`): `DrillPanel(drill)` shows a drill's questions
with answer controls, the lock, a clock, hints and the graded explanation,
beside the cluster's `Dashboard`; `TeacherView(folder)` shows a class's
scores per drill and per learner, with CSV export (`teacher_html` without a
widget).

The KRaft election stepper needs no cluster: `QuorumStepper(controllers=3,
seed=7)` runs a quorum of controllers in virtual time with the engine's own
raft code, stepped by hand (headless, or displayed as a `QuorumStepperView`);
`quorum_scenarios` holds the lesson's recipes (first election, split vote,
pre-vote, isolated leader).  The stepper's model and the recipes live in
``minikafka.testing`` (re-exported here); this package adds only the view.
"""

from minikafka.course import checks
from widgets.dashboard import Dashboard
from widgets.drill_panel import DrillPanel
from widgets.exercise import check_answer
from widgets.event_log_view import EventLogView, format_event
from widgets.failure_panel import FailurePanel
from widgets.operator_html import operator_html
from widgets.operator_text import operator_text, probe_text
from widgets.operator_view import OperatorView
from minikafka.testing import quorum_scenarios
from widgets.quorum_stepper import QuorumStepper, QuorumStepperError
from widgets.quorum_stepper_view import QuorumStepperView
from widgets.prediction import Prediction
from widgets.progress_view import progress_report
from widgets.replica_view import ReplicaView, replica_table
from widgets.sim_clock import SimClock
from widgets.task import Task
from widgets.teacher_view import TeacherView, teacher_html
from widgets.render import (DOT_MISSING_MESSAGE, TopologyDiagram, dot_available,
                            topology_diagram, topology_html)
from widgets.topology import topology_dot
from widgets.topology_text import topology_text
from widgets.topology_view import TopologyView

__all__ = [
    "DOT_MISSING_MESSAGE",
    "Dashboard",
    "DrillPanel",
    "EventLogView",
    "FailurePanel",
    "OperatorView",
    "Prediction",
    "QuorumStepper",
    "QuorumStepperError",
    "QuorumStepperView",
    "ReplicaView",
    "SimClock",
    "Task",
    "TeacherView",
    "TopologyDiagram",
    "TopologyView",
    "check_answer",
    "checks",
    "dot_available",
    "format_event",
    "operator_html",
    "operator_text",
    "probe_text",
    "progress_report",
    "quorum_scenarios",
    "replica_table",
    "teacher_html",
    "topology_diagram",
    "topology_dot",
    "topology_html",
    "topology_text",
]
