"""Lessons and drills import only the public API (docs/api.md): ``minikafka``, ``widgets``,
``minikafka.course`` (with a lesson's own harness module ``minikafka.course.lessonNN``) and, for
Spark, ``minikafka.spark``; never an implementation module."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
PUBLIC = {"minikafka", "widgets", "minikafka.spark", "minikafka.course"}
HARNESS = re.compile(r"^minikafka\.course\.lesson\d\d$")
IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))")
NOTEBOOKS = sorted(LESSONS.glob("*.ipynb")) + sorted(LESSONS.glob("drills/*.ipynb"))


def project_imports(notebook: Path) -> list[str]:
    modules = []
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            match = IMPORT.match(line)
            module = match and (match.group(1) or match.group(2))
            if module and module.split(".")[0] in ("minikafka", "widgets"):
                modules.append(module)
    return modules


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_only_the_public_api_is_imported(notebook):
    private = [module for module in project_imports(notebook)
               if module not in PUBLIC and not HARNESS.match(module)]
    assert private == [], f"{notebook.name} imports {private}; lessons use only {sorted(PUBLIC)}"


def test_the_check_sees_imports():
    assert "minikafka.spark" in project_imports(LESSONS / "07_pyspark_streaming.ipynb")
