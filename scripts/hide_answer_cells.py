"""Collapse the code of the cells that hold answers, so a learner reading down a lesson meets the
question before the answer.

A reveal cell's code carries the explanation (``why=...``) and a task's cell carries its hint and
its solution: shown in the notebook, they would give the answer away before the learner has
committed.  This marks every code cell that calls ``<name>.reveal(`` or makes a ``Task(`` with
JupyterLab's ``"jupyter": {"source_hidden": true}`` cell metadata: the cell still runs and its
output shows; its code is one click away (the learner chooses to look).  The learner's copies
keep the mark (`minikafka.course.learner_copies`); ``tests/lessons/test_learner_acts.py`` checks it.
JupyterLab shows the first line of a folded cell, so such a cell starts with the reveal or the
Task (the code that makes it happen stays in a visible cell above) and a reveal's ``why=`` goes
on a line of its own.

    .venv/bin/python scripts/hide_answer_cells.py lessons/0*.ipynb
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HOLDS_ANSWERS = re.compile(r"\b\w+\.reveal\(|^\w+\s*=\s*Task\(", re.M)


def holds_answers(source: str) -> bool:
    return bool(HOLDS_ANSWERS.search(source))


def hide(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    notebook = json.loads(text)
    marked = 0
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code" and holds_answers("".join(cell.get("source", []))):
            jupyter = cell.setdefault("metadata", {}).setdefault("jupyter", {})
            if not jupyter.get("source_hidden"):
                jupyter["source_hidden"] = True
                marked += 1
    if marked:
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return marked


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{name}: {hide(Path(name))} cell(s) collapsed")
