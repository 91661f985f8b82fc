"""Repository-wide pytest hooks: skip what needs a missing system program.

Three programs live outside Python: Graphviz's ``dot`` (lesson diagrams), a
Java runtime >= 17 (PySpark 4) and Chromium (the JupyterLab browser test).
A test states what it needs with a marker registered in pyproject.toml --
``graphviz``, ``spark`` or ``browser`` -- and a lesson notebook states it in
its notebook-level metadata::

    "metadata": {"minikafka": {"markers": ["spark", "graphviz"]}}

Every cell of such a notebook then carries those markers (so ``-m`` selects
notebooks too).  When a needed program is missing, the test or the whole
notebook is skipped with a reason that names the Debian package to install.

Where the programs are: ``make test`` runs scripts/ensure_system_deps.sh and
exports MINIKAFKA_DOT, MINIKAFKA_JAVA and MINIKAFKA_CHROMIUM, each holding a
path or nothing when the program is missing.  When pytest runs without make
those variables are unset, and the programs are looked up here instead, the
same way the script does.

The ``chromium_executable`` fixture hands the browser test the path to give
Playwright's ``executable_path`` (Playwright's own browser download is not
used; see docs/quickstart.md).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest


def java_major_version(version_output: str) -> int | None:
    """Major version from `java -version` output ("17.0.15" -> 17, "1.8.0_292" -> 8)."""
    match = re.search(r'version "(?:1\.)?(\d+)', version_output)
    return int(match.group(1)) if match else None


def find_java() -> str:
    """The java Spark would run, if it is version 17 or newer; else ""."""
    # Spark runs $JAVA_HOME/bin/java when JAVA_HOME is set (and fails if it is not
    # there: bin/spark-class does not fall back), else java on PATH.
    java_home = os.environ.get("JAVA_HOME", "")
    if java_home:
        candidate = Path(java_home, "bin", "java")
        java = str(candidate) if os.access(candidate, os.X_OK) else ""
    else:
        java = shutil.which("java")
    if not java:
        return ""
    try:
        result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    major = java_major_version(result.stderr + result.stdout)
    return java if major is not None and major >= 17 else ""


@dataclass(frozen=True, slots=True)
class SystemProgram:
    """A program outside Python that some tests need."""

    marker: str  # pytest marker that declares the need
    env_var: str  # set by `make test`: the program's path, empty if missing
    description: str  # how the skip reason names it
    debian_package: str  # what to install on Debian/Ubuntu
    look_up: Callable[[], str]  # finds it when pytest runs without make


PROGRAMS = {
    program.marker: program
    for program in (
        SystemProgram("graphviz", "MINIKAFKA_DOT", "Graphviz's dot", "graphviz", lambda: shutil.which("dot") or ""),
        SystemProgram(
            "spark", "MINIKAFKA_JAVA", "a Java runtime >= 17 for PySpark", "openjdk-17-jre-headless", find_java
        ),
        SystemProgram("browser", "MINIKAFKA_CHROMIUM", "Chromium", "chromium", lambda: shutil.which("chromium") or ""),
    )
}

NOTEBOOK_METADATA_KEY = "minikafka"  # notebook metadata section read by this file


@functools.cache
def program_path(program: SystemProgram) -> str:
    """Path of the program, or "" when it is missing; `make test`'s finding wins."""
    recorded = os.environ.get(program.env_var)
    if recorded is not None:
        return recorded if recorded and os.access(recorded, os.X_OK) else ""
    return program.look_up()


def skip_reason(program: SystemProgram) -> str:
    return (
        f"needs {program.description}, which was not found; install the Debian package "
        f"{program.debian_package} (make test installs it when run as root or with passwordless sudo)"
    )


def notebook_markers(notebook_metadata: dict) -> list[str]:
    """Markers a lesson notebook declares in its metadata (see module docstring)."""
    section = notebook_metadata.get(NOTEBOOK_METADATA_KEY) or {}
    markers = section.get("markers") or []
    if not isinstance(markers, list) or not all(isinstance(m, str) and m.isidentifier() for m in markers):
        raise pytest.UsageError(
            f'notebook metadata "{NOTEBOOK_METADATA_KEY}.markers" must be a list of marker names, got {markers!r}'
        )
    return markers


@pytest.hookimpl(tryfirst=True)  # before -m deselection, so notebook markers count there
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        # nbval's notebook collector (the cells' parent) keeps the parsed notebook as .nb
        notebook = getattr(item.parent, "nb", None) if item.path.suffix == ".ipynb" else None
        if notebook is not None:
            for name in notebook_markers(notebook.metadata):
                item.add_marker(name)
        for program in PROGRAMS.values():
            if item.get_closest_marker(program.marker) and not program_path(program):
                item.add_marker(pytest.mark.skip(reason=skip_reason(program)))


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    """Path of the Chromium binary for Playwright's executable_path; skips if absent."""
    browser = PROGRAMS["browser"]
    path = program_path(browser)
    if not path:
        pytest.skip(skip_reason(browser))
    return path
