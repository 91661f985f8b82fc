"""docs/seed-coverage.md still points at cells that exist and show what it says.

The coverage map lists every claim of the seed texts with a status and, for the
claims the course shows, references of the form

    `01_brokers_and_topics.ipynb` › 3 · Topics are split into partitions › `a fragment of the cell`

(notebook under lessons/, the heading the cell sits under, a piece of the
cell's source).  For a ``live`` or ``corrected`` row every reference must name
a *code* cell under that heading whose source contains the fragment and whose
saved output is non-empty and not an error; for a ``stated`` row, a *markdown*
cell.  Renaming a heading, rewriting a cell or clearing a notebook's outputs
therefore fails here until the map is updated.  Only saved notebooks are read:
no kernel, no cluster.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "seed-coverage.md"
LESSONS = ROOT / "lessons"

STATUSES = ("live", "corrected", "stated", "missing")
COLUMNS = ("#", "claim", "status", "kafka 4.x", "where shown")
REF_SEPARATOR = " › "
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$")


# --- reading the map ----------------------------------------------------------------------

def split_row(line):
    """The cells of one markdown table row (the map never puts '|' inside a cell)."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def parse_tables(text):
    """{table title: [row dict, ...]} for every table that follows a '## ' title."""
    tables, title, header = {}, None, None
    for line in text.splitlines():
        if line.startswith("## "):
            title, header = line[3:].strip(), None
        elif not line.startswith("|"):
            header = None
        elif header is None:
            header = [cell.lower() for cell in split_row(line)]
            if title is not None and set(COLUMNS) <= set(header):
                tables.setdefault(title, [])
        elif not set(line) <= set("|-: ") and title in tables:
            tables[title].append(dict(zip(header, split_row(line))))
    return tables


def parse_ref(text):
    """(notebook, heading, fragment) of one reference, or ValueError saying what is wrong."""
    parts = text.split(REF_SEPARATOR)
    if len(parts) != 3:
        raise ValueError(f"expected notebook{REF_SEPARATOR}heading{REF_SEPARATOR}`fragment`, got {text!r}")
    notebook, heading, fragment = (part.strip() for part in parts)
    if not (len(fragment) > 2 and fragment.startswith("`") and fragment.endswith("`")):
        raise ValueError(f"the fragment must be in backticks: {text!r}")
    return notebook.strip("`"), heading, fragment[1:-1]


def refs_of(row):
    cell = row["where shown"].strip()
    if cell in ("", "—", "-"):
        return []
    return [parse_ref(part) for part in cell.split("<br>") if part.strip()]


@lru_cache(maxsize=1)
def coverage():
    """Every row of the map with its parsed references: (table, row, refs)."""
    rows = []
    for table, table_rows in parse_tables(DOC.read_text(encoding="utf-8")).items():
        for row in table_rows:
            rows.append((table, row, refs_of(row)))
    return rows


def checked_refs(kinds):
    """pytest params, one per reference of a row whose status is in `kinds`."""
    params = []
    for table, row, refs in coverage():
        if row["status"] in kinds:
            for n, (notebook, heading, fragment) in enumerate(refs):
                params.append(pytest.param(row["status"], notebook, heading, fragment,
                                           id=f"{row['#']}-{n}-{Path(notebook).stem}"))
    return params


# --- reading the notebooks ----------------------------------------------------------------

@lru_cache(maxsize=None)
def cells_with_headings(path):
    """[(heading, cell), ...]: each cell with the last heading at or before it."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    heading, result = None, []
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for line in source.splitlines():
                match = HEADING.match(line)
                if match:
                    heading = match.group(1)
        result.append((heading, {**cell, "source": source}))
    return result


def output_text(cell):
    """All the text a code cell's saved outputs hold, and whether one of them is an error."""
    texts, error = [], False
    for output in cell.get("outputs", []):
        if output["output_type"] == "error":
            error = True
        text = output.get("text") or output.get("data", {}).get("text/plain", "")
        texts.append("".join(text) if isinstance(text, list) else text)
    return "".join(texts), error


def find_problem(lessons, notebook, heading, fragment, kind):
    """None if `lessons/notebook` has a `kind` cell under `heading` containing `fragment`
    (a code cell also needs a non-empty, error-free saved output); else what is wrong."""
    path = Path(lessons) / notebook
    if not path.is_file():
        return f"no notebook {path}"
    cells = cells_with_headings(str(path))
    if heading not in {h for h, _ in cells}:
        return f"{notebook} has no heading {heading!r}"
    matches = [c for h, c in cells if h == heading and c["cell_type"] == kind and fragment in c["source"]]
    if not matches:
        return f"{notebook}, under {heading!r}: no {kind} cell contains {fragment!r}"
    if kind == "markdown":
        return None
    for cell in matches:
        text, error = output_text(cell)
        if text.strip() and not error:
            return None
    return f"{notebook}, under {heading!r}: the cell with {fragment!r} has no saved output (or only an error)"


