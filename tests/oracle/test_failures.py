"""Differential scenarios: a leader's broker stopped, another crashed, both back, and the metadata records
the controller wrote for all of it.

One topic ``fo`` (replicas 1,2,3 in that order, ``min.insync.replicas=2``)
lives through the scenarios in file order on a fresh three-broker cluster:

1. broker 1, the leader, stops cleanly (controlled shutdown): what a client
   sees, in order, and the partition afterwards (leader, ISR, ELR);
2. broker 2, the new leader, is killed: the controller fences it after
   ``broker.session.timeout.ms``; the ISR falls below ``min.insync.replicas``
   (so ELR has a member on a cluster with eligible leader replicas);
3. both brokers start again and rejoin the ISR;
4. the ``__cluster_metadata`` records about ``fo`` and the brokers' fencing,
   as ``kafka-dump-log --cluster-metadata-decoder`` prints them from each
   controller's log, compared record by record.  Broker 1's fence record is
   there twice on both sides: once from the heartbeat that lets it stop, and
   again ``broker.session.timeout.ms`` after that last heartbeat, when the
   controller's session of that (broker id, epoch) expires: Kafka 4.3.1's
   ``maybeFenceOneStaleBroker`` fences the registered broker of an expired
   session without asking whether it is fenced already.
"""

from __future__ import annotations

import json

import pytest

from tests.client_batches import client_batch
from tests.oracle.sides import Side
from tests.oracle.test_protocol import METADATA, PRODUCE, T0

pytestmark = pytest.mark.slow

TOPIC = "fo"
FEATURE_ORDER = ("a RegisterBrokerRecord's features sorted by name: a real broker lists them in the order of a "
                 "hash map that differs from one broker process to the next; a restarted broker's unfencing "
                 "listed before its report of cordoned log dirs when the two are adjacent: both come from its "
                 "first heartbeats after catching up, in one heartbeat or two depending on when its logs are "
                 "loaded")


def metadata_view(side: Side, broker: int) -> dict:
    """Partition 0 of ``fo`` as broker ``broker`` answers Metadata v12."""
    with side.raw(broker) as connection:
        answer = connection.request(METADATA, 12, topics=[{"name": TOPIC}], allow_auto_topic_creation=False,
                                    include_topic_authorized_operations=False)
    partition = answer["topics"][0]["partitions"][0]
    return {key: partition[key] for key in ("error_code", "leader_id", "leader_epoch", "replica_nodes",
                                            "isr_nodes", "offline_replicas")}


def produce_to(side: Side, broker: int, acks: int = -1) -> object:
    """A one-record produce sent to ``broker``: its error code, or what the connection did."""
    try:
        with side.raw(broker) as connection:
            answer = connection.request(PRODUCE, 9, transactional_id=None, acks=acks, timeout_ms=5_000,
                                        topic_data=[{"name": TOPIC, "partition_data": [
                                            {"index": 0, "records": client_batch(1, timestamp=T0)}]}])
    except ConnectionRefusedError:
        return "connection refused"
    partition = answer["responses"][0]["partition_responses"][0]
    return {"error_code": partition["error_code"], "error_message": partition["error_message"]}


def produce_written_to(side: Side, broker: int) -> object:
    """``produce_to``, retried as a client would while the broker does not act as the leader yet:
    Kafka's broker publishes a new image to its metadata cache (which answers Metadata) before its
    replica manager takes the leadership, so a produce can meet NOT_LEADER_OR_FOLLOWER (6) just after
    Metadata named the broker leader."""
    def attempt():
        answer = produce_to(side, broker)
        retriable = isinstance(answer, dict) and answer["error_code"] in (3, 6)
        return None if retriable else answer
    return side.wait_until(attempt, timeout_s=30, what=f"a produce to broker {broker}")


def describe(side: Side) -> str:
    return side.tool("kafka-topics", "--describe", "--topic", TOPIC).text()


def test_a_leaders_broker_stops_cleanly(failover):
    def scenario(side):
        created = side.tool("kafka-topics", "--create", "--topic", TOPIC, "--replica-assignment", "1:2:3",
                            "--config", "min.insync.replicas=2")
        # The tool returns once the controller has the topic; broker 1 learns that it leads a moment later.
        side.wait_until(lambda: metadata_view(side, 1)["leader_id"] == 1, what="broker 1 leads fo")
        written = produce_written_to(side, 1)
        side.stop_broker(1)
        side.wait_until(lambda: metadata_view(side, 2)["leader_id"] == 2, what="broker 2 leads")
        return {"create": created, "produce before": written, "produce to broker 1": produce_to(side, 1),
                "metadata from broker 2": metadata_view(side, 2), "produce to broker 2": produce_to(side, 2),
                "produce to broker 3": produce_to(side, 3), "describe": describe(side)}
    failover.play("failures: the leader's broker stops cleanly (controlled shutdown)", scenario, area="failures")


