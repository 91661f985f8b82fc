"""The saved notebooks as a reader on GitHub meets them (issue 23).

* No output leaks the machine that ran it: no temporary or home paths, no user name as a path
  or file name, no wall-clock dates (the only date allowed is the sandbox's own fixed day: a
  simulated cluster's clock and lesson 07's orders start on it), no random UUIDs.
* Every widget output is saved as its still picture (``text/html`` from `widgets.still`),
  without the live view (a random model id that shows nothing without a kernel), and the
  views of a cluster, whose cluster the notebook stopped, are saved frozen: their last
  picture with the caption.
* A lesson's main path, the code cells before its "Going deeper (optional)" part, has at
  most 45 code cells, so a beginner can finish it.
"""

from __future__ import annotations

import getpass
import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from minikafka.course.lesson07 import OPENING
from minikafka.drivers.simulated import SIM_EPOCH_MS
from widgets.still import CLUSTER_STOPPED, STILL_CLASS, WIDGET_VIEW

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("*.ipynb")) + sorted((LESSONS / "drills").glob("*.ipynb"))
COURSE = sorted(LESSONS.glob("0[1-9]_*.ipynb"))
GOING_DEEPER = "## Going deeper (optional)"
MAIN_PATH_LIMIT = 45

SANDBOX_DAYS = {datetime.fromtimestamp(SIM_EPOCH_MS / 1000, tz=timezone.utc).date().isoformat(),
                OPENING.date().isoformat()}
USER = re.escape(getpass.getuser())
LEAKS = {
    "a temporary path": re.compile(r"/tmp/|/var/folders/|\\AppData\\Local\\Temp"),
    "a home directory": re.compile(r"/home/\w|/root/|/Users/\w"),
    "the user name": re.compile(rf"[/\\]{USER}\b|\b{USER}\.(jsonl|json|csv|log)\b|\b{USER}@"),
    "a date line": re.compile(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug"
                              r"|Sep|Oct|Nov|Dec) +\d+ \d\d:\d\d:\d\d"),
    "a time of day of the run": re.compile(r"(?<![T\d])\b\d\d:\d\d:\d\d\.\d{3}\b(?!Z)"),
    "a random UUID": re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                                r"[0-9a-fA-F]{12}\b"),
}
TIMESTAMP = re.compile(r"\b((?:19|20)\d\d-\d\d-\d\d)[T ]\d\d:\d\d")
WIDGETS = ("Prediction(", "Task(", "QuorumStepperView(", "DrillPanel(", "TeacherView(")
CLUSTER_VIEWS = ("Dashboard(", "TopologyView(", "ReplicaView(", "OperatorView(", "FailurePanel(",
                 "EventLogView(")


def cells(notebook: Path) -> list[dict]:
    return json.loads(notebook.read_text())["cells"]


def output_texts(output: dict) -> list[str]:
    texts = ["".join(output.get("text", "")), "".join(output.get("evalue", ""))]
    for value in output.get("data", {}).values():
        texts.append("".join(value) if isinstance(value, (list, str)) else "")
    return texts


def leaks_in(notebook: Path) -> list[str]:
    found = []
    for index, cell in enumerate(cells(notebook)):
        for output in cell.get("outputs", []):
            for text in output_texts(output):
                for what, pattern in LEAKS.items():
                    for match in pattern.finditer(text):
                        found.append(f"cell {index}: {what}: {text[max(0, match.start() - 40):match.end() + 20]!r}")
                for match in TIMESTAMP.finditer(text):
                    if match.group(1) not in SANDBOX_DAYS:
                        found.append(f"cell {index}: a wall-clock time: {match.group(0)!r}")
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_no_output_leaks_the_machine_that_ran_it(notebook):
    assert leaks_in(notebook) == []


def test_the_leak_patterns_find_what_they_look_for(tmp_path):
    planted = tmp_path / "planted.ipynb"
    outputs = [{"output_type": "stream", "name": "stdout", "text": text} for text in (
        "log.dirs=/tmp/minikafka-x1/broker-2\n", f"scores: /srv/{getpass.getuser()}.jsonl\n",
        "#Sat Nov 28 14:28:54 UTC 2026\n", "member billing-1-5cf1b279-613e-4d0c-99da-9caec1b38df0\n",
        "ran at 2031-05-04T10:00:00Z\n", "17:21:44.989  broker 3 restarted\n", "event_time 2026-01-01 10:00:00 (the sandbox's day)\n")]
    planted.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "", "outputs": outputs}]}))
    found = leaks_in(planted)
    assert [line.split(": ")[1] for line in found] == [
        "a temporary path", "the user name", "a date line", "a random UUID", "a wall-clock time",
        "a time of day of the run"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_every_widget_output_carries_a_still_picture(notebook):
    for index, cell in enumerate(cells(notebook)):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            plain = "".join(data.get("text/plain", ""))
            html = "".join(data.get("text/html", ""))
            # scripts/strip_run_metadata.py drops the live view (a random model id that shows
            # nothing without a kernel) and keeps the still picture
            assert WIDGET_VIEW not in data, f"cell {index}: {plain[:60]} keeps its live view"
            if plain.startswith(WIDGETS):
                assert f'class="{STILL_CLASS}"' in html, f"cell {index}: {plain[:60]} has no picture"
            if plain.startswith(CLUSTER_VIEWS):
                assert f'class="{STILL_CLASS}"' in html, f"cell {index}: {plain[:60]} has no picture"
                # its cluster was stopped by the notebook: the saved output is the last picture
                assert WIDGET_VIEW not in data and CLUSTER_STOPPED in html, \
                    f"cell {index}: {plain[:60]} is not saved frozen"


def main_path(notebook: Path) -> list[dict]:
    path = []
    for cell in cells(notebook):
        if cell["cell_type"] == "markdown" and "".join(cell["source"]).startswith(GOING_DEEPER):
            break
        path.append(cell)
    return [cell for cell in path if cell["cell_type"] == "code"]


@pytest.mark.parametrize("notebook", COURSE, ids=lambda p: p.name)
def test_a_lessons_main_path_is_short_enough_to_finish(notebook):
    assert len(main_path(notebook)) <= MAIN_PATH_LIMIT


@pytest.mark.parametrize("notebook", COURSE, ids=lambda p: p.name)
def test_the_going_deeper_part_is_the_end_of_a_lesson_and_says_it_is_optional(notebook):
    headings = [i for i, c in enumerate(cells(notebook)) if c["cell_type"] == "markdown"
                and "".join(c["source"]).startswith(GOING_DEEPER)]
    assert len(headings) <= 1
    if headings:
        after = cells(notebook)[headings[0] + 1:]
        assert not any(c["cell_type"] == "markdown" and "".join(c["source"]).startswith("## ")
                       for c in after), "a main-path section follows the optional part"
