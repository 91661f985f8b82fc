"""The classroom: a class's drill scores collected by a JupyterHub service, not by a shared folder.

Theory of operation
-------------------
On a JupyterHub a class's scores used to meet in a folder every learner
could write (``MINIKAFKA_SCOREBOARD=/srv/class/scores/``), where the learner
was whoever ``JUPYTERHUB_USER`` said: anyone could write under any name or
read a neighbour's answers.  This package replaces the folder with a
*hub-managed service*, the way JupyterHub expects such a thing to be built:

* `score_service` (``python -m minikafka.classroom serve``): a small tornado
  web server that the hub starts and registers (``c.JupyterHub.services``).
  Every call carries a hub token (the learner's ``JUPYTERHUB_API_TOKEN``);
  the service asks the hub who it belongs to (``HubAuth``) and which scopes
  it holds.  A learner posts score lines and reads their own; the learner is
  the token's owner, whatever the line says.  A teacher (a token holding the
  custom scope ``custom:minikafka-scores:read-class``, which the example
  configuration grants to the hub group ``teachers``) reads the class.
* `score_store`: the lines in SQLite, one table, one transaction per line,
  kept across restarts.
* `score_line`: what a score line must look like (the scoreboard's format,
  `minikafka.drills.scoreboard`), checked before anything is stored.
* `score_client`: the learner's and the teacher's side, over HTTP with the
  standard library only; the drills post through it when
  ``MINIKAFKA_SCORE_SERVICE`` names the service.

Not a Kafka concept: the teaching layer, beside the drills (which import
it).  It imports nothing else of minikafka; only `score_service` needs
JupyterHub and tornado, and only when it runs.  docs/classroom-jupyterhub.md
has a ready ``jupyterhub_config.py``.
"""

from __future__ import annotations

from minikafka.classroom.score_client import (SCORE_SERVICE_ENV, ScoreServiceClient, ScoreServiceError,
                                              client_from_environment)
from minikafka.classroom.score_line import MAX_LINE_BYTES, ScoreLineError, checked_score_line
from minikafka.classroom.score_store import ScoreStore

__all__ = ["MAX_LINE_BYTES", "SCORE_SERVICE_ENV", "ScoreLineError", "ScoreServiceClient",
           "ScoreServiceError", "ScoreStore", "checked_score_line", "client_from_environment"]
