"""Fixtures the lesson-driving browser tests share: a private copy of ``lessons/`` and a
JupyterLab serving it (stopped whatever happens)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_server import LabServer

LESSONS = Path(__file__).resolve().parents[2] / "lessons"


@pytest.fixture
def notebook_root(tmp_path: Path) -> Path:
    """A private copy of lessons/: the browser may modify it, the repository stays clean."""
    root = tmp_path / "lessons"
    shutil.copytree(LESSONS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints",
                                                                  "__pycache__"))
    return root


@pytest.fixture
def lab(notebook_root: Path, tmp_path: Path) -> Iterator[LabServer]:
    with LabServer(notebook_root, tmp_path / "jupyter") as server:
        yield server