def test_the_next_leader_crashes(failover):
    def scenario(side):
        side.kill_broker(2)
        refused = produce_to(side, 2)
        side.wait_until(lambda: metadata_view(side, 3)["leader_id"] == 3, timeout_s=60,
                        what="broker 3 leads once broker 2 is fenced")
        return {"produce to broker 2": refused, "metadata from broker 3": metadata_view(side, 3),
                "produce acks=all": produce_to(side, 3), "produce acks=1": produce_to(side, 3, acks=1),
                "describe": describe(side),
                "under min isr": side.tool("kafka-topics", "--describe", "--under-min-isr-partitions")}
    failover.play("failures: the next leader crashes; the ISR falls below min.insync.replicas", scenario,
                  area="failures")


def test_brokers_come_back(failover):
    def scenario(side):
        side.start_broker(2)
        # One at a time, so the metadata log has one order: broker 2 is back in the ISR before broker 1 registers.
        side.wait_until(lambda: 2 in metadata_view(side, 3)["isr_nodes"], timeout_s=90, what="broker 2 in the ISR")
        side.start_broker(1)
        side.wait_until(lambda: sorted(metadata_view(side, 3)["isr_nodes"]) == [1, 2, 3], timeout_s=90,
                        what="all three replicas in sync again")
        return {"metadata from broker 1": metadata_view(side, 1), "describe": describe(side),
                "under-replicated": side.tool("kafka-topics", "--describe", "--under-replicated-partitions")}
    failover.play("failures: both brokers start again and rejoin the ISR", scenario, area="failures")


def metadata_records(side: Side) -> list[str]:
    """The controller's committed records about ``fo`` and broker fencing, one JSON line each."""
    log_dir = side.node_dir(side.controller_ids[0]) / "__cluster_metadata-0"
    segments = sorted(str(path) for path in log_dir.glob("*.log"))
    dumped = side.tool("kafka-dump-log", "--cluster-metadata-decoder", "--files", ",".join(segments),
                       bootstrap=False)
    assert dumped.returncode == 0, dumped.text()
    records, topic_id = [], None
    for line in dumped.stdout.splitlines():
        if " payload: " not in line:
            continue
        record = json.loads(line.split(" payload: ", 1)[1])
        data = record.get("data", {})
        if record.get("type") == "TOPIC_RECORD" and data.get("name") == TOPIC:
            topic_id = data["topicId"]
        about_topic = topic_id is not None and data.get("topicId") == topic_id
        about_config = record.get("type") == "CONFIG_RECORD" and data.get("resourceName") == TOPIC
        fencing = record.get("type") in ("BROKER_REGISTRATION_CHANGE_RECORD", "FENCE_BROKER_RECORD",
                                         "UNFENCE_BROKER_RECORD", "REGISTER_BROKER_RECORD") and topic_id is not None
        if (record.get("type") == "TOPIC_RECORD" and data.get("name") == TOPIC) or about_topic or about_config \
                or fencing:
            if "features" in data:
                data["features"].sort(key=lambda feature: feature["name"])
            records.append(record)
    return [json.dumps(record, sort_keys=False) for record in unfencing_first(records)]


def unfencing_first(records: list[dict]) -> list[dict]:
    """Swap a broker's cordoned-log-dirs report with its unfencing right after it.

    A broker reports its cordoned log dirs (KIP-1066) in every heartbeat once it has caught up
    with the metadata log, and asks to be unfenced once its logs are loaded as well.  Whether the
    two land in one heartbeat (unfencing written first) or two (the report first) depends on
    timing, on a real broker as in the sandbox, so the order of that pair carries no meaning.
    """
    def change(record, field):
        data = record.get("data", {})
        return record.get("type") == "BROKER_REGISTRATION_CHANGE_RECORD" and field in data, data.get("brokerId")

    ordered = list(records)
    for i in range(len(ordered) - 1):
        cordoned, broker = change(ordered[i], "cordonedLogDirs")
        unfenced, same_broker = change(ordered[i + 1], "fenced")
        if cordoned and unfenced and broker == same_broker and ordered[i + 1]["data"]["fenced"] == -1:
            ordered[i], ordered[i + 1] = ordered[i + 1], ordered[i]
    return ordered


def test_metadata_records_of_creation_and_failover(failover):
    def scenario(side):
        return "\n".join(metadata_records(side)) + "\n"
    failover.play("failures: __cluster_metadata records of the topic's creation and the failover "
                  "(kafka-dump-log --cluster-metadata-decoder)", scenario, area="failures", note=FEATURE_ORDER,
                  masks=[(r'"brokerEpoch": (\d+)', "a broker epoch is the offset of its registration, "
                          "and real Kafka's log also holds a NoOpRecord every 500 ms")])
