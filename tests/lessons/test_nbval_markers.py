"""nbval obeys a marker comment only when the line holds nothing else (``# NBVAL_IGNORE_OUTPUT``):
with a note after it, the cell is compared strictly and fails whenever its output varies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("*.ipynb")) + sorted(LESSONS.glob("drills/*.ipynb"))
MARKERS = {"NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP", "NBVAL_CHECK_OUTPUT", "NBVAL_RAISES_EXCEPTION"}


def malformed_markers(notebook: Path) -> list[str]:
    """Comment lines that mention an nbval marker but are not exactly one."""
    found = []
    for index, cell in enumerate(json.loads(notebook.read_text())["cells"]):
        for line in "".join(cell["source"]).splitlines():
            text = line.strip()
            if text.startswith("#") and "NBVAL" in text and text.lstrip("#").strip() not in MARKERS:
                found.append(f"cell {index}: {text}")
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_nbval_markers_stand_alone(notebook):
    assert malformed_markers(notebook) == []


def test_a_marker_with_a_note_is_caught(tmp_path):
    notebook = tmp_path / "n.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": [
        "# NBVAL_IGNORE_OUTPUT  (varies)\n", "print(1)\n"]}]}))
    assert malformed_markers(notebook) == ["cell 0: # NBVAL_IGNORE_OUTPUT  (varies)"]
    assert len(NOTEBOOKS) >= 8
