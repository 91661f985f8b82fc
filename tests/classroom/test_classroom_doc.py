"""docs/classroom-jupyterhub.md's example configuration stays true to the service it configures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from minikafka.classroom.score_client import SCORE_SERVICE_ENV
from minikafka.classroom.score_service import CLASS_SCOPE

DOC = Path(__file__).resolve().parents[2] / "docs" / "classroom-jupyterhub.md"


def documented_config():
    traitlets = pytest.importorskip("traitlets.config")
    code = re.search(r"```python\n(# jupyterhub_config.py.*?)```", DOC.read_text(), re.S).group(1)
    config = traitlets.Config()
    exec(compile(code, str(DOC), "exec"), {"get_config": lambda: config})
    return config


def test_the_example_registers_the_service_its_scopes_and_the_learners_environment():
    c = documented_config()
    service = next(s for s in c.JupyterHub.services if s["name"] == "minikafka-scores")
    assert service["command"][1:4] == ["-m", "minikafka.classroom", "serve"]
    assert c.JupyterHub.custom_scopes.keys() == {CLASS_SCOPE}
    roles = {role["name"]: role for role in c.JupyterHub.load_roles}
    assert "access:services!service=minikafka-scores" in roles["user"]["scopes"]
    assert "access:services!service=minikafka-scores" in roles["server"]["scopes"]
    assert roles["minikafka-teacher"] == {"name": "minikafka-teacher", "scopes": [CLASS_SCOPE],
                                          "groups": ["teachers"]}
    port = service["url"].rsplit(":", 1)[1]
    assert c.Spawner.environment[SCORE_SERVICE_ENV] == f"http://127.0.0.1:{port}/services/minikafka-scores/"
    assert c.Spawner.mem_limit and c.Spawner.cpu_limit
    assert any(s["name"] == "idle-culler" for s in c.JupyterHub.services)
