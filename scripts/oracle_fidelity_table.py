"""Write the last differential run into docs/fidelity.md and print its summary line.

``make test-oracle`` runs ``tests/oracle`` (the sandbox against a real Apache
Kafka 4.3.1), whose conftest saves every verdict in
``build/oracle/last_run.json``; this script turns that file into the table
between the ``oracle-table`` markers of docs/fidelity.md (scenario, cluster
shape, result, and why it still differs or what was normalised) and prints
``N scenarios: X identical, Y normalised, Z different`` as its last line.

Usage: ``python scripts/oracle_fidelity_table.py [--check]`` (``--check``
only prints the summary and says whether the page is up to date).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "build" / "oracle" / "last_run.json"
PAGE = ROOT / "docs" / "fidelity.md"
START, END = "<!-- oracle-table:start -->", "<!-- oracle-table:end -->"


def table(run: dict) -> str:
    rows = ["| Scenario | Cluster | Result | Why it differs / what was normalised |", "| --- | --- | --- | --- |"]
    for entry in run["scenarios"]:
        if entry["result"] == "different":
            why = entry["reason"]
        else:
            parts = ["ids, ports, paths, timestamps"] if entry["result"] == "normalised" else []
            parts += [f"varies: {label}" for label in dict.fromkeys(entry.get("masks", []))]
            parts += [entry["note"]] if entry.get("note") else []
            why = "; ".join(parts)
        rows.append(f"| {_cell(entry['scenario'])} | {entry['shape']} | {entry['result']} | {_cell(why)} |")
    minutes, seconds = divmod(run["seconds"], 60)
    return "\n".join([f"Last run: {run['summary']} ({minutes} min {seconds} s on this machine, "
                      f"`make test-oracle`).", "", *rows])


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def updated_page(page: str, body: str) -> str:
    if START in page and END in page:
        head, rest = page.split(START, 1)
        return f"{head}{START}\n{body}\n{END}{rest.split(END, 1)[1]}"
    raise SystemExit(f"{PAGE} has no {START} ... {END} markers")


def main(argv: list[str]) -> int:
    if not RESULTS.exists():
        print(f"No differential run yet ({RESULTS.relative_to(ROOT)} is missing): run make test-oracle.")
        return 1
    run = json.loads(RESULTS.read_text(encoding="utf-8"))
    page = PAGE.read_text(encoding="utf-8")
    new = updated_page(page, table(run))
    if "--check" in argv:
        print("docs/fidelity.md is up to date." if new == page else "docs/fidelity.md is out of date.")
    elif new != page:
        PAGE.write_text(new, encoding="utf-8")
        print(f"Updated the table in {PAGE.relative_to(ROOT)}.")
    print(run["summary"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
