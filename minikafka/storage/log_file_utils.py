"""Names of the files and directories a Kafka log lives in.

Theory of operation
-------------------
A partition replica is a directory ``<topic>-<partition>`` under a log dir.
Each segment inside it is named after its base offset, zero-padded to 20
digits so that ``ls`` sorts segments numerically::

    00000000000000000000.log        the record batches
    00000000000000000000.index      offset -> file position (sparse)
    00000000000000000000.timeindex  timestamp -> offset (sparse)
    00000000000000004242.snapshot   producer state as of offset 4242

A file (or directory) that is being removed is first renamed: segment files
get ``.deleted`` appended and vanish ``file.delete.delay.ms`` later; a deleted
partition's directory becomes ``<topic>-<partition>.<uniqueId>-delete``, where
the unique id is a random UUID in 32 hex digits.  Loading a log dir skips
nothing silently: a directory whose name is not one of these forms is an
error, in Kafka's words.

Mirrors ``org.apache.kafka.storage.internals.log.LogFileUtils`` and the name
helpers of ``LocalLog``.  Simplified: ``-future`` and ``-stray`` directories
(alter-log-dirs, stray replicas) are recognised but never created.
"""

from __future__ import annotations

import os
import random
import re

from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition

LOG_FILE_SUFFIX = ".log"
INDEX_FILE_SUFFIX = ".index"
TIME_INDEX_FILE_SUFFIX = ".timeindex"
TXN_INDEX_FILE_SUFFIX = ".txnindex"
PRODUCER_SNAPSHOT_FILE_SUFFIX = ".snapshot"
DELETED_FILE_SUFFIX = ".deleted"
CLEANED_FILE_SUFFIX = ".cleaned"
SWAP_FILE_SUFFIX = ".swap"
DELETE_DIR_SUFFIX = "-delete"
FUTURE_DIR_SUFFIX = "-future"
STRAY_DIR_SUFFIX = "-stray"

_SUFFIXED_DIR = re.compile(r"^(\S+)-(\S+)\.(\S+)(-delete|-future|-stray)$")


def filename_prefix_from_offset(offset: int) -> str:
    """``42`` -> ``"00000000000000000042"`` (Kafka's NumberFormat with 20 minimum digits)."""
    return f"{offset:020d}"


def offset_from_file_name(name: str) -> int:
    """The base offset a segment or snapshot file is named after."""
    return int(name[:name.index(".")])


def log_file(dir_path: str, offset: int, suffix: str = "") -> str:
    return os.path.join(dir_path, filename_prefix_from_offset(offset) + LOG_FILE_SUFFIX + suffix)


def offset_index_file(dir_path: str, offset: int, suffix: str = "") -> str:
    return os.path.join(dir_path, filename_prefix_from_offset(offset) + INDEX_FILE_SUFFIX + suffix)


def time_index_file(dir_path: str, offset: int, suffix: str = "") -> str:
    return os.path.join(dir_path, filename_prefix_from_offset(offset) + TIME_INDEX_FILE_SUFFIX + suffix)


def producer_snapshot_file(dir_path: str, offset: int) -> str:
    return os.path.join(dir_path, filename_prefix_from_offset(offset) + PRODUCER_SNAPSHOT_FILE_SUFFIX)


def is_log_file(name: str) -> bool:
    return name.endswith(LOG_FILE_SUFFIX)


def is_index_file(name: str) -> bool:
    return name.endswith((INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX))


def log_dir_name(topic_partition: TopicPartition) -> str:
    return f"{topic_partition.topic}-{topic_partition.partition}"


def log_delete_dir_name(topic_partition: TopicPartition, rng: random.Random) -> str:
    """``orders-0.<32 hex digits>-delete``, the topic cut short so the name fits in 255 characters."""
    unique_id = f"{rng.getrandbits(128):032x}"
    full_suffix = f"-{topic_partition.partition}.{unique_id}{DELETE_DIR_SUFFIX}"
    prefix_length = min(len(topic_partition.topic), 255 - len(full_suffix))
    return topic_partition.topic[:prefix_length] + full_suffix


def _not_a_log_dir(dir_path: str) -> KafkaException:
    name = os.path.basename(dir_path)
    return KafkaException(f"Found directory {os.path.realpath(dir_path)}, '{name}' is not in the form of "
                          f"topic-partition or topic-partition.uniqueId-delete (if marked for deletion).\n"
                          f"Kafka's log directories (and children) should only contain Kafka topic data.")


def parse_topic_partition_name(dir_path: str) -> TopicPartition:
    """The TopicPartition a log directory holds (``orders-0`` or ``orders-0.<id>-delete``)."""
    name = os.path.basename(dir_path.rstrip(os.sep))
    if not name or "-" not in name:
        raise _not_a_log_dir(dir_path)
    if name.endswith((DELETE_DIR_SUFFIX, FUTURE_DIR_SUFFIX, STRAY_DIR_SUFFIX)):
        if not _SUFFIXED_DIR.match(name):
            raise _not_a_log_dir(dir_path)
        name = name[:name.rindex(".")]
    topic, _, partition = name.rpartition("-")
    if not topic or not partition.isdigit():
        raise _not_a_log_dir(dir_path)
    return TopicPartition(topic, int(partition))


def is_deleted_dir(dir_path: str) -> bool:
    return os.path.basename(dir_path.rstrip(os.sep)).endswith(DELETE_DIR_SUFFIX)
