"""Remove what a run leaves in a notebook besides its outputs: the saved widget state, the
cells' execution timings, and the live widget views (their model ids are random, and without a
kernel they show nothing: the still picture beside each one, `widgets/still.py`, is what a
reader sees).  Run after ``jupyter nbconvert --execute --inplace`` on a lesson:

    .venv/bin/python scripts/strip_run_metadata.py lessons/03_replication_and_durability.ipynb

The widget state would carry whatever a run left in the answer widgets, and timings change on
every run; neither belongs in the repository (``tests/lessons/test_learner_acts.py`` checks).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
STILL = 'class="minikafka-still"'


def strip(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    notebook = json.loads(text)
    notebook.get("metadata", {}).pop("widgets", None)
    for cell in notebook.get("cells", []):
        cell.get("metadata", {}).pop("execution", None)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data and STILL in "".join(data.get("text/html", "")):
                del data[WIDGET_VIEW]
    new = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(("stripped " if strip(Path(name)) else "unchanged ") + name)
