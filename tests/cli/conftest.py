"""Helpers for the command-line tool tests: run ``minikafka <tool> ...`` in-process, poll with deadlines.

``cli(*args, stdin=...)`` runs ``minikafka.cli.main`` like the shell would and
returns the exit code and what the tool wrote on each stream.  Nothing here
sleeps to make an assertion true: ``eventually`` polls until a deadline and
fails the test if the condition never holds.
"""

from __future__ import annotations

import io
import sys
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

import pytest

from minikafka.cli import main

T = TypeVar("T")


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


def eventually(probe: Callable[[], T], timeout_s: float = 20.0, what: str = "condition") -> T:
    """The first truthy ``probe()``; fails after ``timeout_s`` (exceptions count as "not yet")."""
    deadline = time.monotonic() + timeout_s
    last: object = None
    while True:
        try:
            value = probe()
            if value:
                return value
            last = value
        except Exception as exc:                 # the cluster may still be settling
            last = exc
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} did not happen within {timeout_s}s (last: {last!r})")
        time.sleep(0.05)


@pytest.fixture(name="eventually")
def eventually_fixture() -> Callable[..., object]:
    return eventually
