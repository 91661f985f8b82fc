"""Reading and checking the options of a Kafka read or write, as Spark does.

Theory of operation
-------------------
Spark checks a Kafka source's options before any query runs, so a mistake
surfaces where the learner wrote it.  The general rules apply to batch and
streaming reads alike:

* exactly one of ``subscribe`` (comma list), ``subscribePattern`` (regex) or
  ``assign`` (JSON), and it must not be empty;
* ``kafka.bootstrap.servers`` is required; every other ``kafka.*`` option is
  handed to the Kafka client with the prefix dropped;
* options that would let the client manage offsets or reshape records are
  refused (``kafka.auto.offset.reset``, ``kafka.enable.auto.commit``,
  ``kafka.key.deserializer``, ...): Spark tracks offsets itself;
* ``kafka.group.id`` is allowed but warned about at length.

A streaming read refuses ``endingOffsets``; a batch read refuses to start at
``latest`` or end at ``earliest``.  Option names are case-insensitive
(Spark lower-cases them); values are checked the way Scala parses them
(``"true"``/``"false"``, a Java long).

Mirrors ``org.apache.spark.sql.kafka010.KafkaSourceProvider`` (the
validation, ``getKafkaOffsetRangeLimit``, ``convertToSpecifiedParams`` and
``kafkaParamsForProducer``); the message texts are Spark's.  Simplified:
options this sandbox source does not implement (timestamp offsets,
``minPartitions``, ``maxRecordsPerPartition``, ``minOffsetsPerTrigger``,
``maxTriggerDelay``) are refused with a message that says so, instead of
being honoured.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Mapping

from minikafka.spark import json_utils
from minikafka.spark.errors import IllegalArgumentException, NumberFormatException
from minikafka.spark.kafka_offset_range_limit import (
    EARLIEST,
    LATEST,
    EarliestOffsetRangeLimit,
    KafkaOffsetRangeLimit,
    LatestOffsetRangeLimit,
    SpecificOffsetRangeLimit,
)
from minikafka.spark.offsets_client import ClientConfig

log = logging.getLogger("minikafka.spark")

ASSIGN = "assign"
SUBSCRIBE = "subscribe"
SUBSCRIBE_PATTERN = "subscribepattern"
STRATEGY_OPTION_KEYS = (SUBSCRIBE, SUBSCRIBE_PATTERN, ASSIGN)  # Spark prints them in this order
STARTING_OFFSETS = "startingoffsets"
ENDING_OFFSETS = "endingoffsets"
FAIL_ON_DATA_LOSS = "failondataloss"
MAX_OFFSETS_PER_TRIGGER = "maxoffsetspertrigger"
INCLUDE_HEADERS = "includeheaders"
GROUP_ID_PREFIX = "groupidprefix"
TOPIC = "topic"
CONSUMER_POLL_TIMEOUT = "kafkaconsumer.polltimeoutms"
FAKE_KAFKA_DIR = "_fakekafkadir"  # hidden, tests only: read and write a FakeKafka directory

# Spark options the sandbox source does not implement; refused rather than ignored.
UNSUPPORTED_OPTIONS = (
    "startingtimestamp", "startingoffsetsbytimestamp", "startingoffsetsbytimestampstrategy",
    "endingtimestamp", "endingoffsetsbytimestamp", "minpartitions", "maxrecordsperpartition",
    "minoffsetspertrigger", "maxtriggerdelay",
)

CUSTOM_GROUP_ID_ERROR_MESSAGE = (
    "Kafka option 'kafka.group.id' has been set on this query, it is\n"
    " not recommended to set this option. This option is unsafe to use since multiple concurrent\n"
    " queries or sources using the same group id will interfere with each other as they are part\n"
    " of the same consumer group. Restarted queries may also suffer interference from the\n"
    " previous run having the same group id. The user should have only one query per group id,\n"
    " and/or set the option 'kafka.session.timeout.ms' to be very small so that the Kafka\n"
    " consumers from the previous query are marked dead by the Kafka group coordinator before the\n"
    " restarted query starts running.\n"
)

_AUTO_OFFSET_RESET_MESSAGE = (
    "\nKafka option 'auto.offset.reset' is not supported.\n"
    "Instead set the source option 'startingoffsets' to 'earliest' or 'latest'\n"
    "to specify where to start. Structured Streaming manages which offsets are consumed\n"
    "internally, rather than relying on the kafkaConsumer to do it. This will ensure that no\n"
    "data is missed when new topics/partitions are dynamically subscribed. Note that\n"
    "'startingoffsets' only applies when a new Streaming query is started, and\n"
    "that resuming will always pick up from where the query left off. See the docs for more\n"
    "details.\n"
)


def lower_keys(options: Mapping[str, str]) -> dict[str, str]:
    """Spark's case-insensitive view of the options."""
    return {key.lower(): value for key, value in options.items()}


