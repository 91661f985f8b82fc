"""Differential scenarios: ``kafka-metadata-quorum describe --status`` and ``--replication`` as text, on a
combined node and on a dedicated controller with three brokers as observers."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.slow

# The metadata log's end offset grows on real Kafka by a NoOpRecord every 500 ms
# (metadata.max.idle.interval.ms), so offsets, lags and fetch times are compared by shape only.
STATUS_MASKS = [(r"HighWatermark:\s+(\d+)", "metadata log end offset"),
                (r"MaxFollowerLag:\s+(\d+)", "follower lag at that moment"),
                (r"MaxFollowerLagTimeMs:\s+(\d+)", "follower lag at that moment")]
REPLICATION_MASKS = [(r"(?m)^\d+\s*\t[^\t]+\t(\d+\s*)\t(\d+\s*)\t([^\t]*)\t([^\t]*)\t\w+\s*\t$",
                      "metadata log end offset, lag and fetch times at that moment")]
OBSERVER_ORDER = ("observers sorted by id: real Kafka lists them in the order they first fetched from the "
                  "leader (a race), the sandbox by id")


def observers_by_id(text: str) -> str:
    """The CurrentObservers list and the Observer rows of the output, sorted by node id."""
    def sort_list(match: re.Match) -> str:
        observers = sorted(json.loads(match.group(2)), key=lambda o: o["id"])
        return match.group(1) + json.dumps(observers, separators=(", ", ": "))
    text = re.sub(r"(CurrentObservers:\s+)(\[.*\])", sort_list, text)
    lines = text.splitlines()
    rows = [i for i, line in enumerate(lines) if re.search(r"\tObserver\s*\t$", line)]
    ordered = sorted((lines[i] for i in rows), key=lambda line: int(line.split("\t")[0]))
    for i, line in zip(rows, ordered):
        lines[i] = line
    return "\n".join(lines) + "\n"


def test_status_single_node(single):
    def scenario(side):
        return side.tool("kafka-metadata-quorum", "describe", "--status")
    single.play("quorum: describe --status (combined node)", scenario, masks=STATUS_MASKS, area="quorum")


def test_replication_single_node(single):
    def scenario(side):
        return side.tool("kafka-metadata-quorum", "describe", "--replication")
    single.play("quorum: describe --replication (combined node)", scenario, masks=REPLICATION_MASKS,
                area="quorum")


def test_status_with_observers(multi):
    def scenario(side):
        return observers_by_id(side.tool("kafka-metadata-quorum", "describe", "--status").text())
    multi.play("quorum: describe --status (controller and three brokers)", scenario, masks=STATUS_MASKS,
               area="quorum", note=OBSERVER_ORDER)


def test_replication_with_observers(multi):
    def scenario(side):
        return observers_by_id(side.tool("kafka-metadata-quorum", "describe", "--replication",
                                         "--human-readable").text())
    multi.play("quorum: describe --replication --human-readable (controller and three brokers)", scenario,
               masks=REPLICATION_MASKS, area="quorum", note=OBSERVER_ORDER)
