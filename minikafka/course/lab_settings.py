"""JupyterLab settings for the course: no "Jupyter news?" prompt, no update check.

Theory of operation
-------------------
A learner who runs ``make lab`` (or opens the Binder link) should meet the
lesson, not a toast asking whether to fetch Jupyter's news or a notice
about a newer JupyterLab.  JupyterLab reads default overrides for every
user of an environment from ``<prefix>/share/jupyter/lab/settings/overrides.json``;
`write_overrides` merges the course's settings into that file of the
running environment (``sys.prefix``: the project's ``.venv``, or Binder's
environment), keeping any other plugin's settings there.  A learner's own
settings still win over these defaults.

Command line: ``python -m minikafka.course lab-settings``.  Not a Kafka concept.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

COURSE_SETTINGS = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}


def overrides_path(prefix: str | Path | None = None) -> Path:
    return Path(prefix or sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def write_overrides(prefix: str | Path | None = None) -> Path:
    """Merge the course's settings into the environment's overrides.json; return its path."""
    path = overrides_path(prefix)
    try:
        current = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        current = {}
    if not isinstance(current, dict):
        current = {}
    for plugin, values in COURSE_SETTINGS.items():
        current[plugin] = {**current.get(plugin, {}), **values}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
