"""The `OffsetsClient` and `RecordProducer` seams, implemented with kafka-python.

Theory of operation
-------------------
Spark hands the Java Kafka clients every ``kafka.*`` option with the prefix
dropped.  kafka-python spells the same settings with underscores
(``bootstrap.servers`` -> ``bootstrap_servers``), so `client_configs` renames
them, keeps only the names the kafka-python class knows (the Java client
merely warns about an unknown one) and converts each value to the type of
that setting's default.  ``default.api.timeout.ms``, the Java clients' wait
for an answer, becomes kafka-python's ``bootstrap_timeout_ms``.  Then, as
Spark does, it overrides what would let the client act on its own:
auto-commit is off, and the reading consumer uses ``auto.offset.reset=none``
so that a missing offset raises instead of being silently skipped.

* Each client borrows one consumer (no group) from its worker process's
  `InternalKafkaConsumerPool` and gives it back when closed, so the tasks a
  worker runs one after another share connections and metadata.  It serves
  the metadata and ``ListOffsets`` queries: ``topics()``, ``end_offsets``
  (the high watermark under read_uncommitted) and ``beginning_offsets``.
  When no bootstrap server answers, the error is the one Spark's Admin
  client gives: ``TimeoutException: Timed out waiting for a node assignment.``
* A task's client ``assign``s the one partition it reads to the same
  consumer, ``seek``s to the start and polls until its position reaches the
  end; kafka-python's records are handed on as they are.  Polling that
  yields nothing for ``kafkaConsumer.pollTimeoutMs`` fails the task; a read
  that fails closes its consumer instead of pooling it.
* The producer is kafka-python's ``KafkaProducer`` with Kafka 4's defaults
  (``acks=all``, idempotence on), pooled per worker process like the
  consumers (Spark caches its producers too); the first failed send is
  remembered and raised when the task finishes, like Spark's
  ``KafkaWriteTask``, and that producer is closed rather than pooled.
  kafka-python cannot send a header with a null value, nor a record whose
  key and value are both null; such a row fails the task with a message
  that says so (Kafka and Spark accept both).

Mirrors the roles of ``KafkaOffsetReaderAdmin``, ``InternalKafkaConsumer``
and ``CachedKafkaProducer`` in Spark.  Simplified: the driver uses a
consumer's metadata and ListOffsets calls instead of the Admin client, no
consumer group id is sent to the broker (Spark's generated ids never join
or commit either); an unreachable cluster fails after kafka-python's
bootstrap timeout (30 s by default) instead of Spark's three Admin attempts
of 60 s each.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from minikafka.common.errors import OffsetOutOfRangeException, UnknownTopicOrPartitionException
from minikafka.common.errors import TimeoutException as KafkaTimeoutException
from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.errors import IllegalArgumentException, TimeoutException
from minikafka.spark.internal_kafka_consumer_pool import InternalKafkaConsumerPool
from minikafka.spark.offsets_client import ConsumedRecord

log = logging.getLogger("minikafka.spark")

_POLL_SLICE_MS = 500  # poll in short slices so the timeout is checked between them
CONSUMER_POOL = InternalKafkaConsumerPool()  # this worker process's idle consumers
# Idle producers; spark.kafka.producer.cache.timeout defaults to 10 minutes.
PRODUCER_POOL = InternalKafkaConsumerPool(idle_timeout_s=600.0)
# Java settings kafka-python spells differently: how long a client waits for a first answer.
_RENAMED = {"default.api.timeout.ms": "bootstrap_timeout_ms"}


def client_configs(kafka_params: Mapping[str, str], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """kafka-python keyword arguments for the dotted Kafka settings it knows."""
    configs: dict[str, Any] = {}
    for name, text in kafka_params.items():
        key = _RENAMED.get(name, name.replace(".", "_"))
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
        self._pool_key = tuple(sorted(self._configs.items()))  # consumers with equal settings are interchangeable
        self._poll_timeout_ms = poll_timeout_ms  # a read fails after this long without progress
        self._kafka_consumer: Any = None  # borrowed from the process's pool on first use

    def _consumer(self, call: str) -> Any:
        """The client's consumer, borrowed on first use; a new one fails like Spark's Admin ``call``."""
        if self._kafka_consumer is None:
            self._kafka_consumer = CONSUMER_POOL.borrow(self._pool_key, lambda: self._connect(call))
        return self._kafka_consumer

    def _connect(self, call: str) -> Any:
        from kafka import KafkaConsumer
        from kafka.errors import KafkaTimeoutError

        try:
            return KafkaConsumer(**self._configs)
        except KafkaTimeoutError:  # no bootstrap server answered: Spark's Admin client says this
            raise KafkaTimeoutException(f"Timed out waiting for a node assignment. Call: {call}") from None

    def topics(self) -> set[str]:
        return set(self._consumer("listTopics").topics())  # always a fresh metadata request

    def partitions(self, topic: str) -> set[int]:
        consumer = self._consumer("listNodes")  # Admin.describeTopics starts by listing the brokers
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
        offsets = getattr(self._consumer("listOffsets"), method)([_to_kafka(tp) for tp in wanted])
        return {TopicPartition(ktp.topic, ktp.partition): offset for ktp, offset in offsets.items()}

    def read_range(self, tp: TopicPartition, start: int, end: int) -> Iterator[ConsumedRecord]:
        consumer = self._consumer("fetch")  # a task reads with the consumer it bound its offsets with
        try:
            yield from self._read(consumer, tp, start, end)
        except Exception:
            self._discard()  # its fetch state is unknown: whatever comes next gets a fresh consumer
            raise

    def _read(self, consumer: Any, tp: TopicPartition, start: int, end: int) -> Iterator[ConsumedRecord]:
        from kafka.errors import OffsetOutOfRangeError

        ktp = _to_kafka(tp)
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
            for record in records:  # kafka-python's ConsumerRecord has ConsumedRecord's fields
                if record.offset >= end:
                    return
                yield record
            position = consumer.position(ktp)

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
        """Hand the consumer back to the process's pool for the next task."""
        if self._kafka_consumer is not None:
            consumer, self._kafka_consumer = self._kafka_consumer, None
            consumer.unsubscribe()  # clears the assignment and its fetch positions
            CONSUMER_POOL.give_back(self._pool_key, consumer)

    def _discard(self) -> None:
        if self._kafka_consumer is not None:
            consumer, self._kafka_consumer = self._kafka_consumer, None
            consumer.close()


