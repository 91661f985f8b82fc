"""A real JupyterHub on free ports, with the score service registered, for tests and the benchmark.

`RealHub.start(workdir)` writes a ``jupyterhub_config.py`` (the shape of the
example in docs/classroom-jupyterhub.md: the service, the access scope for
every user, the class scope for the group ``teachers``, a dummy
authenticator), starts ``python -m jupyterhub`` in its own process group and
waits for its REST API.  A test-only service ``test-admin`` holds an admin
token: users, groups and tokens are made through the hub's REST API
(``POST /hub/api/users/<name>/tokens``), as a teacher's script would.

The score service is registered with a ``url`` and its own ``api_token``
but started by `start_service` (not by the hub's ``command``), with the
environment the hub gives a managed service: the test can then stop and
restart it at will (the hub restarts a managed service only after its
30-second poll).

The proxy: requests go straight to the hub's API port and the service's
port, as a learner's server on the same host does (``JUPYTERHUB_API_URL``
is the hub's internal address), so no request in these tests crosses the
proxy.  The hub runs with `RoutesInMemory`, a `jupyterhub.proxy.Proxy`
subclass (JupyterHub's documented interface for custom proxies) that keeps
the route table in a dict instead of starting configurable-http-proxy,
which would need Node.js packages for nothing the tests reach.

`stop` (also on any failure while starting) kills both process groups.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "minikafka-scores"
CLASS_SCOPE = "custom:minikafka-scores:read-class"

_CONFIG = '''
from jupyterhub.proxy import Proxy


class RoutesInMemory(Proxy):
    """A route table in a dict: nothing in the tests goes through a proxy."""

    should_start = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.table = {{}}

    async def add_route(self, routespec, target, data):
        self.table[routespec] = {{"routespec": routespec, "target": target, "data": data}}

    async def delete_route(self, routespec):
        self.table.pop(routespec, None)

    async def get_all_routes(self):
        return dict(self.table)


c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {public_port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.JupyterHub.proxy_class = RoutesInMemory
c.JupyterHub.db_url = "sqlite:///{workdir}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{workdir}/jupyterhub_cookie_secret"
c.JupyterHub.pid_file = "{workdir}/jupyterhub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.custom_scopes = {{"{class_scope}": {{"description": "Read every learner's drill scores"}}}}
c.JupyterHub.services = [
    {{"name": "{service}", "url": "http://127.0.0.1:{service_port}", "api_token": "{service_token}"}},
    {{"name": "test-admin", "api_token": "{admin_token}"}},
]
c.JupyterHub.load_groups = {{"teachers": {{"users": []}}}}
c.JupyterHub.load_roles = [
    {{"name": "user", "scopes": ["self", "access:services!service={service}"]}},
    {{"name": "server", "scopes": ["users:activity!user", "access:servers!server",
                                   "access:services!service={service}", "{class_scope}"]}},
    {{"name": "minikafka-teacher", "scopes": ["{class_scope}"], "groups": ["teachers"]}},
    {{"name": "test-admin", "scopes": ["admin:users", "admin:groups", "groups", "tokens"],
      "services": ["test-admin"]}},
]
'''


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def call(url: str, token: str, method: str = "GET", body: Any = None, raw: bytes | None = None,
         timeout: float = 10) -> tuple[int, Any]:
    """One HTTP call with a hub token: (status, parsed JSON body or None)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Authorization": f"token {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
            return response.status, json.loads(text) if text.strip() else None
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text) if text.strip() else None
        except ValueError:
            return error.code, text.decode("utf-8", "replace")


def _kill_group(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()


@dataclass
class RealHub:
    workdir: Path
    hub_port: int = field(default_factory=free_port)
    public_port: int = field(default_factory=free_port)
    service_port: int = field(default_factory=free_port)
    admin_token: str = field(default_factory=lambda: secrets.token_hex(16))
    service_token: str = field(default_factory=lambda: secrets.token_hex(16))
    token_cache_s: int = 1
    hub: subprocess.Popen | None = None
    service: subprocess.Popen | None = None

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.hub_port}/hub/api/"

    @property
    def service_url(self) -> str:
        return f"http://127.0.0.1:{self.service_port}/services/{SERVICE}/"

    @property
    def db_path(self) -> Path:
        return self.workdir / "class-scores.sqlite"

    @classmethod
    def start(cls, workdir: Path, token_cache_s: int = 1) -> "RealHub":
        hub = cls(workdir, token_cache_s=token_cache_s)
        try:
            hub._start_hub()
            hub.start_service()
        except BaseException:
            hub.stop()
            raise
        return hub

    def _start_hub(self) -> None:
        config = self.workdir / "jupyterhub_config.py"
        config.write_text(_CONFIG.format(public_port=self.public_port, hub_port=self.hub_port,
                                         workdir=self.workdir, class_scope=CLASS_SCOPE, service=SERVICE,
                                         service_port=self.service_port, service_token=self.service_token,
                                         admin_token=self.admin_token))
        log = open(self.workdir / "hub.log", "wb")
        self.hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=self.workdir,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self._wait(lambda: call(self.api, "")[0] == 200, self.hub, "hub.log")

    def start_service(self) -> None:
        """Start (or restart) the score service with the environment the hub gives a managed one."""
        env = {**os.environ, "PYTHONPATH": str(ROOT), "JUPYTERHUB_API_TOKEN": self.service_token,
               "JUPYTERHUB_API_URL": self.api.rstrip("/"), "JUPYTERHUB_SERVICE_NAME": SERVICE,
               "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{self.service_port}",
               "JUPYTERHUB_SERVICE_PREFIX": f"/services/{SERVICE}/"}
        log = open(self.workdir / "service.log", "ab")
        self.service = subprocess.Popen([sys.executable, "-m", "minikafka.classroom", "serve", "--db",
                                         str(self.db_path), "--token-cache-s", str(self.token_cache_s)],
                                        cwd=self.workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        log.close()
        self._wait(lambda: call(self.service_url + "api/scores", "")[0] == 401, self.service, "service.log")

    def stop_service(self) -> None:
        _kill_group(self.service)
        self.service = None

    def stop(self) -> None:
        try:
            _kill_group(self.service)
        finally:
            _kill_group(self.hub)
        self.service = self.hub = None

    def _wait(self, ready, process: subprocess.Popen, log_name: str, timeout: float = 45) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            try:
                if ready():
                    return
            except OSError:
                pass
            time.sleep(0.1)
        tail = (self.workdir / log_name).read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{log_name[:-4]} did not come up (exit {process.poll()}):\n{tail}")

    # ------------------------------------------------------------------ the hub's REST API
    def admin(self, method: str, path: str, body: Any = None) -> Any:
        status, answer = call(self.api + path, self.admin_token, method, body)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {answer}")
        return answer

    def add_user(self, name: str, teacher: bool = False) -> str:
        """Create ``name`` (in group ``teachers`` when ``teacher``) and return a new token of theirs."""
        self.admin("POST", f"users/{name}")
        if teacher:
            self.admin("POST", "groups/teachers/users", {"users": [name]})
        return str(self.admin("POST", f"users/{name}/tokens", {"note": "minikafka test"})["token"])

    def add_users(self, names: list[str]) -> dict[str, str]:
        """Create many learners at once; their tokens by name."""
        self.admin("POST", "users", {"usernames": names})
        return {name: str(self.admin("POST", f"users/{name}/tokens", {"note": "minikafka"})["token"])
                for name in names}
