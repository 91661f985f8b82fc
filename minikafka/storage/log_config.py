"""``LogConfig``: the typed, per-topic settings the log layer reads.

The controller validates topic configs as strings (``minikafka.common.config``,
Kafka's ``LogConfig.validate``) and turns the effective values into one of
these objects; storage and replication code only ever see typed values.

Mirrors ``org.apache.kafka.storage.internals.log.LogConfig``.  Defaults are
Kafka 4.x's.  Simplified: log compaction and tiered storage settings are
accepted by the config layer but have no effect on the sandbox's logs.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

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
