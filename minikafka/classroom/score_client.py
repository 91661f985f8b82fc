"""`ScoreServiceClient`: the learner's and the teacher's side of the score service, over HTTP.

Theory of operation
-------------------
``MINIKAFKA_SCORE_SERVICE`` names the service's base address, as the hub
serves it (``http://127.0.0.1:10101/services/minikafka-scores/`` or, through
the hub's proxy, ``https://hub.example.org/services/minikafka-scores/``); a
teacher puts it in the learners' environment (``c.Spawner.environment``, see
docs/classroom-jupyterhub.md).  Every call sends the hub token of the
learner's server, ``JUPYTERHUB_API_TOKEN`` (``MINIKAFKA_SCORE_TOKEN``
overrides it), as ``Authorization: token ...``; the service asks the hub
whose it is.

Three calls, each one HTTP request with the standard library's
``urllib`` (no package to install in a learner's image):

* `post` a score line: ``POST api/scores``; the stored line comes back,
  naming the learner the hub says the token belongs to;
* `mine`: ``GET api/scores``, the learner's own lines;
* `class_lines`: ``GET api/class``, every learner's lines (a teacher's
  token only; an empty class, which the service answers with a 404 that
  says so, is an empty list).

Any failure raises `ScoreServiceError` with one sentence: the service's own
one-line error for a refusal (its HTTP status in ``status``), or "cannot
reach" with ``status`` None when nothing answered within ``timeout``.  The
drills then keep the line in the local file and say so
(`minikafka.drills.scoreboard`).

Not a Kafka concept: the teaching layer's records.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

SCORE_SERVICE_ENV = "MINIKAFKA_SCORE_SERVICE"
SCORE_TOKEN_ENV = "MINIKAFKA_SCORE_TOKEN"
HUB_TOKEN_ENV = "JUPYTERHUB_API_TOKEN"


class ScoreServiceError(RuntimeError):
    """The service refused a call (``status`` its HTTP status) or could not be reached (``status`` None)."""

    def __init__(self, message: str, status: int | None = None, answer: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.answer = dict(answer or {})    # the service's JSON answer to a refused call


class ScoreServiceClient:
    """Calls to the score service at ``url`` with the hub token ``token``."""

    def __init__(self, url: str, token: str, timeout: float = 5.0):
        if not url.startswith(("http://", "https://")):
            raise ScoreServiceError(f"{SCORE_SERVICE_ENV} must be an http:// or https:// address, not {url!r}")
        self.url = url if url.endswith("/") else url + "/"
        self.token = token
        self.timeout = timeout

    def post(self, line: Mapping[str, Any]) -> dict[str, Any]:
        """Store one score line as the token's owner's; the line as stored."""
        answer = self._call("POST", "api/scores", json.dumps(dict(line)).encode("utf-8"))
        return dict(answer["stored"])

    def mine(self) -> list[dict[str, Any]]:
        """The token owner's lines, oldest first."""
        return list(self._call("GET", "api/scores")["lines"])

    def class_lines(self) -> list[dict[str, Any]]:
        """Every learner's lines (for a teacher's token; others get `ScoreServiceError` 403); an
        empty list for a class with no line yet (the service's 404 that says so)."""
        try:
            return list(self._call("GET", "api/class")["lines"])
        except ScoreServiceError as error:
            if error.status == 404 and error.answer.get("learners") == []:
                return []
            raise

    def _call(self, method: str, path: str, body: bytes | None = None) -> dict[str, Any]:
        if not self.token:
            raise ScoreServiceError(f"No hub token: neither {SCORE_TOKEN_ENV} nor {HUB_TOKEN_ENV} is set")
        request = urllib.request.Request(self.url + path, data=body, method=method, headers={
            "Authorization": f"token {self.token}", "Content-Type": "application/json",
            "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return dict(json.loads(response.read().decode("utf-8")))
        except urllib.error.HTTPError as error:
            answer = _error_answer(error)
            message = answer.get("error")
            said = f"{message} (HTTP {error.code})" if message else f"HTTP {error.code} {error.reason}"
            raise ScoreServiceError(f"The score service refused: {said}", error.code, answer) from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise ScoreServiceError(f"Cannot reach the score service at {self.url} ({reason})") from None

    def __repr__(self) -> str:
        return f"ScoreServiceClient({self.url!r})"


def _error_answer(error: urllib.error.HTTPError) -> dict[str, Any]:
    try:
        answer = json.loads(error.read().decode("utf-8", "replace"))
    except (OSError, ValueError):
        return {}
    return dict(answer) if isinstance(answer, dict) else {}


def client_from_environment(environ: Mapping[str, str] = os.environ) -> ScoreServiceClient | None:
    """A client for ``MINIKAFKA_SCORE_SERVICE`` with the learner's hub token, or None when it is not set."""
    url = environ.get(SCORE_SERVICE_ENV, "").strip()
    if not url:
        return None
    token = environ.get(SCORE_TOKEN_ENV) or environ.get(HUB_TOKEN_ENV) or ""
    return ScoreServiceClient(url, token)