# --- the map itself -----------------------------------------------------------------------

def test_the_map_has_one_table_per_seed_text_and_well_formed_rows():
    tables = parse_tables(DOC.read_text(encoding="utf-8"))
    assert len(tables) == 5, f"expected one claim table per seed text, found {list(tables)}"
    ids = [row["#"] for rows in tables.values() for row in rows]
    assert len(ids) == len(set(ids)), "claim numbers must be unique"
    for table, rows in tables.items():
        assert rows, f"table {table!r} has no rows"
        for row in rows:
            assert row["claim"], f"{row['#']}: empty claim"
            assert row["status"] in STATUSES, f"{row['#']}: status {row['status']!r} not in {STATUSES}"
            refs = refs_of(row)
            if row["status"] == "missing":
                assert not refs, f"{row['#']} is missing but names a cell"
            else:
                assert refs, f"{row['#']} is {row['status']} but names no cell"
            if row["status"] == "corrected":
                assert row["kafka 4.x"] not in ("", "—", "-"), f"{row['#']}: say what was corrected"


@pytest.mark.parametrize("status, notebook, heading, fragment", checked_refs({"live", "corrected"}))
def test_a_live_claim_names_a_code_cell_with_saved_output(status, notebook, heading, fragment):
    assert find_problem(LESSONS, notebook, heading, fragment, "code") is None, \
        find_problem(LESSONS, notebook, heading, fragment, "code")


@pytest.mark.parametrize("status, notebook, heading, fragment", checked_refs({"stated"}))
def test_a_stated_claim_names_a_markdown_cell(status, notebook, heading, fragment):
    assert find_problem(LESSONS, notebook, heading, fragment, "markdown") is None, \
        find_problem(LESSONS, notebook, heading, fragment, "markdown")


# --- the checker can fail -----------------------------------------------------------------

def write_notebook(folder, cells):
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    (folder / "lesson.ipynb").write_text(json.dumps(notebook), encoding="utf-8")


def code(source, outputs):
    return {"cell_type": "code", "source": source, "outputs": outputs, "metadata": {}, "execution_count": 1}


def test_renamed_headings_and_cells_and_cleared_or_failed_outputs_are_caught(tmp_path):
    printed = [{"output_type": "stream", "name": "stdout", "text": ["brokers: [1, 2, 3]\n"]}]
    write_notebook(tmp_path, [
        {"cell_type": "markdown", "source": "## 1 · A cluster\n\nBrokers and controllers.", "metadata": {}},
        code("print(cluster.broker_ids)", printed),
        code("print(cluster.controller_ids)", []),
        code("cluster.stop()", [{"output_type": "error", "ename": "RuntimeError", "evalue": "x", "traceback": []}]),
    ])
    ok = find_problem(tmp_path, "lesson.ipynb", "1 · A cluster", "cluster.broker_ids", "code")
    assert ok is None
    assert find_problem(tmp_path, "lesson.ipynb", "1 · A cluster", "and controllers", "markdown") is None
    assert "no notebook" in find_problem(tmp_path, "other.ipynb", "1 · A cluster", "x", "code")
    assert "no heading" in find_problem(tmp_path, "lesson.ipynb", "1 · The cluster", "cluster.broker_ids", "code")
    assert "no code cell" in find_problem(tmp_path, "lesson.ipynb", "1 · A cluster", "cluster.brokers", "code")
    assert "no saved output" in find_problem(tmp_path, "lesson.ipynb", "1 · A cluster", "controller_ids", "code")
    assert "no saved output" in find_problem(tmp_path, "lesson.ipynb", "1 · A cluster", "cluster.stop()", "code")
    assert "no markdown cell" in find_problem(tmp_path, "lesson.ipynb", "1 · A cluster", "broker_ids", "markdown")


def test_malformed_rows_and_references_are_refused():
    with pytest.raises(ValueError, match="backticks"):
        parse_ref("`01.ipynb` › 1 · A cluster › no backticks")
    with pytest.raises(ValueError, match="expected notebook"):
        parse_ref("`01.ipynb` › `fragment`")
    text = ("## Seed A\n\n| # | Claim | Status | Kafka 4.x | Where shown |\n|---|---|---|---|---|\n"
            "| A1 | brokers have ids | live | — | `01.ipynb` › 1 · A cluster › `broker_ids` |\n\n"
            "## Keeping it up to date\n\n| not | a claim table |\n|---|---|\n| x | y |\n")
    tables = parse_tables(text)
    assert list(tables) == ["Seed A"]
    assert refs_of(tables["Seed A"][0]) == [("01.ipynb", "1 · A cluster", "broker_ids")]
