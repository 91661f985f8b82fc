"""kafka-python configuration and connection errors; reading and writing are in test_e2e_*."""

from __future__ import annotations

import logging
import socket

import pytest
from kafka import KafkaConsumer, KafkaProducer

from minikafka.common.errors import TimeoutException
from minikafka.spark.errors import IllegalArgumentException
from minikafka.spark.kafka_python_client import (
    KafkaPythonOffsetsClient,
    _check_sendable,
    client_configs,
    consumer_configs,
)


def test_dotted_names_become_keyword_arguments_of_the_right_type(caplog):
    with caplog.at_level(logging.WARNING, logger="minikafka.spark"):
        configs = client_configs(
            {"bootstrap.servers": "a:1,b:2", "request.timeout.ms": "5000", "check.crcs": "false",
             "no.such.setting": "1"},
            KafkaConsumer.DEFAULT_CONFIG,
        )
    assert configs == {"bootstrap_servers": "a:1,b:2", "request_timeout_ms": 5000, "check_crcs": False}
    assert "The configuration 'no.such.setting' was supplied but isn't a known config." in caplog.text


def test_consumers_never_commit_and_executors_never_reset():
    executor = consumer_configs({"bootstrap.servers": "x:1", "group.id": "mine"}, "executor")
    assert executor["enable_auto_commit"] is False
    assert executor["auto_offset_reset"] == "none"
    assert "group_id" not in executor
    assert executor["receive_buffer_bytes"] == 65536
    assert consumer_configs({}, "driver")["auto_offset_reset"] == "earliest"


def test_producer_settings_are_translated_too():
    configs = client_configs({"acks": "1", "linger.ms": "5"}, KafkaProducer.DEFAULT_CONFIG)
    assert configs == {"acks": 1, "linger_ms": 5}
    assert client_configs({"acks": "all"}, KafkaProducer.DEFAULT_CONFIG) == {"acks": "all"}


def test_default_api_timeout_is_kafka_pythons_bootstrap_timeout():
    configs = client_configs({"default.api.timeout.ms": "2000"}, KafkaConsumer.DEFAULT_CONFIG)
    assert configs == {"bootstrap_timeout_ms": 2000}


def test_an_unreachable_cluster_times_out_in_the_admin_clients_words():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    client = KafkaPythonOffsetsClient({"bootstrap.servers": address, "default.api.timeout.ms": "300"}, "driver", 1000)
    with pytest.raises(TimeoutException) as error:
        client.partitions("orders")
    assert str(error.value) == "Timed out waiting for a node assignment. Call: listNodes"
    assert error.value.java_class == "org.apache.kafka.common.errors.TimeoutException"


def test_records_kafka_python_cannot_send_are_refused_in_plain_words():
    with pytest.raises(IllegalArgumentException) as error:
        _check_sendable(b"k", b"v", (("trace", None),))
    assert str(error.value).startswith("Header 'trace' has a null value, which Kafka accepts but kafka-python")
    with pytest.raises(IllegalArgumentException) as error:
        _check_sendable(None, None, ())
    assert "cannot send a record whose key and value are both null" in str(error.value)
    _check_sendable(None, b"v", (("trace", b""),))
