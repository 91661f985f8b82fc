"""Classroom failure drills: seeded scenarios to predict, diagnose and fix, with a scoreboard.

A drill is short (5 to 15 minutes) and seeded: the teacher on the projector
and every learner with the same seed get the same cluster, the same victim
and the same numbers; another seed gives a variant.  The sandbox grades it
from its own run.  Three kinds:

* **predict**: answer before the fault (``drill.run()`` locks the answers);
* **diagnose**: a hidden fault strikes; find what and where, then answer;
* **fix**: the cluster is unhealthy; repair it through ``drill.cluster``.

Headless API::

    from minikafka import drills
    drills.catalogue()                       # DrillInfo rows: .id, .title, .kind, .lesson, ...
    drill = drills.start("leader-crash", seed=3)
    print(drill.brief)                       # the scene and the questions
    drill.answer("new-leader", 2)            # predictions before run(), diagnoses after it
    print(drill.run())                       # the scenario and its fault(s)
    drill.grade()                            # {"score", "max", "answers": {qid: {given, expected, correct}}}
    print(drill.report())                    # verdicts and the explanation
    drill.close()                            # nothing left running, no files left behind

Each graded drill sends a line to the class's score service on a JupyterHub
(``MINIKAFKA_SCORE_SERVICE``, `minikafka.classroom`) or appends it to a
scores file (`scoreboard`: ``MINIKAFKA_SCOREBOARD`` or a per-user default);
`ClassReport` reads the service or one or many files for the teacher
(tables per drill and per learner, CSV).
`widgets.DrillPanel` and `widgets.TeacherView` put both on screen.
"""

from minikafka.drills.catalogue import DrillInfo, catalogue, catalogue_text
from minikafka.drills.class_report import ClassReport, load_scores
from minikafka.drills.drill import Drill, start
from minikafka.drills.question import DrillError, Question
from minikafka.drills.scoreboard import default_learner, scoreboard_path

__all__ = ["ClassReport", "Drill", "DrillError", "DrillInfo", "Question", "catalogue",
           "catalogue_text", "default_learner", "load_scores", "scoreboard_path", "start"]
