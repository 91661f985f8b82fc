"""Playing one scenario against real Kafka and the sandbox, comparing, and keeping the score.

Theory of operation
-------------------
`Oracle.play(name, scenario)` calls ``scenario(side)`` for the real side,
then for the sandbox side, renders both results as text (`render`), and
classifies the pair with `normalise.compare`.  The verdict is recorded in
`RESULTS` (the suite's summary line and ``build/oracle/last_run.json``, from
which ``docs/fidelity.md``'s table is generated), then checked:

* *identical* or *normalised*: the scenario passes;
* *different* with an entry in `known_differences.KNOWN_DIFFERENCES`: it
  passes, and the report shows the reason; an entry that says how to take
  its difference out of real Kafka's text (``undo``) passes only if nothing
  else differs;
* *different* without one: it fails with a diff of the normalised texts;
* a reason for a scenario that no longer differs fails too, so the list of
  explained differences never outlives the differences.

A scenario returns a string, a `ToolRun`, plain data, or a dict of those
(one labelled section each); sections keep the order the scenario gives.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest

from tests.oracle.known_differences import KNOWN_DIFFERENCES
from tests.oracle.normalise import Comparison, Mask, compare
from tests.oracle.sides import Side, ToolRun

RESULTS: list[dict[str, Any]] = []          # one entry per scenario played in this session


def render(output: Any) -> str:
    """A scenario's result as text: sections ``== label`` for a dict, JSON for plain data."""
    if isinstance(output, dict):
        return "".join(f"== {label}\n{render(value).rstrip()}\n" for label, value in output.items())
    if isinstance(output, ToolRun):
        return output.text()
    if isinstance(output, str):
        return output
    return json.dumps(output, indent=1, default=str)


@dataclass
class Oracle:
    kafka: Side                 # the real cluster
    sandbox: Side               # the live sandbox cluster, same shape
    shape: str = ""             # "single node" or "3 brokers + controller", for the report

    def play(self, name: str, scenario: Callable[[Side], Any], *, masks: Sequence[Mask] = (),
             area: str = "", note: str = "") -> Comparison:
        """Play ``scenario`` on both sides and check the verdict.  ``masks`` replace values that depend
        on elapsed time; ``note`` says what else the scenario does to its output before comparing (for
        example, sorting lines whose order is a race), for the report."""
        started = time.monotonic()
        kafka_text = render(scenario(self.kafka))
        sandbox_text = render(scenario(self.sandbox))
        comparison = compare(kafka_text, sandbox_text, self.kafka.context(), self.sandbox.context(), masks)
        _dump(name, comparison)
        known = KNOWN_DIFFERENCES.get(name)
        reason = known.reason if known else ""
        RESULTS.append({"scenario": name, "area": area, "shape": self.shape, "result": comparison.result,
                        "reason": reason if comparison.result == "different" else "",
                        "masks": [label for _, label in masks], "note": note,
                        "seconds": round(time.monotonic() - started, 1), "diff": comparison.diff()})
        if comparison.result == "different" and not known:
            pytest.fail(f"{name}: real Kafka and the sandbox differ (normalised texts):\n{comparison.diff()}",
                        pytrace=False)
        if comparison.result == "different" and known.undo is not None:
            rest = unexplained(comparison, known.undo)
            if rest:
                pytest.fail(f"{name}: real Kafka and the sandbox differ beyond the known difference "
                            f"({reason}):\n{rest}", pytrace=False)
        if comparison.result != "different" and known:
            pytest.fail(f"{name} now matches real Kafka ({comparison.result}): remove its entry from "
                        f"tests/oracle/known_differences.py", pytrace=False)
        return comparison


def unexplained(comparison: Comparison, undo) -> str:
    """The diff that remains once a known difference is taken out of real Kafka's text (empty: none)."""
    return "\n".join(difflib.unified_diff(undo(comparison.kafka_normalised).splitlines(),
                                           comparison.sandbox_normalised.splitlines(),
                                           "kafka, known difference undone", "sandbox", n=2, lineterm=""))


def _dump(name: str, comparison: Comparison) -> None:
    """With ``MINIKAFKA_ORACLE_DUMP=<dir>``, both normalised texts of every scenario go there (to read a
    long difference side by side)."""
    directory = os.environ.get("MINIKAFKA_ORACLE_DUMP")
    if directory:
        stem = Path(directory) / re.sub(r"[^\w-]+", "_", name).strip("_")
        stem.parent.mkdir(parents=True, exist_ok=True)
        Path(f"{stem}.kafka.txt").write_text(comparison.kafka_normalised, encoding="utf-8")
        Path(f"{stem}.sandbox.txt").write_text(comparison.sandbox_normalised, encoding="utf-8")


def summary_line(results: Sequence[dict[str, Any]]) -> str:
    """``N scenarios: X identical, Y normalised, Z different``."""
    counts = {kind: sum(1 for r in results if r["result"] == kind) for kind in ("identical", "normalised", "different")}
    return (f"{len(results)} scenarios: {counts['identical']} identical, {counts['normalised']} normalised, "
            f"{counts['different']} different")
