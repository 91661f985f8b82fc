from __future__ import annotations

import logging

import pytest

from minikafka.common.topic_partition import TopicPartition
from minikafka.spark import kafka_source_provider as provider
from minikafka.spark.errors import IllegalArgumentException, NumberFormatException
from minikafka.spark.kafka_offset_range_limit import (
    EarliestOffsetRangeLimit,
    LatestOffsetRangeLimit,
    SpecificOffsetRangeLimit,
)

BASE = {"kafka.bootstrap.servers": "127.0.0.1:9092", "subscribe": "orders"}


def message(options, check=provider.validate_stream_options) -> str:
    with pytest.raises(IllegalArgumentException) as error:
        check(options)
    return str(error.value)


def test_valid_options_pass_both_checks():
    provider.validate_stream_options(BASE)
    provider.validate_batch_options(BASE)


def test_a_strategy_is_required():
    assert message({"kafka.bootstrap.servers": "x"}) == (
        "One of the following options must be specified for Kafka source: subscribe, subscribepattern, assign. "
        "See the docs for more details."
    )


def test_only_one_strategy_is_allowed():
    assert message({**BASE, "assign": '{"orders":[0]}'}) == (
        "Only one of the following options can be specified for Kafka source: subscribe, subscribepattern, "
        "assign. See the docs for more details."
    )


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("subscribe", " , ", "No topics to subscribe to as specified value for option 'subscribe' is ' , '"),
        ("subscribePattern", "  ", "Pattern to subscribe is empty as specified value for option "
                                   "'subscribePattern' is '  '"),
        ("assign", "orders-0", "No topicpartitions to assign as specified value for option 'assign' is 'orders-0'"),
    ],
)
def test_empty_or_malformed_strategy_values(key, value, expected):
    assert message({"kafka.bootstrap.servers": "x", key: value}) == expected


def test_bootstrap_servers_are_required():
    assert message({"subscribe": "orders"}) == (
        "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer"
    )


def test_option_names_are_case_insensitive():
    provider.validate_stream_options({"KAFKA.Bootstrap.Servers": "x", "SubScribe": "orders"})
    assert provider.max_offsets_per_trigger({"MaxOffsetsPerTrigger": "12"}) == 12


def test_auto_offset_reset_is_refused_with_the_explanation():
    text = message({**BASE, "kafka.auto.offset.reset": "earliest"})
    assert text.startswith("\nKafka option 'auto.offset.reset' is not supported.\n"
                           "Instead set the source option 'startingoffsets' to 'earliest' or 'latest'\n")
    assert "resuming will always pick up from where the query left off" in text


@pytest.mark.parametrize("part", ["key", "value"])
def test_deserializers_are_refused(part):
    plural = part + "s"
    assert message({**BASE, f"kafka.{part}.deserializer": "x"}) == (
        f"Kafka option '{part}.deserializer' is not supported as {plural} are deserialized as byte arrays with "
        f"ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize the {plural}."
    )


@pytest.mark.parametrize("config", ["enable.auto.commit", "interceptor.classes"])
def test_other_unsafe_client_options_are_refused(config):
    assert message({**BASE, f"kafka.{config}": "x"}) == f"Kafka option '{config}' is not supported"


def test_group_id_is_accepted_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="minikafka.spark"):
        provider.validate_stream_options({**BASE, "kafka.group.id": "mine", "groupIdPrefix": "p"})
    assert "Kafka option 'kafka.group.id' has been set on this query" in caplog.text
    assert "Option groupIdPrefix will be ignored as option kafka.group.id has been set." in caplog.text


