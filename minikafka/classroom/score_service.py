"""The score service: a JupyterHub-managed web service that keeps a class's drill scores.

Theory of operation
-------------------
The hub starts it (``python -m minikafka.classroom serve``, registered in
``c.JupyterHub.services`` with a ``url``) and gives it, in its environment,
its own API token, the hub's API address (``JUPYTERHUB_API_URL``), its URL
prefix (``JUPYTERHUB_SERVICE_PREFIX``, ``/services/<name>/``) and the scopes
a caller needs to use it (``JUPYTERHUB_OAUTH_ACCESS_SCOPES``, by default
``access:services!service=<name>``).  Each request is authenticated through
the hub with JupyterHub's ``HubAuth``: the caller's token (``Authorization:
token ...``) is sent to the hub's ``GET /hub/api/user``, which answers with
the owner's name and the token's scopes (cached ``token_cache_s`` seconds;
an unknown token, such as a deleted user's, gets no answer and the call is
refused with 401).  Then:

=========================  ==================================================
``POST api/scores``        a learner stores one score line (`score_line`):
                           it is stored under the authenticated name; a
                           ``learner`` field in the body is ignored
``GET api/scores``         the caller's own lines
``GET api/scores/<name>``  one learner's lines: the caller's own, or anyone's
                           for a teacher
``GET api/class``          every line of every learner, for a teacher; an
                           empty class is 404
=========================  ==================================================

A *teacher* is a caller whose token holds `CLASS_SCOPE`
(``custom:minikafka-scores:read-class``, a JupyterHub custom scope); the
example configuration (docs/classroom-jupyterhub.md) grants it through a
role to the members of the hub group ``teachers``, so the hub, not the
service, says who teaches.  Every refusal is one line of JSON,
``{"error": "..."}``, with a 4xx status (400 a malformed line or name, 401
no or unknown token, 403 a scope missing, 404 nothing there, 405 a wrong
method, 413 a body over `score_line.MAX_LINE_BYTES`); never a traceback,
and a refused call changes nothing.  Lines live in a `ScoreStore`
(SQLite), so a restart keeps them.

Not a Kafka concept: the teaching layer.  Simplified: tokens only (no
browser pages, so no OAuth login flow); a token's answer is cached, so a
deleted user's token that was used in the last ``token_cache_s`` seconds
still works until the cache forgets it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from minikafka.classroom.score_line import (MAX_LINE_BYTES, ScoreLineError, checked_learner_name,
                                            checked_score_line)
from minikafka.classroom.score_store import ScoreStore

CLASS_SCOPE = "custom:minikafka-scores:read-class"
DEFAULT_PORT = 10101
DB_ENV = "MINIKAFKA_SCORE_DB"
MAX_BODY_BYTES = 1024 * 1024          # tornado drops bodies above this; between the two: a 413 line


def default_db_path() -> Path:
    """``$MINIKAFKA_SCORE_DB``, else ``$XDG_DATA_HOME/minikafka/class-scores.sqlite`` of the service's user."""
    if os.environ.get(DB_ENV):
        return Path(os.environ[DB_ENV]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "minikafka" / "class-scores.sqlite"


def make_app(store: ScoreStore, hub_auth: Any, prefix: str, class_scope: str = CLASS_SCOPE) -> Any:
    """The tornado application answering under ``prefix`` (``/services/<name>/``)."""
    from tornado import web

    class JsonHandler(web.RequestHandler):
        """Every answer is JSON; every refusal one line ``{"error": ...}``."""

        user: dict[str, Any] = {}

        def set_default_headers(self) -> None:
            self.set_header("Content-Type", "application/json; charset=utf-8")
            self.set_header("Cache-Control", "no-store")

        def write_error(self, status_code: int, **kwargs: Any) -> None:
            error = kwargs.get("exc_info", (None, None, None))[1]
            message = None
            if isinstance(error, web.HTTPError):
                # the message as said (tornado's log_message doubles each '%' for its log line)
                said = getattr(error, "get_message", None)
                message = said() if said is not None else error.log_message
            self.finish(json.dumps({"error": message or self._reason}) + "\n")

        def refuse(self, status: int, message: str) -> web.HTTPError:
            return web.HTTPError(status, message.replace("\n", " "))

        async def prepare(self) -> None:
            try:
                model = await hub_auth.get_user(self, sync=False)
            except web.HTTPError:
                raise self.refuse(502, "The hub could not be asked who this token belongs to") from None
            if not model:
                raise self.refuse(401, "No hub token, or one the hub does not know (expired, revoked, "
                                       "or its user deleted): send 'Authorization: token <JUPYTERHUB_API_TOKEN>'")
            if hub_auth.access_scopes and not hub_auth.check_scopes(hub_auth.access_scopes, model):
                raise self.refuse(403, f"This token may not use this service: it lacks "
                                       f"{' or '.join(sorted(hub_auth.access_scopes))}")
            self.user = model

        def is_teacher(self) -> bool:
            return bool(hub_auth.check_scopes({class_scope}, self.user))

        def learner_name(self) -> str:
            if self.user.get("kind", "user") != "user" or not self.user.get("name"):
                raise self.refuse(403, "Only a hub user has score lines (this token is a service's)")
            return str(self.user["name"])

        def answer(self, status: int, body: dict[str, Any]) -> None:
            self.set_status(status)
            self.finish(json.dumps(body, separators=(",", ":")) + "\n")

    class ScoresHandler(JsonHandler):
        def post(self) -> None:
            learner = self.learner_name()
            try:
                line = checked_score_line(self.request.body, learner)
            except ScoreLineError as error:
                raise self.refuse(error.status, str(error)) from None
            store.add(learner, line)
            self.answer(201, {"stored": line})

        def get(self) -> None:
            learner = self.learner_name()
            self.answer(200, {"learner": learner, "lines": store.lines_of(learner)})

    class LearnerHandler(JsonHandler):
        def get(self, name: str) -> None:
            try:
                name = checked_learner_name(name)
            except ScoreLineError as error:
                raise self.refuse(400, str(error)) from None
            if name != self.user.get("name") and not self.is_teacher():
                raise self.refuse(403, "Only a teacher reads another learner's lines "
                                       f"(a token holding {class_scope})")
            self.answer(200, {"learner": name, "lines": store.lines_of(name)})

    class ClassHandler(JsonHandler):
        def get(self) -> None:
            if not self.is_teacher():
                raise self.refuse(403, f"Only a teacher reads the class (a token holding {class_scope})")
            lines = store.all_lines()
            if not lines:
                self.answer(404, {"error": "The class is empty: no learner has posted a score line yet",
                                  "learners": []})
                return
            self.answer(200, {"learners": store.learners(), "lines": lines})

    class NotFoundHandler(JsonHandler):
        async def prepare(self) -> None:
            raise self.refuse(404, f"No such address; the service answers under {prefix}api/")

    return web.Application([(prefix + r"api/scores", ScoresHandler),
                            (prefix + r"api/scores/(.*)", LearnerHandler),
                            (prefix + r"api/class", ClassHandler)],
                           default_handler_class=NotFoundHandler)


def _address(args: argparse.Namespace) -> tuple[str, int]:
    service_url = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", ""))
    ip = args.ip or service_url.hostname or "127.0.0.1"
    port = args.port or service_url.port or DEFAULT_PORT
    return ip, port


def serve(argv: Sequence[str]) -> int:
    """``python -m minikafka.classroom serve [--db PATH] [--ip IP] [--port N] ...``; runs until SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m minikafka.classroom serve",
                                     description="The class's score service (run by JupyterHub as a service).")
    parser.add_argument("--db", type=Path, default=None, help=f"SQLite file (default ${DB_ENV}, else "
                        "~/.local/share/minikafka/class-scores.sqlite)")
    parser.add_argument("--ip", default="", help="address to listen on (default: JUPYTERHUB_SERVICE_URL's, "
                        "else 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help=f"port (default: JUPYTERHUB_SERVICE_URL's, "
                        f"else {DEFAULT_PORT})")
    parser.add_argument("--class-scope", default=CLASS_SCOPE, help="the scope that makes a caller a teacher")
    parser.add_argument("--token-cache-s", type=int, default=60,
                        help="seconds the hub's answer about a token is remembered (default 60)")
    args = parser.parse_args(list(argv))
    missing = [name for name in ("JUPYTERHUB_API_TOKEN", "JUPYTERHUB_API_URL") if not os.environ.get(name)]
    if missing:
        print(f"score service: {' and '.join(missing)} not set: run me as a JupyterHub service "
              "(c.JupyterHub.services, see docs/classroom-jupyterhub.md)", file=sys.stderr)
        return 2
    from jupyterhub.services.auth import HubAuth
    from tornado import httpserver, ioloop

    hub_auth = HubAuth(cache_max_age=args.token_cache_s)
    if not hub_auth.access_scopes:
        print("score service: neither JUPYTERHUB_OAUTH_ACCESS_SCOPES nor JUPYTERHUB_SERVICE_NAME is set, so "
              "any hub token could use me: run me as a JupyterHub service", file=sys.stderr)
        return 2
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/")
    prefix = prefix if prefix.endswith("/") else prefix + "/"
    store = ScoreStore(args.db or default_db_path())
    server = httpserver.HTTPServer(make_app(store, hub_auth, prefix, args.class_scope),
                                   max_body_size=MAX_BODY_BYTES)
    ip, port = _address(args)
    server.listen(port, ip)
    loop = ioloop.IOLoop.current()

    def stop(*_: Any) -> None:
        loop.add_callback_from_signal(loop.stop)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"score service: {store.path}, http://{ip}:{port}{prefix}api/ "
          f"(lines up to {MAX_LINE_BYTES} bytes; teachers hold {args.class_scope})", flush=True)
    try:
        loop.start()
    finally:
        server.stop()
        store.close()
    return 0
