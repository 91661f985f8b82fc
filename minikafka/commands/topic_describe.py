"""``kafka-topics.sh --describe``: gathering a topic description over the Kafka protocol.

Theory of operation
-------------------
``TopicCommand.describeTopic`` asks four questions before it prints:

1. which topics: all names (``listTopics``), filtered by ``--topic``, or the
   one ``--topic-id`` (matched against the ids the cluster lists);
2. their partitions: DescribeTopicPartitions (API 75, KIP-966), paged with
   a cursor, which carries the eligible leader replicas (``Elr``) and the
   last known ELR; a broker without that API is asked with Metadata
   instead, and then ELR prints as ``N/A``;
3. their configs: DescribeConfigs per topic; entries whose source is not
   ``DEFAULT_CONFIG`` are the ``Configs:`` column, in the order the Java
   admin client's ``HashMap`` keeps them, and ``min.insync.replicas`` feeds
   the ``--under-min-isr-partitions`` report;
4. the live brokers (DescribeCluster, fenced brokers left out) and the
   ongoing reassignments (ListPartitionReassignments, ignored when the
   broker does not support it).

The answers become `minikafka.tools.topic_command_output.TopicDescription`\\ s and
that module prints them byte for byte as Kafka does.

Mirrors ``TopicCommand.TopicService.describeTopic`` (4.3.1).  Simplified:
kafka-python reports an empty ELR list and a missing one alike, so through
DescribeTopicPartitions both print as empty (a 4.x broker always sends a
list).
"""

from __future__ import annotations

from types import SimpleNamespace

from minikafka.commands.admin_client import AdminConnection, from_client_error, kafka_uuid
from minikafka.commands.option_parser import OptionSet
from minikafka.common.config.describe import admin_order
from minikafka.common.errors import KafkaException
from minikafka.common.uuid import Uuid
from minikafka.tools import topic_command_output as output
from minikafka.tools.tool_output import ToolOutput


def _partitions_via_describe_topic_partitions(admin, names: list[str], limit: int) -> dict[str, dict]:
    """Every topic's DescribeTopicPartitions entry, following the cursor across pages."""
    topics: dict[str, dict] = {}
    cursor = None
    while True:
        page = admin.describe_topic_partitions(names, response_partition_limit=limit, cursor=cursor)
        for topic in page["topics"]:
            if topic["error_code"]:
                continue
            known = topics.setdefault(topic["name"], {**topic, "partitions": []})
            known["partitions"].extend(topic["partitions"])
        cursor = page["next_cursor"]
        if cursor is None:
            return topics


def _partitions(admin, names: list[str], limit: int) -> tuple[dict[str, dict], bool]:
    """(topic -> description, whether ELR is known)."""
    from kafka.errors import IncompatibleBrokerVersion, UnsupportedVersionError
    try:
        return _partitions_via_describe_topic_partitions(admin, names, limit), True
    except (IncompatibleBrokerVersion, UnsupportedVersionError):
        return {t["name"]: t for t in admin.describe_topics(names) if not t["error_code"]}, False


def _configs(admin, names: list[str]) -> dict[str, tuple[tuple[tuple[str, str | None], ...], int]]:
    """topic -> (non-default entries in the admin client's order, effective min.insync.replicas)."""
    from kafka.admin import ConfigResource, ConfigResourceType
    described = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, n) for n in names],
                                       config_filter="all").get("topic", {})
    result = {}
    for name in names:
        entries = [SimpleNamespace(name=k, value=v["value"], source=v["config_source"])
                   for k, v in described.get(name, {}).items()]
        ordered = admin_order(entries)
        non_default = tuple((e.name, e.value) for e in ordered if e.source != "DEFAULT_CONFIG")
        min_isr = next((int(e.value) for e in ordered if e.name == "min.insync.replicas" and e.value), 1)
        result[name] = (non_default, min_isr)
    return result