def parse_boolean(text: str) -> bool:
    """Scala's ``String.toBoolean``: ``true``/``false`` in any case, nothing else."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    raise IllegalArgumentException(f'For input string: "{text}"')


def parse_long(text: str) -> int:
    """Java's ``Long.parseLong``: an optional sign and decimal digits only."""
    if re.fullmatch(r"[+-]?[0-9]+", text) and -(2**63) <= int(text) < 2**63:
        return int(text)
    raise NumberFormatException(text)


def validate_stream_options(options: Mapping[str, str]) -> None:
    params = lower_keys(options)
    if ENDING_OFFSETS in params:
        raise IllegalArgumentException("ending offset not valid in streaming queries")
    if "endingoffsetsbytimestamp" in params:
        raise IllegalArgumentException("ending timestamp not valid in streaming queries")
    validate_general_options(params)


def validate_batch_options(options: Mapping[str, str]) -> None:
    params = lower_keys(options)
    start = starting_offsets(params, EarliestOffsetRangeLimit())
    if isinstance(start, LatestOffsetRangeLimit):
        raise IllegalArgumentException("starting offset can't be latest for batch queries on Kafka")
    if isinstance(start, SpecificOffsetRangeLimit):
        for tp, offset in start.partition_offsets.items():
            if offset == LATEST:
                raise IllegalArgumentException(f"startingOffsets for {tp} can't be latest for batch queries on Kafka")
    end = ending_offsets(params)
    if isinstance(end, EarliestOffsetRangeLimit):
        raise IllegalArgumentException("ending offset can't be earliest for batch queries on Kafka")
    if isinstance(end, SpecificOffsetRangeLimit):
        for tp, offset in end.partition_offsets.items():
            if offset == EARLIEST:
                raise IllegalArgumentException(f"ending offset for {tp} can't be earliest for batch queries on Kafka")
    validate_general_options(params)
    if MAX_OFFSETS_PER_TRIGGER in params:
        log.warning("maxOffsetsPerTrigger option ignored in batch queries")


def validate_general_options(params: Mapping[str, str]) -> None:
    _validate_strategy(params)
    _validate_client_options(params)
    for key in UNSUPPORTED_OPTIONS:
        if key in params:
            raise IllegalArgumentException(
                f"Option '{key}' is a Spark Kafka source option that the minikafka data source "
                "does not implement."
            )
    if MAX_OFFSETS_PER_TRIGGER in params:
        parse_long(params[MAX_OFFSETS_PER_TRIGGER])
    if FAIL_ON_DATA_LOSS in params:
        parse_boolean(params[FAIL_ON_DATA_LOSS])
    if INCLUDE_HEADERS in params:
        parse_boolean(params[INCLUDE_HEADERS])


def _validate_strategy(params: Mapping[str, str]) -> None:
    specified = [key for key in STRATEGY_OPTION_KEYS if key in params]
    names = ", ".join(STRATEGY_OPTION_KEYS)
    if not specified:
        raise IllegalArgumentException(
            f"One of the following options must be specified for Kafka source: {names}. See the docs for more details."
        )
    if len(specified) > 1:
        raise IllegalArgumentException(
            f"Only one of the following options can be specified for Kafka source: {names}. "
            "See the docs for more details."
        )
    key, value = specified[0], params[specified[0]]
    if key == ASSIGN and not value.strip().startswith("{"):
        raise IllegalArgumentException(
            f"No topicpartitions to assign as specified value for option 'assign' is '{value}'"
        )
    if key == SUBSCRIBE and not [t for t in value.split(",") if t.strip()]:
        raise IllegalArgumentException(
            f"No topics to subscribe to as specified value for option 'subscribe' is '{value}'"
        )
    if key == SUBSCRIBE_PATTERN and not value.strip():
        raise IllegalArgumentException(
            f"Pattern to subscribe is empty as specified value for option 'subscribePattern' is '{value}'"
        )


