"""Reading what Kafka's VerifiableProducer and VerifiableConsumer print, as Kafka's system tests do.

Both tools (``org.apache.kafka.tools``, in ``kafka-tools``) print one JSON
object per line on stdout, each with a ``name`` and a ``timestamp``:

* the producer sends the values "0", "1", ... (with ``--repeating-keys n``
  keyed "0" .. "n-1" in turn) and prints
  ``producer_send_success`` (value, partition, offset) when a send is
  acknowledged, ``producer_send_error`` (exception, message) when the client
  gives up on one, and on exit ``shutdown_complete`` then ``tool_data``
  (``sent``, ``acked``);
* the consumer (with ``--verbose``) prints ``record_data`` (value, partition,
  offset) per record, ``records_consumed`` per poll, ``offsets_committed``
  (offsets, ``success``, and ``error`` when it failed) after each synchronous
  commit, ``partitions_assigned`` / ``partitions_revoked`` on rebalances and
  ``shutdown_complete`` once closed.

Kafka's ``verifiable_producer.py`` and ``verifiable_consumer.py`` services
keep the same books: what was acknowledged, what each consumer saw and where
it committed.  The checks themselves are the tests' business.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from minikafka.jvm import JavaProcess


def events(process: JavaProcess) -> list[dict]:
    """The JSON events the tool has printed so far (other lines, e.g. deprecation notes, left out)."""
    found = []
    for line in process.stdout().splitlines():
        if line.startswith("{") and line.endswith("}"):  # a line still being written is incomplete
            found.append(json.loads(line))
    return found


def count(process: JavaProcess, name: str, partition: int | None = None) -> int:
    """How many ``name`` events it has printed so far, for one partition if given (cheap enough to poll)."""
    text = process.stdout()
    if partition is None:
        return text.count(f'"name":"{name}"')
    mark = re.compile(f'"partition":{partition}[,}}]')  # the producer prints it last, the consumer does not
    return sum(1 for line in text.splitlines() if f'"name":"{name}"' in line and mark.search(line))


@dataclass
class ProducerReport:
    acked: dict[str, tuple[str | None, int, int]] = field(default_factory=dict)  # value -> (key, partition, offset)
    acked_more_than_once: list[str] = field(default_factory=list)  # values with two success events
    errors: list[dict] = field(default_factory=list)  # producer_send_error events: sends given up
    tool_data: dict | None = None  # the summary printed on exit (sent, acked)
    names: Counter = field(default_factory=Counter)  # how many events of each name


def producer_report(printed: list[dict]) -> ProducerReport:
    report = ProducerReport(names=Counter(event["name"] for event in printed))
    for event in printed:
        if event["name"] == "producer_send_success":
            if event["value"] in report.acked:
                report.acked_more_than_once.append(event["value"])
            report.acked[event["value"]] = (event["key"], event["partition"], event["offset"])
        elif event["name"] == "producer_send_error":
            report.errors.append(event)
        elif event["name"] == "tool_data":
            report.tool_data = event
    return report


@dataclass
class ConsumerReport:
    records: list[tuple[str, str | None, int, int]] = field(default_factory=list)  # (value, key, partition, offset)
    commits: list[dict] = field(default_factory=list)  # offsets_committed events, in order
    committed: dict[int, int] = field(default_factory=dict)  # partition -> last successfully committed offset
    first_offsets: dict[int, int] = field(default_factory=dict)  # partition -> first offset it consumed
    names: Counter = field(default_factory=Counter)

    @property
    def failed_commits(self) -> list[dict]:
        return [commit for commit in self.commits if not commit["success"]]


def consumer_report(printed: list[dict]) -> ConsumerReport:
    report = ConsumerReport(names=Counter(event["name"] for event in printed))
    for event in printed:
        if event["name"] == "record_data":
            report.records.append((event["value"], event["key"], event["partition"], event["offset"]))
            report.first_offsets.setdefault(event["partition"], event["offset"])
        elif event["name"] == "offsets_committed":
            report.commits.append(event)
            if event["success"]:
                report.committed.update({entry["partition"]: entry["offset"] for entry in event["offsets"]})
    return report