def test_streaming_refuses_ending_offsets():
    assert message({**BASE, "endingOffsets": "latest"}) == "ending offset not valid in streaming queries"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"startingOffsets": "latest"}, "starting offset can't be latest for batch queries on Kafka"),
        ({"startingOffsets": '{"orders":{"0":-1}}'}, "startingOffsets for orders-0 can't be latest for batch "
                                                      "queries on Kafka"),
        ({"endingOffsets": "earliest"}, "ending offset can't be earliest for batch queries on Kafka"),
        ({"endingOffsets": '{"orders":{"0":-2}}'}, "ending offset for orders-0 can't be earliest for batch "
                                                     "queries on Kafka"),
    ],
)
def test_batch_offset_limits(extra, expected):
    assert message({**BASE, **extra}, provider.validate_batch_options) == expected


def test_batch_ignores_max_offsets_per_trigger_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="minikafka.spark"):
        provider.validate_batch_options({**BASE, "maxOffsetsPerTrigger": "5"})
    assert "maxOffsetsPerTrigger option ignored in batch queries" in caplog.text


@pytest.mark.parametrize(("key", "value"), [("maxOffsetsPerTrigger", "ten"), ("maxOffsetsPerTrigger", " 5"),
                                            ("failOnDataLoss", "yes"), ("includeHeaders", "1")])
def test_values_are_parsed_as_scala_parses_them(key, value):
    assert message({**BASE, key: value}) == f'For input string: "{value}"'


def test_a_non_number_is_a_number_format_exception():
    with pytest.raises(NumberFormatException):
        provider.parse_long("12x")
    assert provider.parse_long("-3") == -3
    assert provider.parse_boolean("TRUE") is True


def test_options_spark_has_but_minikafka_does_not_implement_are_refused():
    assert message({**BASE, "minPartitions": "4"}) == (
        "Option 'minpartitions' is a Spark Kafka source option that the minikafka data source does not implement."
    )


def test_offset_limits_and_defaults():
    assert provider.starting_offsets({}, LatestOffsetRangeLimit()) == LatestOffsetRangeLimit()
    assert provider.starting_offsets({"startingOffsets": " Earliest "}, LatestOffsetRangeLimit()) == (
        EarliestOffsetRangeLimit()
    )
    limit = provider.starting_offsets({"startingOffsets": '{"t":{"1":5}}'}, LatestOffsetRangeLimit())
    assert isinstance(limit, SpecificOffsetRangeLimit)
    assert limit.partition_offsets == {TopicPartition("t", 1): 5}
    assert provider.ending_offsets({}) == LatestOffsetRangeLimit()
    assert provider.fail_on_data_loss({}) is True
    assert provider.include_headers({}) is False


def test_kafka_options_are_passed_on_without_prefix():
    params = provider.specified_kafka_params({**BASE, "kafka.request.timeout.ms": "5000", "other": "1"})
    assert params == {"bootstrap.servers": "127.0.0.1:9092", "request.timeout.ms": "5000"}


@pytest.mark.parametrize(("part", "subject"), [("key", "keys"), ("value", "value")])
def test_producer_refuses_serializers(part, subject):
    with pytest.raises(IllegalArgumentException) as error:
        provider.kafka_params_for_producer({f"kafka.{part}.serializer": "x"})
    assert str(error.value) == (
        f"Kafka option '{part}.serializer' is not supported as {subject} are serialized with ByteArraySerializer."
    )


def test_client_config_carries_params_timeout_and_fake_dir():
    config = provider.client_config({**BASE, "kafkaConsumer.pollTimeoutMs": "2500", "_fakeKafkaDir": "/tmp/k"})
    assert config.bootstrap_servers == "127.0.0.1:9092"
    assert config.poll_timeout_ms == 2500
    assert config.fake_kafka_dir == "/tmp/k"
    assert provider.client_config(BASE).poll_timeout_ms == 120000


def test_executor_group_id_is_generated_unless_set():
    generated = provider.executor_group_id({}, "spark-kafka-source")
    assert generated.startswith("spark-kafka-source-") and generated.endswith("-executor")
    assert provider.executor_group_id({"groupIdPrefix": "lesson"}, "x").startswith("lesson-")
    assert provider.executor_group_id({"kafka.group.id": "mine"}, "x") == "mine"