def _validate_client_options(params: Mapping[str, str]) -> None:
    if "kafka.group.id" in params:
        log.warning(CUSTOM_GROUP_ID_ERROR_MESSAGE)
        if GROUP_ID_PREFIX in params:
            log.warning("Option groupIdPrefix will be ignored as option kafka.group.id has been set.")
    if "kafka.auto.offset.reset" in params:
        raise IllegalArgumentException(_AUTO_OFFSET_RESET_MESSAGE)
    for part, plural in (("key", "keys"), ("value", "values")):
        if f"kafka.{part}.deserializer" in params:
            raise IllegalArgumentException(
                f"Kafka option '{part}.deserializer' is not supported as {plural} are deserialized as byte "
                "arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize "
                f"the {plural}."
            )
    for config in ("enable.auto.commit", "interceptor.classes"):
        if f"kafka.{config}" in params:
            raise IllegalArgumentException(f"Kafka option '{config}' is not supported")
    if "kafka.bootstrap.servers" not in params:
        raise IllegalArgumentException(
            "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer"
        )


def _offset_range_limit(params: Mapping[str, str], key: str, default: KafkaOffsetRangeLimit) -> KafkaOffsetRangeLimit:
    if key not in params:
        return default
    text = params[key].strip()
    if text.lower() == "latest":
        return LatestOffsetRangeLimit()
    if text.lower() == "earliest":
        return EarliestOffsetRangeLimit()
    return SpecificOffsetRangeLimit(json_utils.partition_offsets(text))


def starting_offsets(options: Mapping[str, str], default: KafkaOffsetRangeLimit) -> KafkaOffsetRangeLimit:
    """``startingOffsets``; streaming defaults to latest, batch to earliest."""
    return _offset_range_limit(lower_keys(options), STARTING_OFFSETS, default)


def ending_offsets(options: Mapping[str, str]) -> KafkaOffsetRangeLimit:
    """``endingOffsets`` (batch only); defaults to latest."""
    return _offset_range_limit(lower_keys(options), ENDING_OFFSETS, LatestOffsetRangeLimit())


def fail_on_data_loss(options: Mapping[str, str]) -> bool:
    return parse_boolean(lower_keys(options).get(FAIL_ON_DATA_LOSS, "true"))


def include_headers(options: Mapping[str, str]) -> bool:
    return parse_boolean(lower_keys(options).get(INCLUDE_HEADERS, "false"))


def max_offsets_per_trigger(options: Mapping[str, str]) -> int | None:
    text = lower_keys(options).get(MAX_OFFSETS_PER_TRIGGER)
    return None if text is None else parse_long(text)


def specified_kafka_params(options: Mapping[str, str]) -> dict[str, str]:
    """Every ``kafka.*`` option with the prefix dropped: ``{"bootstrap.servers": ...}``."""
    return {key[len("kafka."):]: value for key, value in lower_keys(options).items() if key.startswith("kafka.")}


def kafka_params_for_producer(options: Mapping[str, str]) -> dict[str, str]:
    """The producer's ``kafka.*`` options, refusing custom serializers as Spark does."""
    params = lower_keys(options)
    if "kafka.key.serializer" in params:
        raise IllegalArgumentException(
            "Kafka option 'key.serializer' is not supported as keys are serialized with ByteArraySerializer."
        )
    if "kafka.value.serializer" in params:
        raise IllegalArgumentException(
            "Kafka option 'value.serializer' is not supported as value are serialized with ByteArraySerializer."
        )
    return specified_kafka_params(params)


def client_config(options: Mapping[str, str]) -> ClientConfig:
    """How the worker processes reach Kafka (or the tests' FakeKafka) for these options."""
    params = lower_keys(options)
    return ClientConfig(
        kafka_params=tuple(sorted(specified_kafka_params(params).items())),
        poll_timeout_ms=parse_long(params.get(CONSUMER_POLL_TIMEOUT, "120000")),
        fake_kafka_dir=params.get(FAKE_KAFKA_DIR),
    )


def executor_group_id(options: Mapping[str, str], default_prefix: str) -> str:
    """``kafka.group.id``, else Spark's generated ``<groupIdPrefix>-<uuid>-executor``.

    Spark's streaming id also carries the hash of the checkpoint path, which a
    Python data source never learns, so it is left out here.
    """
    params = lower_keys(options)
    if "kafka.group.id" in params:
        return params["kafka.group.id"]
    return f"{params.get(GROUP_ID_PREFIX, default_prefix)}-{uuid.uuid4()}-executor"
