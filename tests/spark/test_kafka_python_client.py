"""kafka-python configuration; reading and writing need a live broker (phase 2)."""

from __future__ import annotations

import logging

from kafka import KafkaConsumer, KafkaProducer

from minikafka.spark.kafka_python_client import client_configs, consumer_configs


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
