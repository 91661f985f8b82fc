"""The course's own machinery: predictions, tasks, progress and the learner's copies of the lessons.

Theory of operation
-------------------
A lesson asks the learner to *act*: to commit to a prediction before a cell
shows what the cluster does, and to write the Kafka verb that makes
something happen.  This package holds the parts of that which need no
widget, so that a test, a script and the widgets grade the same way:

* `answer_kinds`: what kind of value a prediction takes ("a broker id: 1, 2
  or 3") and the one-line refusal of anything else;
* `prediction`: `PredictionState`, a prediction's life (open, answered,
  revealed) and its `Verdict`, graded against the value the cluster computed;
* `task`: `TaskState`, a "your turn" task whose check asks the cluster
  whether the learner's code did what was asked, with a hint and a solution;
* `checks`: ready-made checks on a cluster for tasks (a topic exists with
  these partitions, a partition's leader moved...);
* `progress`: the learner's progress file (one JSON line per graded
  prediction or task) and its summary per lesson;
* `learner_copies`: the copies of the lessons a learner opens, with every
  output cleared, made without ever overwriting the learner's edits
  (``python -m minikafka.course copies``); `lab_settings`: JupyterLab
  without the news prompt (``python -m minikafka.course lab-settings``);
* `buttons`: `undo_button_presses`, the one line a lesson cell runs before
  it breaks the cluster itself, undoing what the dashboard's fault buttons
  did (heal, resume, restart) and saying so;
* `lesson01` ... `lesson07`: each lesson's harness, the plumbing its cells
  need but a learner need not read (threads, timers, client loops, Spark
  queries, the checks of its tasks), imported by that lesson alone.

`widgets.Prediction`, `widgets.Task` and `widgets.ProgressView` are the
faces lessons use.  Not a Kafka concept: the teaching layer.
"""

from minikafka.course.answer_kinds import KINDS, AnswerKind, AnswerRefused
from minikafka.course.buttons import undo_button_presses
from minikafka.course.prediction import PredictionState, Verdict
from minikafka.course.progress import ClassProgress, ProgressLog, lesson_summary, progress_path
from minikafka.course.task import TaskState, TaskVerdict

__all__ = ["KINDS", "AnswerKind", "AnswerRefused", "ClassProgress", "PredictionState", "ProgressLog", "TaskState",
           "TaskVerdict", "Verdict", "lesson_summary", "progress_path", "undo_button_presses"]
