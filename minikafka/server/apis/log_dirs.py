"""DescribeLogDirs (35) and AlterReplicaLogDirs (34): which directory holds which replica.

Theory of operation
-------------------
A Kafka broker may spread its replicas over several ``log.dirs`` (JBOD).  A
sandbox broker has exactly one: its data directory, which also holds the
metadata log.  So:

* **DescribeLogDirs** lists that one directory (absolute path, as Kafka prints
  it) with, for each hosted replica that was asked about (``topics`` null
  means all), its size in bytes and its offset lag -- which Kafka computes as
  high watermark minus the replica's own log end offset, floored at 0, so it
  is 0 for every current replica -- from v4 the file system's total and
  usable bytes, and from v5 whether the directory is cordoned (KIP-1066;
  never, here);
* **AlterReplicaLogDirs** can only "move" a replica to the directory it is
  already in, which succeeds and does nothing.  Any other path is
  LOG_DIR_NOT_FOUND ("Log dir <path> is not found in the config."); a replica
  this broker does not host is REPLICA_NOT_AVAILABLE (UNKNOWN_TOPIC_OR_PARTITION
  for a topic that does not exist); a topic name too long for the
  ``<topic>-<partition>.<id>-future`` directory is INVALID_TOPIC_EXCEPTION.

Mirrors ``KafkaApis.handleDescribeLogDirsRequest``/``ReplicaManager.describeLogDirs``
and ``handleAlterReplicaLogDirsRequest``/``ReplicaManager.alterReplicaLogDirs``
(Kafka 4.3).  Simplified: one log directory, never offline or cordoned;
topics are listed by name (Kafka uses hash order).  The file system's
space comes from the storage layer (`minikafka.storage.file_store`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.network.codec import response_class
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import DESCRIBE_LOG_DIRS, ALTER_REPLICA_LOG_DIRS

if TYPE_CHECKING:
    from minikafka.server.replica_manager import ReplicaManager
    from minikafka.storage.log_manager import LogManager
    from minikafka.storage.unified_log import UnifiedLog

DescribeLogDirsResponse = response_class(DESCRIBE_LOG_DIRS)
AlterReplicaLogDirsResponse = response_class(ALTER_REPLICA_LOG_DIRS)
LogDirResult = DescribeLogDirsResponse.DescribeLogDirsResult

FUTURE_DIR_SUFFIX_LENGTH = 1 + 32 + len("-future")   # ".<uuid hex>-future" after "<topic>-<partition>"
MAX_DIR_NAME_LENGTH = 255


class LogDirsBroker(Protocol):
    """What the log-dir APIs use of the broker: its log directory and its replicas."""

    @property
    def log_manager(self) -> "LogManager": ...

    @property
    def replica_manager(self) -> "ReplicaManager": ...


# ---------------------------------------------------------------- DescribeLogDirs
def handle_describe_log_dirs(ctx: RequestContext, request: Any, broker: LogDirsBroker) -> Any:
    manager = broker.log_manager
    if request.topics is None:
        wanted = {log.topic_partition for log in manager.all_logs()}
    else:
        wanted = {TopicPartition(t.topic, p) for t in request.topics for p in t.partitions}
    by_topic: dict[str, list[Any]] = {}
    for log in sorted(manager.all_logs(), key=lambda log: log.topic_partition):
        tp = log.topic_partition
        if tp in wanted:
            by_topic.setdefault(tp.topic, []).append(LogDirResult.DescribeLogDirsTopic.DescribeLogDirsPartition(
                partition_index=tp.partition, partition_size=log.size_in_bytes,
                offset_lag=_offset_lag(broker, tp, log), is_future_key=False))
    topics = [LogDirResult.DescribeLogDirsTopic(name=name, partitions=parts)
              for name, parts in sorted(by_topic.items())]
    total, usable = manager.directory.total_and_usable_space(manager.log_dir)
    result = LogDirResult(error_code=0, log_dir=os.path.abspath(manager.log_dir), topics=topics,
                          total_bytes=total, usable_bytes=usable, is_cordoned=False)
    return DescribeLogDirsResponse(throttle_time_ms=0, error_code=0, results=[result])


def _offset_lag(broker: LogDirsBroker, tp: TopicPartition, log: UnifiedLog) -> int:
    """``getLogEndOffsetLag``: -1 when no hosted replica uses the log (it is being deleted)."""
    partition = broker.replica_manager.online_partition(tp)
    if partition is None or partition.log is None:
        return -1
    return max(partition.log.high_watermark - log.log_end_offset, 0)


# ---------------------------------------------------------------- AlterReplicaLogDirs
def handle_alter_replica_log_dirs(ctx: RequestContext, request: Any, broker: LogDirsBroker) -> Any:
    destinations: dict[TopicPartition, str] = {}
    for entry in request.dirs:
        for topic in entry.topics:
            for partition in topic.partitions:
                destinations[TopicPartition(topic.name, partition)] = entry.path
    log_dir = os.path.abspath(broker.log_manager.log_dir)
    by_topic: dict[str, Any] = {}
    TopicResult = AlterReplicaLogDirsResponse.AlterReplicaLogDirTopicResult
    for tp, path in destinations.items():
        error = _alter_one(broker, tp, path, log_dir)
        entry = by_topic.setdefault(tp.topic, TopicResult(topic_name=tp.topic, partitions=[]))
        entry.partitions.append(TopicResult.AlterReplicaLogDirPartitionResult(
            partition_index=tp.partition, error_code=error.code))
    return AlterReplicaLogDirsResponse(throttle_time_ms=0, results=list(by_topic.values()))


def _alter_one(broker: LogDirsBroker, tp: TopicPartition, path: str, log_dir: str) -> Errors:
    if len(str(tp)) + FUTURE_DIR_SUFFIX_LENGTH > MAX_DIR_NAME_LENGTH:
        return Errors.INVALID_TOPIC_EXCEPTION               # "The topic name is too long."
    if path != log_dir:
        return Errors.LOG_DIR_NOT_FOUND                     # "Log dir <path> is not found in the config."
    partition, error = broker.replica_manager.partition_or_error(tp)
    if error is Errors.NOT_LEADER_OR_FOLLOWER or (partition is not None and partition.log is None):
        return Errors.REPLICA_NOT_AVAILABLE                 # kept for AlterReplicaLogDirs compatibility
    return error                                            # already there: nothing to move
