"""The admin connection: Java exception texts, ids, and the timeout when no broker answers."""

import socket
import uuid

import pytest

from minikafka.commands.admin_client import (AdminConnection, ExecutionException, error_for, execution,
                                        from_client_error, java_string, kafka_uuid)
from minikafka.common.errors import Errors, KafkaException, TimeoutException


def test_error_codes_become_kafkas_exceptions_with_the_brokers_or_the_default_message():
    exc = error_for(36, "Topic 'orders' already exists.")
    assert java_string(exc) == "org.apache.kafka.common.errors.TopicExistsException: Topic 'orders' already exists."
    assert error_for(3).message == Errors.UNKNOWN_TOPIC_OR_PARTITION.message
    assert error_for(3, "").message == Errors.UNKNOWN_TOPIC_OR_PARTITION.message


def test_kafka_python_errors_map_to_the_java_class_with_the_default_text():
    from kafka.errors import GroupIdNotFoundError
    exc = from_client_error(GroupIdNotFoundError("kafka-python's own words"))
    assert java_string(exc) == "org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist."


def test_execution_wraps_failures_like_kafka_future_get():
    def fail():
        raise error_for(7)
    with pytest.raises(ExecutionException) as error:
        execution(fail)
    assert error.value.message == "org.apache.kafka.common.errors.TimeoutException: The request timed out."
    assert error.value.java_class == "java.util.concurrent.ExecutionException"
    assert execution(lambda: 5) == 5


def test_ids_print_in_kafkas_base64_form():
    value = uuid.UUID("cb025902-d6d4-b3f7-c7ab-85863373a8dd")
    assert kafka_uuid(value) == "ywJZAtbUs_fHq4WGM3Oo3Q" == kafka_uuid(str(value))
    assert kafka_uuid(None) == "AAAAAAAAAAAAAAAAAAAAAA"


def test_no_broker_means_kafkas_node_assignment_timeout():
    with socket.socket() as s:                   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    connection = AdminConnection(f"127.0.0.1:{port}", bootstrap_timeout_ms=300)
    with pytest.raises(TimeoutException) as error:
        connection.admin("listTopics")
    assert str(error.value) == "Timed out waiting for a node assignment. Call: listTopics"
    assert isinstance(error.value, KafkaException)
    connection.close()
