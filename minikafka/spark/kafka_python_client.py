"""The `OffsetsClient` and `RecordProducer` seams, implemented with kafka-python.

Theory of operation
-------------------
Spark hands the Java Kafka clients every ``kafka.*`` option with the prefix
dropped.  kafka-python spells the same settings with underscores
(``bootstrap.servers`` -> ``bootstrap_servers``), so `client_configs` renames
them, keeps only the names the kafka-python class knows (the Java client
merely warns about an unknown one) and converts each value to the type of
that setting's default.  Then, as Spark does, it overrides what would let
the client act on its own: auto-commit is off, and the reading consumer uses
``auto.offset.reset=none`` so that a missing offset raises instead of being
silently skipped.

* The driver-side client keeps one consumer (no group, nothing assigned) for
  metadata and ``ListOffsets`` queries: ``topics()``, ``end_offsets`` (the
  high watermark under read_uncommitted) and ``beginning_offsets``.
* ``read_range`` opens a fresh consumer, ``assign``s the one partition,
  ``seek``s to the start and polls until its position reaches the end, then
  closes it.  Polling that yields nothing for ``kafkaConsumer.pollTimeoutMs``
  fails the task.
* The producer is kafka-python's ``KafkaProducer`` with Kafka 4's defaults
  (``acks=all``, idempotence on); the first failed send is remembered and
  raised when the task finishes, like Spark's ``KafkaWriteTask``.

Mirrors the roles of ``KafkaOffsetReaderAdmin``, ``InternalKafkaConsumer``
and ``CachedKafkaProducer`` in Spark.  Simplified: the driver uses a
consumer's metadata and ListOffsets calls instead of the Admin client, no
consumer group id is sent to the broker (Spark's generated ids never join
or commit either), and there is no consumer or producer cache.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from minikafka.common.errors import OffsetOutOfRangeException, UnknownTopicOrPartitionException
from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.errors import TimeoutException
from minikafka.spark.offsets_client import KafkaRecord

log = logging.getLogger("minikafka.spark")

_POLL_SLICE_MS = 500  # poll in short slices so the timeout is checked between them


def client_configs(kafka_params: Mapping[str, str], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """kafka-python keyword arguments for the dotted Kafka settings it knows."""
    configs: dict[str, Any] = {}
    for name, text in kafka_params.items():
        key = name.replace(".", "_")
        if key not in defaults:
            log.warning("The configuration '%s' was supplied but isn't a known config.", name)
            continue
        configs[key] = _convert(text, defaults[key])
    return configs


def _convert(text: str, default: Any) -> Any:
    if isinstance(default, bool):
        return text.strip().lower() == "true"
    if isinstance(default, float):
        return float(text)
    if isinstance(default, int | None) and text.strip().lstrip("-").isdigit():
        return int(text)
    return text  # e.g. acks=all: kafka-python takes the word as Kafka does


def consumer_configs(kafka_params: Mapping[str, str], role: str) -> dict[str, Any]:
    from kafka import KafkaConsumer

    configs = client_configs(kafka_params, KafkaConsumer.DEFAULT_CONFIG)
    configs.pop("group_id", None)  # Spark's consumers never join a group or commit
    configs["enable_auto_commit"] = False
    configs["auto_offset_reset"] = "none" if role == "executor" else "earliest"
    configs.setdefault("receive_buffer_bytes", 65536)  # Spark's default (KAFKA-3135)
    return configs


def _to_kafka(tp: TopicPartition) -> Any:
    from kafka import TopicPartition as KafkaTopicPartition

    return KafkaTopicPartition(tp.topic, tp.partition)


class KafkaPythonOffsetsClient:
    """`OffsetsClient` over kafka-python's ``KafkaConsumer``."""

    def __init__(self, kafka_params: Mapping[str, str], role: str, poll_timeout_ms: int):
        self._configs = consumer_configs(kafka_params, role)  # kafka-python keyword arguments
        self._poll_timeout_ms = poll_timeout_ms  # a read fails after this long without progress
        self._metadata_consumer: Any = None  # opened on the first planning call

    def _consumer(self) -> Any:
        if self._metadata_consumer is None:
            from kafka import KafkaConsumer

            self._metadata_consumer = KafkaConsumer(**self._configs)
        return self._metadata_consumer

    def topics(self) -> set[str]:
        return set(self._consumer().topics())  # always a fresh metadata request

    def partitions(self, topic: str) -> set[int]:
        consumer = self._consumer()
        if topic not in consumer.topics():
            raise UnknownTopicOrPartitionException()
        return set(consumer.partitions_for_topic(topic))

    def earliest(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return self._list_offsets(partitions, "beginning_offsets")

    def latest(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return self._list_offsets(partitions, "end_offsets")

    def _list_offsets(self, partitions: Iterable[TopicPartition], method: str) -> dict[TopicPartition, int]:
        wanted = list(partitions)
        if not wanted:
            return {}
        offsets = getattr(self._consumer(), method)([_to_kafka(tp) for tp in wanted])
        return {TopicPartition(ktp.topic, ktp.partition): offset for ktp, offset in offsets.items()}

    def read_range(self, tp: TopicPartition, start: int, end: int) -> Iterator[KafkaRecord]:
        from kafka import KafkaConsumer
        from kafka.errors import OffsetOutOfRangeError

        consumer = KafkaConsumer(**self._configs)
        ktp = _to_kafka(tp)
        try:
            consumer.assign([ktp])
            consumer.seek(ktp, start)
            position = start
            while position < end:
                try:
                    records = self._poll_progress(consumer, ktp, position)
                except OffsetOutOfRangeError:
                    raise OffsetOutOfRangeException(
                        f"Offsets out of range with no configured reset policy for partitions: {{{tp}={position}}}"
                    ) from None
                for record in records:
                    if record.offset >= end:
                        return
                    yield _to_record(record)
                position = consumer.position(ktp)
        finally:
            consumer.close()

    def _poll_progress(self, consumer: Any, ktp: Any, position: int) -> list[Any]:
        """Poll until records arrive or the position moves; fail after the poll timeout."""
        deadline = time.monotonic() + self._poll_timeout_ms / 1000
        while True:
            batch = consumer.poll(timeout_ms=_POLL_SLICE_MS)
            if batch.get(ktp) or consumer.position(ktp) != position:
                return batch.get(ktp, [])
            if time.monotonic() >= deadline:
                raise TimeoutException(
                    f"Cannot fetch record for offset {position} in {self._poll_timeout_ms} milliseconds"
                )

    def close(self) -> None:
        if self._metadata_consumer is not None:
            self._metadata_consumer.close()
            self._metadata_consumer = None


def _to_record(record: Any) -> KafkaRecord:
    return KafkaRecord(
        topic=record.topic,
        partition=record.partition,
        offset=record.offset,
        timestamp=record.timestamp,
        timestamp_type=record.timestamp_type,
        key=record.key,
        value=record.value,
        headers=tuple((key, value) for key, value in (record.headers or ())),
    )


class KafkaPythonProducer:
    """`RecordProducer` over kafka-python's ``KafkaProducer``."""

    def __init__(self, kafka_params: Mapping[str, str]):
        from kafka import KafkaProducer

        configs = client_configs(kafka_params, KafkaProducer.DEFAULT_CONFIG)
        configs.setdefault("acks", "all")  # Kafka 4 producer defaults, stated rather than assumed
        configs.setdefault("enable_idempotence", True)
        self._producer = KafkaProducer(**configs)
        self._first_error: BaseException | None = None  # first failed send, raised at the end

    def send(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        headers: tuple[tuple[str, bytes | None], ...] = (),
    ) -> None:
        future = self._producer.send(topic, value=value, key=key, headers=list(headers) or None, partition=partition)
        future.add_errback(self._remember)

    def _remember(self, error: BaseException) -> None:
        if self._first_error is None:
            self._first_error = error

    def raise_first_error(self) -> None:
        if self._first_error is not None:
            raise self._first_error

    def flush(self) -> None:
        self._producer.flush()

    def close(self) -> None:
        self._producer.close()