def _check_sendable(key: bytes | None, value: bytes | None, headers: tuple[tuple[str, bytes | None], ...]) -> None:
    """kafka-python refuses two records Kafka accepts; say why before it raises a bare TypeError."""
    if key is None and value is None:
        raise IllegalArgumentException(
            "kafka-python, the sandbox's producer, cannot send a record whose key and value are both null "
            "(Kafka itself accepts one); give the row a key or a value."
        )
    for name, data in headers:
        if data is None:
            raise IllegalArgumentException(
                f"Header '{name}' has a null value, which Kafka accepts but kafka-python, the sandbox's "
                "producer, cannot send; use an empty value instead."
            )


class KafkaPythonProducer:
    """`RecordProducer` over kafka-python's ``KafkaProducer``."""

    def __init__(self, kafka_params: Mapping[str, str]):
        from kafka import KafkaProducer

        configs = client_configs(kafka_params, KafkaProducer.DEFAULT_CONFIG)
        configs.setdefault("acks", "all")  # Kafka 4 producer defaults, stated rather than assumed
        configs.setdefault("enable_idempotence", True)
        self._pool_key = tuple(sorted(configs.items()))  # producers with equal settings are interchangeable
        self._producer = PRODUCER_POOL.borrow(self._pool_key, lambda: KafkaProducer(**configs))
        self._first_error: BaseException | None = None  # first failed send, raised at the end

    def send(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        headers: tuple[tuple[str, bytes | None], ...] = (),
    ) -> None:
        _check_sendable(key, value, headers)
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
        """Flush, and hand the producer back to the process's pool unless a send failed."""
        if self._first_error is not None:
            self._producer.close()
            return
        self._producer.flush()  # a task that failed half-way still delivers what it sent
        PRODUCER_POOL.give_back(self._pool_key, self._producer)
