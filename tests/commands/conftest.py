"""Helpers for the command-line tool tests: run ``minikafka <tool> ...`` in-process, poll with deadlines.

``cli(*args, stdin=...)`` runs ``minikafka.cli.main`` like the shell would and
returns the exit code and what the tool wrote on each stream.  Nothing here
sleeps to make an assertion true: ``eventually`` polls until a deadline and
fails the test if the condition never holds.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from typing import Callable

import pytest

from minikafka.cli import main
from tests.waiting import eventually


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys, monkeypatch) -> Callable[..., CliResult]:
    def run(*args: str, stdin: str | None = None) -> CliResult:
        capsys.readouterr()                      # forget anything printed before
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(args))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)
    return run




@pytest.fixture(name="eventually")
def eventually_fixture() -> Callable[..., object]:
    return eventually
