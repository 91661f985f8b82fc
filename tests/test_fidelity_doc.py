"""docs/fidelity.md binds each claim to its tests: every test it names must exist.

A claim whose test was renamed, moved or retired would otherwise point at
nothing while still reading as checked.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIDELITY = ROOT / "docs" / "fidelity.md"


def named_tests() -> list[str]:
    """Every ``tests/...`` reference in backticks (file, folder, glob, or file::test)."""
    names = []
    for quoted in re.findall(r"`(tests/[^`]+)`", FIDELITY.read_text()):
        names.extend(part.strip() for part in quoted.split(","))
    return names


def missing(reference: str) -> bool:
    path, _, test = reference.partition("::")
    files = sorted(ROOT.glob(path)) if "*" in path else [ROOT / path]
    if not files or not all(f.exists() for f in files):
        return True
    if path.endswith("/") or not test:
        return False
    return not any(re.search(rf"def {re.escape(test)}\b", f.read_text()) for f in files if f.is_file())


def test_the_fidelity_page_names_tests():
    assert len(named_tests()) > 100


def test_every_test_the_fidelity_page_names_exists():
    assert [reference for reference in named_tests() if missing(reference)] == []


def test_a_missing_test_is_noticed():
    assert missing("tests/spark/test_source.py")
    assert missing("tests/cluster/test_facade.py::test_that_was_never_written")
    assert not missing("tests/cluster/test_facade.py")