def _reassignments(admin, described: dict[str, dict]) -> dict[tuple[str, int], dict]:
    from kafka import TopicPartition
    from kafka.errors import ClusterAuthorizationFailedError, IncompatibleBrokerVersion, UnsupportedVersionError
    wanted = [TopicPartition(t, p["partition_index"]) for t, d in described.items() for p in d["partitions"]]
    if not wanted:
        return {}
    try:
        found = admin.list_partition_reassignments(wanted)
    except (IncompatibleBrokerVersion, UnsupportedVersionError, ClusterAuthorizationFailedError):
        return {}
    return {(tp.topic, tp.partition): r for tp, r in found.items()}


def _ids(values) -> tuple[int, ...]:
    return tuple(values or ())


def _description(name: str, topic: dict, elr_known: bool, configs, reassignments) -> output.TopicDescription:
    non_default, min_isr = configs
    partitions = []
    for p in topic["partitions"]:
        moving = reassignments.get((name, p["partition_index"]), {})
        leader = p["leader_id"] if p["leader_id"] >= 0 else None
        partitions.append(output.TopicPartitionInfo(
            p["partition_index"], leader, _ids(p["replica_nodes"]), _ids(p["isr_nodes"]),
            _ids(p.get("eligible_leader_replicas")) if elr_known else None,
            _ids(p.get("last_known_elr")) if elr_known else None,
            _ids(moving.get("adding_replicas")), _ids(moving.get("removing_replicas"))))
    return output.TopicDescription(name, kafka_uuid(topic.get("topic_id")), tuple(partitions), non_default, min_isr)


def _by_topic_id(admin, raw_id: str, exclude_internal: bool) -> list[str]:
    """``getTopicIds``: the name of the topic with that id, if the cluster lists it."""
    wanted = str(Uuid.from_string(raw_id))
    return [t["name"] for t in admin.describe_topics() if kafka_uuid(t.get("topic_id")) == wanted
            and not (exclude_internal and t.get("is_internal"))]


def describe_topics(connection: AdminConnection, o: OptionSet) -> ToolOutput:
    """Gather what ``--describe`` prints and let `minikafka.tools.topic_command_output` print it."""
    admin = connection.admin("listTopics")
    raw_id = o.value_of("topic-id")
    use_id = raw_id is not None and raw_id != str(Uuid.ZERO)
    try:
        if use_id:
            names = _by_topic_id(admin, raw_id, o.has("exclude-internal"))
            if not names and not o.has("if-exists"):
                raise KafkaException(f"TopicId '{raw_id}' does not exist as expected")
        else:
            names = output.select_topics(admin.list_topics(), o.value_of("topic"), o.has("exclude-internal"),
                                         o.has("if-exists"))
        if not names:
            return ToolOutput()
        described, elr_known = _partitions(admin, names, o.value_of("partition-size-limit-per-response") or 2000)
        configs = _configs(admin, list(described))
        live = [b["broker_id"] for b in admin.describe_cluster()["brokers"] if not b.get("is_fenced")]
        reassignments = _reassignments(admin, described)
    except output.TopicCommandError as exc:
        raise KafkaException(str(exc)) from None
    except (KafkaException, ValueError):
        raise
    except Exception as exc:
        raise from_client_error(exc) from None
    descriptions = [_description(n, described[n], elr_known, configs[n], reassignments) for n in described]
    return output.describe(descriptions, topic=None if use_id else o.value_of("topic"),
                           exclude_internal=o.has("exclude-internal"), if_exists=True,
                           under_replicated_partitions=o.has("under-replicated-partitions"),
                           under_min_isr_partitions=o.has("under-min-isr-partitions"),
                           at_min_isr_partitions=o.has("at-min-isr-partitions"),
                           unavailable_partitions=o.has("unavailable-partitions"),
                           topics_with_overrides=o.has("topics-with-overrides"), live_brokers=live)


__all__ = ["describe_topics"]
