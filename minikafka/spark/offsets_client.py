"""The narrow seam between the Spark data source and a Kafka cluster.

Theory of operation
-------------------
Everything the data source needs from Kafka fits in two small interfaces:

* `OffsetsClient`, used on the driver side to plan (which topics and
  partitions exist, each partition's earliest and latest offset) and in the
  executor tasks to read one half-open offset range;
* `RecordProducer`, used by the sink's writer tasks to send records.

`ClientConfig` is the picklable recipe for opening them.  Spark runs the
planning calls and the tasks in Python worker processes of their own (never
in the notebook's kernel), so the data source ships a `ClientConfig`, not a
live client, and every worker opens and closes its own clients.  The real
implementation is kafka-python (`kafka_python_client`); tests name a
`FakeKafka` directory instead (the hidden ``_fakeKafkaDir`` option) so that
Spark's planning and reading code paths run unchanged without a broker.

Offsets follow Kafka: ``latest`` is the high watermark (the consumer reads
with ``isolation.level=read_uncommitted``), ``earliest`` the log start
offset.  ``read_range`` raises `OffsetOutOfRangeException` when the start
offset is no longer (or not yet) in the log, which is how data loss is
noticed.  A read yields `ConsumedRecord`s: anything with the fields of a
consumed record, so kafka-python's records pass through without a copy.

This is the sandbox's own seam; in Spark the same roles are played by
``KafkaOffsetReaderAdmin`` (Kafka's Admin client), ``KafkaDataConsumer`` and
``CachedKafkaProducer``.  A client is opened and closed per task; the
kafka-python implementation pools the connections behind it
(`internal_kafka_consumer_pool`), as Spark's executors do.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from minikafka.common.topic_partition import TopicPartition


class ConsumedRecord(Protocol):
    """What a read yields per record: the fields of a ``ConsumerRecord<byte[], byte[]>``.

    kafka-python's own ``ConsumerRecord`` has these attributes, so the real
    client yields it as is (no copy per record); the fake yields `KafkaRecord`.
    """

    topic: str
    partition: int
    offset: int
    timestamp: int
    timestamp_type: int
    key: bytes | None
    value: bytes | None
    headers: Sequence[tuple[str, bytes | None]]


@dataclass(frozen=True, slots=True)
class KafkaRecord:
    """One consumed record, as a ``ConsumerRecord<byte[], byte[]>``."""

    topic: str
    partition: int
    offset: int
    timestamp: int  # ms since the epoch
    timestamp_type: int  # 0 CreateTime, 1 LogAppendTime, -1 NoTimestampType
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()


class OffsetsClient(Protocol):
    def topics(self) -> set[str]:
        """Names of the cluster's non-internal topics."""
        ...

    def partitions(self, topic: str) -> set[int]:
        """Partition numbers of ``topic``; raises UnknownTopicOrPartitionException if absent."""
        ...

    def earliest(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """Log start offset of each partition."""
        ...

    def latest(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """High watermark of each partition."""
        ...

    def read_range(self, tp: TopicPartition, start: int, end: int) -> Iterator[ConsumedRecord]:
        """Records with ``start <= offset < end``, in offset order; may skip missing offsets."""
        ...

    def close(self) -> None: ...


class RecordProducer(Protocol):
    def send(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        headers: tuple[tuple[str, bytes | None], ...] = (),
    ) -> None:
        """Queue one record; a failure is reported by `raise_first_error`."""
        ...

    def raise_first_error(self) -> None:
        """Raise the first send failure seen so far, if any."""
        ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class ClientConfig:
    """How a worker process reaches Kafka; travels inside pickled readers and partitions."""

    kafka_params: tuple[tuple[str, str], ...]  # the kafka.* options, prefix dropped
    poll_timeout_ms: int = 120000  # kafkaConsumer.pollTimeoutMs (Spark: spark.network.timeout)
    fake_kafka_dir: str | None = None  # tests only: a FakeKafka directory instead of a cluster

    @property
    def bootstrap_servers(self) -> str:
        return dict(self.kafka_params).get("bootstrap.servers", "")

    def open_offsets_client(self, role: str) -> OffsetsClient:
        """A client for ``role`` "driver" (planning) or "executor" (reading a range)."""
        if self.fake_kafka_dir is not None:
            from minikafka.spark.fake_kafka import FakeKafka

            return FakeKafka(self.fake_kafka_dir)
        from minikafka.spark.kafka_python_client import KafkaPythonOffsetsClient

        return KafkaPythonOffsetsClient(dict(self.kafka_params), role, self.poll_timeout_ms)

    def open_producer(self) -> RecordProducer:
        if self.fake_kafka_dir is not None:
            from minikafka.spark.fake_kafka import FakeKafka

            return FakeKafka(self.fake_kafka_dir).producer()
        from minikafka.spark.kafka_python_client import KafkaPythonProducer

        return KafkaPythonProducer(dict(self.kafka_params))
