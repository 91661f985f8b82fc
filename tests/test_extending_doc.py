"""docs/extending.md names only things that exist: every path, every dotted Python name.

The recipes are only useful while they point at the real tree.  Every code span of the
page that looks like a repository path must exist, and every code span that is a dotted
name under ``minikafka`` or ``widgets`` must import (module, then attributes).
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "extending.md"
PATH = re.compile(r"^[\w.-]+(/[\w.-]+)*/?$")
SUFFIXES = (".py", ".ipynb", ".md", ".cfg")


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def paths(text: str) -> list[str]:
    return sorted({s for s in code_spans(text) if PATH.match(s) and ("/" in s and (
        s.endswith("/") or s.endswith(SUFFIXES))) and "NN" not in s})


def dotted_names(text: str) -> list[str]:
    return sorted({s.removesuffix("()") for s in code_spans(text)
                   if re.fullmatch(r"(minikafka|widgets)(\.\w+)+(\(\))?", s)})


def resolve(name: str) -> object:
    """Import the longest module prefix of ``name``, then walk the attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(name)


def test_the_checks_can_fail():
    text = "see `minikafka/no_such_module.py`, `widgets/` and `minikafka.drills.scenario.NoSuchThing`"
    assert paths(text) == ["minikafka/no_such_module.py", "widgets/"]
    assert not (ROOT / "minikafka/no_such_module.py").exists()
    with pytest.raises(AttributeError):
        resolve(dotted_names(text)[0])


@pytest.mark.parametrize("path", paths(DOC.read_text(encoding="utf-8")))
def test_every_path_exists(path):
    assert (ROOT / path).exists(), path


@pytest.mark.parametrize("name", dotted_names(DOC.read_text(encoding="utf-8")))
def test_every_dotted_name_resolves(name):
    assert resolve(name) is not None
