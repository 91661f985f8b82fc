"""A broker's log4j logger levels: the BROKER_LOGGER config resource (KIP-412).

Theory of operation
-------------------
Besides its KIP-226 configs, every broker exposes its loggers as the config
resource ``BROKER_LOGGER`` named by its node id: DescribeConfigs lists each
logger with its level (source DYNAMIC_BROKER_LOGGER_CONFIG), and
IncrementalAlterConfigs SETs a level or DELETEs it (the logger then inherits
its nearest configured ancestor's level, ``root`` at the end).  These changes
are not metadata: the broker applies them itself, they are never forwarded
to the controller, and they are lost when the broker restarts (each
`BrokerServer` builds its own manager, starting from the defaults).

Validation, in Kafka's words: the resource name must be this node's id;
SET and DELETE need an existing logger; a SET level must be one of FATAL,
ERROR, WARN, INFO, DEBUG, TRACE; the root logger's level cannot be removed;
APPEND and SUBTRACT are refused.  A request with ``validate_only`` is checked
and not applied.

The sandbox's broker has the loggers Kafka's default ``config/log4j2.yaml``
configures (``kafka``, ``org.apache.kafka``, ``state.change.logger`` ...) plus
``root``, at their configured levels.

Mirrors ``kafka.server.logger.RuntimeLoggerManager`` and
``org.apache.kafka.server.logger.LoggingController``/``Log4jCoreController``.
Simplified: a real broker also lists every logger its classes have created
at run time (hundreds of them); the sandbox has only the configured ones.
"""

from __future__ import annotations

from typing import Any, Iterable

from minikafka.common.config.java_values import hashmap_order
from minikafka.common.errors import InvalidConfigurationException, InvalidRequestException
from minikafka.controller.requests import AlterConfigOpType

ROOT_LOGGER = "root"
VALID_LOG_LEVELS = ("DEBUG", "ERROR", "FATAL", "INFO", "TRACE", "WARN")   # sorted, as Kafka prints them

DEFAULT_LOGGER_LEVELS = {
    ROOT_LOGGER: "INFO",
    "kafka": "INFO",
    "org.apache.kafka": "INFO",
    "kafka.request.logger": "WARN",
    "kafka.network.RequestChannel$": "WARN",
    "org.apache.kafka.controller": "INFO",
    "org.apache.kafka.storage.internals.log.LogCleaner": "INFO",
    "org.apache.kafka.storage.internals.log.LogCleaner$CleanerThread": "INFO",
    "org.apache.kafka.storage.internals.log.Cleaner": "INFO",
    "state.change.logger": "INFO",
    "kafka.authorizer.logger": "INFO",
}
"""The loggers of Kafka 4.1's ``config/log4j2.yaml`` and their levels (the file ships only in the
binary distribution, so it was not re-checked against 4.3.1; its RuntimeLoggerManager texts were)."""


class RuntimeLoggerManager:
    """One broker's logger levels (process state, like log4j's)."""

    def __init__(self, node_id: int):
        self.node_id = node_id
        self.levels: dict[str, str | None] = dict(DEFAULT_LOGGER_LEVELS)   # name -> own level, None: inherited

    def loggers(self) -> dict[str, str]:
        """Every logger and its effective level, in the order Kafka's HashMap lists them."""
        return {name: self.effective_level(name) for name in hashmap_order(self.levels)}

    def effective_level(self, name: str) -> str:
        while True:
            level = self.levels.get(name)
            if level is not None:
                return level
            if "." not in name:
                return self.levels[ROOT_LOGGER] or "INFO"
            name = name.rsplit(".", 1)[0]

    # ------------------------------------------------------------------ IncrementalAlterConfigs
    def apply_changes(self, resource_name: str, ops: Iterable[Any], validate_only: bool) -> None:
        """Validate ``ops`` (objects with ``name``, ``config_operation``, ``value``), then apply them."""
        ops = list(ops)
        self._validate_resource_name(resource_name)
        for op in ops:
            self._validate(op)
        if validate_only:
            return
        for op in ops:
            # SET gives the logger its own level; DELETE makes it inherit (never root: refused above).
            self.levels[op.name] = op.value if op.config_operation == AlterConfigOpType.SET else None

    def _validate_resource_name(self, resource_name: str) -> None:
        try:
            requested = int(resource_name)
        except ValueError:
            raise InvalidRequestException(f"Node id must be an integer, but it is: {resource_name}") from None
        if requested != self.node_id:
            raise InvalidRequestException(f"Unexpected node id. Expected {self.node_id}, "
                                          f"but received {requested}")

    def _validate(self, op: Any) -> None:
        operation = op.config_operation
        if operation == AlterConfigOpType.SET:
            self._require_logger(op.name)
            if op.value not in VALID_LOG_LEVELS:
                raise InvalidConfigurationException(
                    f"Cannot set the log level of {op.name} to {op.value} as it is not a supported log "
                    f"level. Valid log levels are {', '.join(VALID_LOG_LEVELS)}")
        elif operation == AlterConfigOpType.DELETE:
            self._require_logger(op.name)
            if op.name == ROOT_LOGGER:
                raise InvalidRequestException(f"Removing the log level of the {ROOT_LOGGER} logger is not allowed")
        elif operation in (AlterConfigOpType.APPEND, AlterConfigOpType.SUBTRACT):
            raise InvalidRequestException(f"{AlterConfigOpType(operation).name} operation is not allowed "
                                          f"for the BROKER_LOGGER resource")
        else:
            raise InvalidRequestException(f"Unknown operation type {operation} is not allowed for the "
                                          f"BROKER_LOGGER resource")

    def _require_logger(self, name: str) -> None:
        if name not in self.levels:
            raise InvalidConfigurationException(f"Logger {name} does not exist!")

