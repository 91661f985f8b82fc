"""A broker's logger levels (BROKER_LOGGER): validation in Kafka's words, inheritance on DELETE."""

from types import SimpleNamespace

import pytest

from minikafka.common.errors import InvalidConfigurationException, InvalidRequestException
from minikafka.server.runtime_logger_manager import DEFAULT_LOGGER_LEVELS, RuntimeLoggerManager

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def op(name, operation, value=None):
    return SimpleNamespace(name=name, config_operation=operation, value=value)


def test_the_default_loggers_are_those_of_kafkas_log4j2_yaml():
    loggers = RuntimeLoggerManager(1).loggers()
    assert loggers["root"] == "INFO" and loggers["kafka.request.logger"] == "WARN"
    assert set(loggers) == set(DEFAULT_LOGGER_LEVELS)


def test_set_then_delete_inherits_from_the_nearest_configured_ancestor():
    manager = RuntimeLoggerManager(1)
    manager.apply_changes("1", [op("kafka", SET, "DEBUG"), op("kafka.request.logger", DELETE)], False)
    assert manager.loggers()["kafka.request.logger"] == "DEBUG"       # from "kafka"
    manager.apply_changes("1", [op("kafka", DELETE)], False)
    assert manager.loggers()["kafka"] == manager.loggers()["root"] == "INFO"


def test_validate_only_changes_nothing():
    manager = RuntimeLoggerManager(1)
    manager.apply_changes("1", [op("root", SET, "ERROR")], True)
    assert manager.loggers()["root"] == "INFO"


def test_one_bad_operation_applies_none_of_them():
    manager = RuntimeLoggerManager(1)
    with pytest.raises(InvalidConfigurationException, match="Logger nope does not exist!"):
        manager.apply_changes("1", [op("kafka", SET, "DEBUG"), op("nope", SET, "DEBUG")], False)
    assert manager.loggers()["kafka"] == "INFO"


@pytest.mark.parametrize("resource, ops, error, message", [
    ("x", [op("kafka", SET, "INFO")], InvalidRequestException, "Node id must be an integer, but it is: x"),
    ("2", [op("kafka", SET, "INFO")], InvalidRequestException, "Unexpected node id. Expected 1, but received 2"),
    ("1", [op("kafka", SET, "info")], InvalidConfigurationException,
     "Cannot set the log level of kafka to info as it is not a supported log level. "
     "Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN"),
    ("1", [op("root", DELETE)], InvalidRequestException, "Removing the log level of the root logger is not allowed"),
    ("1", [op("kafka", SUBTRACT, "x")], InvalidRequestException,
     "SUBTRACT operation is not allowed for the BROKER_LOGGER resource"),
    ("1", [op("kafka", 9, "x")], InvalidRequestException,
     "Unknown operation type 9 is not allowed for the BROKER_LOGGER resource"),
])
def test_refusals_in_kafkas_words(resource, ops, error, message):
    with pytest.raises(error) as caught:
        RuntimeLoggerManager(1).apply_changes(resource, ops, False)
    assert caught.value.message == message


def test_each_broker_process_has_its_own_levels():
    first, second = RuntimeLoggerManager(1), RuntimeLoggerManager(2)     # each BrokerServer builds one
    first.apply_changes("1", [op("kafka", SET, "TRACE")], False)
    assert first.loggers()["kafka"] == "TRACE"
    assert second.loggers()["kafka"] == "INFO"
    assert RuntimeLoggerManager(1).loggers()["kafka"] == "INFO"          # a restart
