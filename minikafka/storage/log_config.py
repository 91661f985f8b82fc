"""``LogConfig``: the typed, per-topic settings the log layer reads.

The controller validates topic configs as strings (``minikafka.common.config``,
Kafka's ``LogConfig.validate``); `log_config_for` turns a topic's effective
values (its overrides over the broker's defaults) into one of these objects,
so storage and replication code only ever see typed values.

Mirrors ``org.apache.kafka.storage.internals.log.LogConfig``.  Defaults are
Kafka 4.x's.  Simplified: log compaction and tiered storage settings are
accepted by the config layer but have no effect on the sandbox's logs.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from minikafka.common.config.topic_configs import INTERNAL_SEGMENT_BYTES, effective_topic_config

MAX_LONG = 2**63 - 1


@dataclass(frozen=True, slots=True)
class LogConfig:
    segment_bytes: int = 1073741824              # segment.bytes: roll when the active .log reaches this
    segment_ms: int = 604800000                  # segment.ms: roll when the active segment is this old
    segment_jitter_ms: int = 0                   # segment.jitter.ms
    segment_index_bytes: int = 10485760          # segment.index.bytes: index files are preallocated to this
    index_interval_bytes: int = 4096             # index.interval.bytes: one .index entry per this many bytes
    retention_ms: int = 604800000                # retention.ms (-1 = keep forever)
    retention_bytes: int = -1                    # retention.bytes (-1 = no size limit)
    max_message_bytes: int = 1048588             # max.message.bytes: largest record batch accepted
    cleanup_policy: tuple[str, ...] = ("delete",)  # cleanup.policy
    min_insync_replicas: int = 1                 # min.insync.replicas (checked for acks=all)
    unclean_leader_election_enable: bool = False  # unclean.leader.election.enable
    message_timestamp_type: str = "CreateTime"   # message.timestamp.type: CreateTime | LogAppendTime
    message_timestamp_before_max_ms: int = MAX_LONG   # message.timestamp.before.max.ms: oldest CreateTime accepted
    message_timestamp_after_max_ms: int = 3600000     # message.timestamp.after.max.ms (1 hour since Kafka 4.0)
    compression_type: str = "producer"           # compression.type
    file_delete_delay_ms: int = 60000            # file.delete.delay.ms
    flush_messages: int = MAX_LONG               # flush.messages
    flush_ms: int = MAX_LONG                     # flush.ms
    preallocate: bool = False                    # preallocate

    def with_changes(self, **changes) -> "LogConfig":
        return replace(self, **changes)

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


def log_config_for(topic_overrides: Mapping[str, str], broker_config: Any = None) -> LogConfig:
    """The typed LogConfig storage reads for a topic (``internal.segment.bytes`` wins if set)."""
    v = effective_topic_config(topic_overrides, broker_config)
    segment_bytes = v[INTERNAL_SEGMENT_BYTES] if v[INTERNAL_SEGMENT_BYTES] is not None else v["segment.bytes"]
    return LogConfig(
        segment_bytes=segment_bytes,
        segment_ms=v["segment.ms"],
        segment_jitter_ms=v["segment.jitter.ms"],
        segment_index_bytes=v["segment.index.bytes"],
        index_interval_bytes=v["index.interval.bytes"],
        retention_ms=v["retention.ms"],
        retention_bytes=v["retention.bytes"],
        max_message_bytes=v["max.message.bytes"],
        cleanup_policy=tuple(v["cleanup.policy"]),
        min_insync_replicas=v["min.insync.replicas"],
        unclean_leader_election_enable=v["unclean.leader.election.enable"],
        message_timestamp_type=v["message.timestamp.type"],
        message_timestamp_before_max_ms=v["message.timestamp.before.max.ms"],
        message_timestamp_after_max_ms=v["message.timestamp.after.max.ms"],
        compression_type=v["compression.type"],
        file_delete_delay_ms=v["file.delete.delay.ms"],
        flush_messages=v["flush.messages"],
        flush_ms=v["flush.ms"],
        preallocate=v["preallocate"],
    )
