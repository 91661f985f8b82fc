"""The operator's view as data and as text (widgets/operator_model.py, widgets/operator_text.py)."""

from __future__ import annotations

import dataclasses

from _widget_helpers import three_brokers
from widgets.operator_model import build_operator_summary
from widgets.operator_text import operator_text

RM = "kafka.server:type=ReplicaManager,name="
BTM = "kafka.server:type=BrokerTopicMetrics,name="
KC = "kafka.controller:type=KafkaController,name="


def meter(rate: float, count: int = 0) -> dict:
    return {"Count": count, "MeanRate": 0.0, "OneMinuteRate": 0.0, "FiveMinuteRate": 0.0,
            "FifteenMinuteRate": 0.0, "TenSecondRate": rate}


def broker_metrics(partitions, leaders, urp=0, msgs=0.0, bytes_in=0.0, bytes_out=0.0) -> dict:
    return {RM + "PartitionCount": {"Value": partitions}, RM + "LeaderCount": {"Value": leaders},
            RM + "UnderReplicatedPartitions": {"Value": urp},
            RM + "UnderMinIsrPartitionCount": {"Value": 0},
            BTM + "MessagesInPerSec": meter(msgs), BTM + "BytesInPerSec": meter(bytes_in),
            BTM + "BytesOutPerSec": meter(bytes_out)}


def with_metrics(snapshot, metrics: dict[int, dict], node_changes: dict[int, dict] | None = None):
    changes = node_changes or {}
    nodes = tuple(dataclasses.replace(n, metrics=metrics.get(n.node_id, {}), **changes.get(n.node_id, {}))
                  for n in snapshot.nodes)
    return dataclasses.replace(snapshot, nodes=nodes)


def healthy():
    return with_metrics(three_brokers(), {
        1: broker_metrics(3, 1, msgs=120.5, bytes_in=12_800, bytes_out=2048),
        2: broker_metrics(3, 1, urp=0),
        3: broker_metrics(3, 1, urp=1),
        1001: {KC + "ActiveControllerCount": {"Value": 1}, KC + "OfflinePartitionsCount": {"Value": 0},
               KC + "GlobalPartitionCount": {"Value": 3}}})


def test_summary_sums_under_replication_over_brokers_and_reads_the_active_controller():
    summary = build_operator_summary(healthy())
    assert summary.health.under_replicated == 1
    assert summary.health.active_controller_count == 1 and summary.health.offline_partitions == 0
    assert (summary.health.brokers_alive, summary.health.brokers_total) == (3, 3)
    assert not summary.health.healthy                       # one partition is under-replicated
    assert [r.leaders for r in summary.brokers] == [1, 1, 1]
    assert summary.brokers[0].messages_in == 120.5


def test_text_without_rates_is_stable():
    assert operator_text(healthy(), rates=False) == (
        "controller: active 1001 (ActiveControllerCount summed over controllers: 1)\n"
        "partitions: 3, offline 0, under-replicated 1; brokers alive: 3 of 3\n"
        "\n"
        "BROKER  STATE  LOG BYTES  PARTITIONS  LEADERS  URP  UNDER-MIN-ISR\n"
        "1       alive  12.3 KiB   3           1        0    0\n"
        "2       alive  900 B      3           1        0    0\n"
        "3       alive  3.0 MiB    3           1        1    0\n"
        "\n"
        "PARTITIONS, LEADERS, URP, UNDER-MIN-ISR: kafka.server:type=ReplicaManager,name=PartitionCount, "
        "LeaderCount, UnderReplicatedPartitions, UnderMinIsrPartitionCount")


def test_rates_are_the_ten_second_rates():
    lines = operator_text(healthy(), legend=False).splitlines()
    assert lines[3].endswith("UNDER-MIN-ISR  MSG IN/S  BYTES IN/S  BYTES OUT/S")
    assert lines[4].split()[-5:] == ["120.5", "12.5", "KiB", "2.0", "KiB"]
    assert lines[5].split()[-5:] == ["0.0", "0", "B", "0", "B"]
    assert "TenSecondRate (the sandbox's: the last 10 s of cluster time" in operator_text(healthy())


def test_a_dead_broker_has_no_numbers_and_no_controller_means_none():
    snapshot = with_metrics(three_brokers(), {1: broker_metrics(3, 2), 2: broker_metrics(3, 1)},
                            {3: {"process": "dead"}})
    snapshot = dataclasses.replace(snapshot, quorum=dataclasses.replace(snapshot.quorum, leader=None))
    text = operator_text(snapshot, rates=False, legend=False)
    assert text.splitlines()[0] == ("controller: active none (election or lost quorum) "
                                    "(ActiveControllerCount summed over controllers: 0)")
    assert "partitions: -, offline -, under-replicated 0; brokers alive: 2 of 3" in text
    assert text.splitlines()[-1].split() == ["3", "dead", "3.0", "MiB", "-", "-", "-", "-"]


# ---------------------------------------------------------------------------- observations, not causes
def _faulty():
    """Broker 1 crashed, broker 2 frozen and fenced, broker 3 isolated (not yet fenced)."""
    return with_metrics(three_brokers(), {}, {
        1: {"process": "dead", "registration": "fenced"},
        2: {"process": "paused", "registration": "fenced"},
        3: {"isolated": True}})


def test_the_state_column_says_what_an_operator_observes_never_the_cause():
    from widgets.operator_html import operator_html
    from widgets.operator_text import probe_text
    snapshot = _faulty()
    states = [row.state for row in build_operator_summary(snapshot).brokers]
    # an isolated broker still answers clients; only its fencing, later, shows the partition
    assert states == ["dead", "fenced, not responding", "alive"]
    for shown in (operator_text(snapshot, rates=False), operator_html(snapshot), probe_text(snapshot)):
        for cause in ("paused", "frozen", "isolated", "STOP", "kill", "crash", "links"):
            assert cause not in shown, (cause, shown)


def test_probe_text_lists_the_process_table_the_registration_and_a_request():
    from widgets.operator_text import probe_text
    assert probe_text(_faulty()) == (
        "BROKER  PROCESS LISTED  REGISTRATION (CONTROLLER)  A REQUEST TO ITS PORT\n"
        "1       no              fenced                     connection refused\n"
        "2       yes             fenced                     timed out\n"
        "3       yes             unfenced                   answered")
    assert probe_text(_faulty(), controllers=True) == (
        "CONTROLLER  PROCESS LISTED  A REQUEST TO ITS PORT\n"
        "1001        yes             answered")
