"""The exceptions Spark's Kafka connector throws, with Spark's own message texts.

Theory of operation
-------------------
Spark's Kafka source reports a bad option with a plain
``java.lang.IllegalArgumentException``, a bad sink schema with an
``AnalysisException``, and possible data loss with a
``KafkaIllegalStateException`` that carries an *error condition* such as
``KAFKA_DATA_LOSS.PARTITIONS_DELETED``.  A condition's message is looked up in
the connector's ``kafka-error-conditions.json``: the main condition's lines
joined with newlines, a space, then the sub-condition's lines, with
``<name>`` placeholders filled in.

The classes here are named after those Java classes so that the last line of
a PySpark traceback reads like Spark's (``...IllegalArgumentException: Option
'kafka.bootstrap.servers' must be specified for configuring Kafka
consumer``).  `DATA_LOSS_CONDITIONS` holds the texts of the data-loss
conditions; `format_topic_partitions` prints a set of partitions the way
Scala prints a ``Set[TopicPartition]`` (``Set(orders-0, orders-1)``).

Mirrors ``org.apache.spark.sql.kafka010.KafkaExceptions`` and
``kafka-error-conditions.json`` (Spark 4.x).  Simplified: only the conditions
the minikafka source can raise are listed; Scala prints small sets in
insertion order and large ones in hash order, we always print them sorted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from minikafka.common.topic_partition import TopicPartition


class IllegalArgumentException(ValueError):
    """``java.lang.IllegalArgumentException``: an option Spark rejects."""


class NumberFormatException(IllegalArgumentException):
    """``java.lang.NumberFormatException``: a numeric option that is not a number."""

    def __init__(self, text: str):
        super().__init__(f'For input string: "{text}"')


class IllegalStateException(RuntimeError):
    """``java.lang.IllegalStateException``."""


class SparkAssertionError(AssertionError):
    """A failed Scala ``assert``: Spark prints ``assertion failed: <message>``."""

    def __init__(self, message: str):
        super().__init__(f"assertion failed: {message}")


class AnalysisException(Exception):
    """``org.apache.spark.sql.AnalysisException``: a write Spark refuses to plan."""


class NullPointerException(Exception):
    """``java.lang.NullPointerException``: a row with no topic to write to."""


class TimeoutException(Exception):
    """``java.util.concurrent.TimeoutException``: a read that got no records in time."""


# kafka-error-conditions.json, KAFKA_DATA_LOSS and its sub-conditions (message lines).
_DATA_LOSS_MAIN = (
    "Some data may have been lost because they are not available in Kafka any more;",
    "either the data was aged out by Kafka or the topic may have been deleted before all the data in the",
    "topic was processed.",
    "If you don't want your streaming query to fail on such cases, set the source option failOnDataLoss to false.",
    "Reason:",
)
DATA_LOSS_CONDITIONS: Mapping[str, tuple[str, ...]] = {
    "ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO": (
        "Added partition <topicPartition> starts from <startOffset> instead of 0.",
    ),
    "COULD_NOT_READ_OFFSET_RANGE": (
        "Could not read records in offset [<startOffset>, <endOffset>) for topic partition <topicPartition>",
        "with consumer group <groupId>.",
    ),
    "INITIAL_OFFSET_NOT_FOUND_FOR_PARTITIONS": (
        "Cannot find initial offsets for partitions <partitions>. They may have been deleted.",
    ),
    "PARTITIONS_DELETED": ("Partitions <partitions> have been deleted.",),
    "PARTITIONS_DELETED_AND_GROUP_ID_CONFIG_PRESENT": (
        "Partitions <partitions> have been deleted.",
        "Kafka option 'kafka.<groupIdConfig>' has been set on this query, it is",
        "not recommended to set this option. This option is unsafe to use since multiple concurrent",
        "queries or sources using the same group id will interfere with each other as they are part",
        "of the same consumer group. Restarted queries may also suffer interference from the",
        "previous run having the same group id. The user should have only one query per group id,",
        "and/or set the option 'kafka.session.timeout.ms' to be very small so that the Kafka",
        "consumers from the previous query are marked dead by the Kafka group coordinator before the",
        "restarted query starts running.",
    ),
    "PARTITION_OFFSET_CHANGED": (
        "Partition <topicPartition> offset was changed from <prevOffset> to <newOffset>.",
    ),
}
_DATA_LOSS_SQL_STATE = "22000"

# KafkaSourceProvider.INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_FALSE: logged with every skipped loss.
INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_FALSE = (
    "\nSome data may have been lost because they are not available in Kafka any more; either the\n"
    " data was aged out by Kafka or the topic may have been deleted before all the data in the\n"
    " topic was processed. If you want your streaming query to fail on such cases, set the source\n"
    ' option "failOnDataLoss" to "true".\n'
)


class KafkaIllegalStateException(IllegalStateException):
    """``KafkaIllegalStateException``: an error condition with Spark's message template filled in."""

    def __init__(self, condition: str, parameters: Mapping[str, str]):
        self.condition = condition  # e.g. "KAFKA_DATA_LOSS.PARTITIONS_DELETED"
        self.parameters = dict(parameters)  # the <name> values of the template
        self.sql_state = _DATA_LOSS_SQL_STATE if condition.startswith("KAFKA_DATA_LOSS") else None
        super().__init__(_fill(_template(condition), self.parameters))


def _template(condition: str) -> str:
    main, _, sub = condition.partition(".")
    if main == "KAFKA_DATA_LOSS":
        return "\n".join(_DATA_LOSS_MAIN) + " " + "\n".join(DATA_LOSS_CONDITIONS[sub])
    return "\n".join(_OTHER_CONDITIONS[main])


# Conditions outside KAFKA_DATA_LOSS.  KAFKA_START_OFFSET_DOES_NOT_MATCH_ASSIGNED's first
# line is taken from Spark PR #46692; the line break inside it is ours (UNVERIFIED).
_OTHER_CONDITIONS: Mapping[str, tuple[str, ...]] = {
    "KAFKA_START_OFFSET_DOES_NOT_MATCH_ASSIGNED": (
        "Partitions specified for Kafka start offsets don't match what are assigned. Maybe topic "
        "partitions are created or deleted while the query is running.",
        "Specified: <specifiedPartitions> Assigned: <assignedPartitions>",
    ),
}


def _fill(template: str, parameters: Mapping[str, str]) -> str:
    for name, value in parameters.items():
        template = template.replace(f"<{name}>", value)
    return template


def format_topic_partitions(partitions: Iterable[TopicPartition]) -> str:
    """``Set(orders-0, orders-1)``: how Spark's messages print a set of partitions."""
    return "Set(" + ", ".join(str(tp) for tp in sorted(partitions)) + ")"


def data_loss(sub_condition: str, **parameters: object) -> KafkaIllegalStateException:
    """A ``KAFKA_DATA_LOSS.<sub_condition>`` exception, parameters printed with ``str``."""
    return KafkaIllegalStateException(
        f"KAFKA_DATA_LOSS.{sub_condition}", {name: str(value) for name, value in parameters.items()}
    )
