"""Writing a DataFrame to Kafka, in batch (``df.write``) or streaming (``writeStream``).

Theory of operation
-------------------
Each row becomes one record.  The sink reads these columns by exact name:

* ``value`` (required), ``key`` (optional): ``string`` or ``binary``; strings
  are sent as their UTF-8 bytes, a null value is a tombstone;
* ``topic`` (``string``), unless the ``topic`` option is set, which then wins
  over the column; a row without a topic fails the task;
* ``partition`` (``int``, optional): a null lets the producer's partitioner
  choose, from the key's hash;
* ``headers`` (optional): ``array<struct<key:string,value:binary>>``.

Other columns are ignored.  The schema is checked while Spark plans the
write, so a wrong column type fails before anything is sent.  Each writer
task opens its own producer (``acks=all``, idempotent), sends its rows, then
flushes and raises the first send failure, if any.  Nothing is transactional:
a task that is retried sends its rows again, so the sink is at-least-once.
Spark's Kafka sink accepts the batch save modes Append and ErrorIfExists
(its default); PySpark, though, refuses ErrorIfExists for every Python data
source before the sink is asked, so a batch write here needs
``.mode("append")``.

Mirrors ``org.apache.spark.sql.kafka010.KafkaWriter`` (schema checks),
``KafkaWriteTask``/``KafkaRowWriter`` (sending) and
``KafkaSourceProvider.createRelation`` (save modes); the messages are
Spark's.  Simplified: the save mode Ignore cannot be told from Append
through PySpark's data source API, so only Overwrite is refused; the
default save mode fails with PySpark's ``UNSUPPORTED_DATA_SOURCE_SAVE_MODE``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from pyspark.sql import Row
from pyspark.sql.datasource import DataSourceStreamWriter, DataSourceWriter, WriterCommitMessage
from pyspark.sql.types import ArrayType, BinaryType, DataType, IntegerType, StringType, StructType

from minikafka.common.errors import ConfigException
from minikafka.spark.errors import AnalysisException, NullPointerException
from minikafka.spark.kafka_record_to_row_converter import HEADERS_TYPE
from minikafka.spark.kafka_source_provider import (
    FAKE_KAFKA_DIR,
    TOPIC,
    client_config,
    kafka_params_for_producer,
    lower_keys,
)
from minikafka.spark.offsets_client import ClientConfig, RecordProducer

_ACCEPTED = {
    "topic": (StringType(),),
    "key": (StringType(), BinaryType()),
    "value": (StringType(), BinaryType()),
    "headers": (HEADERS_TYPE,),
    "partition": (IntegerType(),),
}


def _same_type(left: DataType, right: DataType) -> bool:
    """Spark's ``sameType``: equal ignoring nullability and the case of field names."""
    if isinstance(left, ArrayType) and isinstance(right, ArrayType):
        return _same_type(left.elementType, right.elementType)
    if isinstance(left, StructType) and isinstance(right, StructType):
        return len(left.fields) == len(right.fields) and all(
            a.name.lower() == b.name.lower() and _same_type(a.dataType, b.dataType)
            for a, b in zip(left.fields, right.fields)
        )
    return left == right


def validate_query(schema: StructType, topic: str | None) -> None:
    """Raise AnalysisException unless the columns can be written as Kafka records."""
    columns = {field.name: field.dataType for field in schema.fields}
    if topic is None and "topic" not in columns:
        raise AnalysisException(
            "topic option required when no 'topic' attribute is present. Use the topic option for setting a topic."
        )
    if "value" not in columns:
        raise AnalysisException("Required attribute 'value' not found")
    for name, accepted in _ACCEPTED.items():
        if name == "topic" and topic is not None:
            continue  # the option is a string literal; the column is not used
        actual = columns.get(name)
        if actual is not None and not any(_same_type(actual, wanted) for wanted in accepted):
            wanted_text = " or ".join(wanted.simpleString() for wanted in accepted)
            raise AnalysisException(
                f"{name} attribute unsupported type {actual.simpleString()}. {name} must be a(n) {wanted_text}"
            )


def _as_bytes(data: object) -> bytes | None:
    if data is None:
        return None
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)  # type: ignore[arg-type]


@dataclass(frozen=True)
class KafkaWriterCommitMessage(WriterCommitMessage):
    records: int  # how many records the task sent


@dataclass(frozen=True)
class KafkaWriteTask:
    """Everything a writer task needs; pickled to the worker that runs it."""

    client_config: ClientConfig
    topic: str | None  # the topic option, which wins over a topic column
    columns: tuple[str, ...]  # the DataFrame's column names, in row order

    def execute(self, rows: Iterator[Row]) -> KafkaWriterCommitMessage:
        index = {name: i for i, name in enumerate(self.columns)}
        producer = self.client_config.open_producer()
        sent = 0
        try:
            for row in rows:
                producer.raise_first_error()  # stop at the first failed send, as Spark does
                self._send(producer, row, index)
                sent += 1
            producer.flush()
            producer.raise_first_error()
        finally:
            producer.close()
        return KafkaWriterCommitMessage(sent)

    def _send(self, producer: RecordProducer, row: Row, index: Mapping[str, int]) -> None:
        def column(name: str) -> object:
            return row[index[name]] if name in index else None

        topic = self.topic if self.topic is not None else column("topic")
        if topic is None:
            raise NullPointerException(
                "null topic present in the data. Use the topic option for setting a default topic."
            )
        headers = column("headers")
        producer.send(
            topic,
            _as_bytes(column("value")),
            key=_as_bytes(column("key")),
            partition=column("partition"),
            headers=tuple((h[0], _as_bytes(h[1])) for h in headers) if headers else (),
        )


def write_task(options: Mapping[str, str], schema: StructType, overwrite: bool) -> KafkaWriteTask:
    """Check the options, the save mode and the schema, as Spark does before a write."""
    params = lower_keys(options)
    if overwrite:
        raise AnalysisException(
            "Save mode Overwrite not allowed for Kafka. Allowed save modes are Append and ErrorIfExists (default)."
        )
    if "bootstrap.servers" not in kafka_params_for_producer(params) and FAKE_KAFKA_DIR not in params:
        raise ConfigException('Missing required configuration "bootstrap.servers" which has no default value.')
    topic = params[TOPIC].strip() if TOPIC in params else None
    validate_query(schema, topic)
    return KafkaWriteTask(client_config(params), topic, tuple(schema.fieldNames()))


class KafkaBatchWrite(DataSourceWriter):
    def __init__(self, task: KafkaWriteTask):
        self.task = task  # runs once per Spark partition of the DataFrame

    def write(self, iterator: Iterator[Row]) -> KafkaWriterCommitMessage:
        return self.task.execute(iterator)

    def commit(self, messages: list) -> None:
        """Nothing to do: every record was acknowledged by Kafka when its task ended."""

    def abort(self, messages: list) -> None:
        """Nothing can be undone: records already sent stay in Kafka (at-least-once)."""


class KafkaStreamingWrite(DataSourceStreamWriter):
    def __init__(self, task: KafkaWriteTask):
        self.task = task  # runs once per Spark partition of each micro-batch

    def write(self, iterator: Iterator[Row]) -> KafkaWriterCommitMessage:
        return self.task.execute(iterator)

    def commit(self, messages: list, batchId: int) -> None:
        """Nothing to do: every record was acknowledged by Kafka when its task ended."""

    def abort(self, messages: list, batchId: int) -> None:
        """Nothing can be undone: records already sent stay in Kafka (at-least-once)."""

