"""`AdminConnection`: the Kafka ``Admin`` client the command-line tools talk through.

Theory of operation
-------------------
Every tool gathers its data over the Kafka protocol with kafka-python, so
the same command works against the sandbox and against a real cluster.
``AdminConnection`` opens a ``KafkaAdminClient`` lazily, when the tool makes
its first call, because that is when the Java ``Admin`` client first needs
a broker: a tool that fails on its arguments never connects.  If no broker
answers, Kafka's admin client gives up after ``default.api.timeout.ms``
(60 s), or the call's own ``timeoutMs`` (``bootstrap_timeout_ms``), with
``Timed out waiting for a node assignment. Call: <call name>``; the
connection raises that same ``TimeoutException``.

Where kafka-python's admin client has no method for a call (DescribeConfigs
for ``--entity-default``, ElectLeaders with its per-partition errors), the
tool builds the request from kafka-python's protocol classes and sends it
with `send` to any broker or a chosen node.

kafka-python's private API (``KafkaAdminClient._manager`` and three helpers of
its group calls) is used in this module only, by the methods of
`AdminConnection` that say so.  kafka-python 3.0 has no public way to send a
prepared request to a chosen node, to read the brokers' endpoints from its
metadata, or to build and parse OffsetFetch and OffsetCommit without also
running its own coordinator lookup and retries (``list_group_offsets``,
``alter_group_offsets``); Kafka's tools retry differently
(`minikafka.commands.coordinator_call` reproduces their messages), so the tools
need the pieces.  Keeping them here means an upgrade of kafka-python is
checked in one place (the version is pinned in pyproject.toml).

Errors come back as error codes; `error_for` turns a code and message into
the sandbox's `KafkaException` named like Kafka's Java exception, so a tool
prints ``org.apache.kafka.common.errors.TopicExistsException: Topic 'orders'
already exists.`` exactly as Kafka's would.  Ids travel as UUIDs in
kafka-python and print in Kafka's base64 form (`kafka_uuid`).

Mirrors ``org.apache.kafka.clients.admin.Admin`` as the tools use it
(``Admin.create`` from ``bootstrap.servers``).  Simplified: the admin client
is kafka-python's, so retry and timeout details follow its defaults.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from minikafka.common.errors import Errors, KafkaException, TimeoutException
from minikafka.common.uuid import Uuid

DEFAULT_API_TIMEOUT_MS = 60_000          # Kafka's default.api.timeout.ms: how long a call waits for a broker


def error_for(code: int, message: str | None = None) -> KafkaException:
    """The Java exception Kafka's admin client raises for an error code (message: the broker's, else the default)."""
    return Errors.for_code(code).exception(message or None)


def java_string(exc: KafkaException) -> str:
    """``Throwable.toString()``: ``org.apache.kafka.common.errors.X: message``."""
    return f"{exc.java_class}: {exc.message}"


def from_client_error(exc: Exception) -> KafkaException:
    """A kafka-python error raised by the client, as the Java client's exception."""
    if isinstance(exc, KafkaException):
        return exc
    code = getattr(exc, "errno", None)
    if isinstance(code, int):
        # kafka-python's own wording is not the broker's; Kafka prints the error's default text.
        return error_for(code)
    return KafkaException(str(exc))


def kafka_uuid(value: Any) -> str:
    """A topic or directory id as Kafka prints it (base64); kafka-python gives UUIDs or their text."""
    if value is None:
        return str(Uuid.ZERO)
    if isinstance(value, str):
        value = uuid.UUID(value)
    return str(Uuid.from_bytes(value.bytes))


class ExecutionException(KafkaException):
    """``java.util.concurrent.ExecutionException``: a failed admin call; its message is the cause's text."""

    def __init__(self, cause: KafkaException):
        super().__init__(java_string(cause))
        self.cause = cause

    @property
    def java_class(self) -> str:
        return "java.util.concurrent.ExecutionException"


def execution(call):
    """Run ``call()``; any failure comes out as `ExecutionException` (as ``KafkaFuture.get`` throws)."""
    try:
        return call()
    except ExecutionException:
        raise
    except Exception as exc:
        raise ExecutionException(from_client_error(exc)) from None


class AdminConnection:
    """A kafka-python admin client opened on first use, closed by `close`."""

    def __init__(self, bootstrap_servers: str, client_id: str | None = None,
                 bootstrap_timeout_ms: int = DEFAULT_API_TIMEOUT_MS):
        self.bootstrap_servers = bootstrap_servers
        self.client_id = client_id
        self.bootstrap_timeout_ms = bootstrap_timeout_ms
        # Each call's deadline (a tool's --timeout, as Kafka's calls take it from their timeoutMs option);
        # `minikafka.commands.coordinator_call` keeps it.
        self.api_timeout_ms = DEFAULT_API_TIMEOUT_MS
        self._admin = None                      # KafkaAdminClient once connected

    def admin(self, call_name: str):
        """The admin client; ``call_name`` names the call in Kafka's timeout message."""
        if self._admin is None:
            from kafka import KafkaAdminClient
            from kafka.errors import KafkaConnectionError, KafkaTimeoutError
            options: dict[str, Any] = {"bootstrap_servers": self.bootstrap_servers.split(","),
                                       "bootstrap_timeout_ms": self.bootstrap_timeout_ms}
            if self.client_id:
                options["client_id"] = self.client_id
            # kafka-python logs every failed connection attempt; Kafka's tools stay quiet.
            logging.getLogger("kafka").setLevel(logging.CRITICAL)
            try:
                self._admin = KafkaAdminClient(**options)
            except (KafkaTimeoutError, KafkaConnectionError):
                raise TimeoutException(f"Timed out waiting for a node assignment. Call: {call_name}") from None
        return self._admin

    def send(self, request, call_name: str, node_id: int | None = None, request_timeout_ms: int | None = None):
        """Send a kafka-python protocol request to ``node_id`` (any broker if None); the response.

        ``request_timeout_ms`` bounds the wait for the answer (kafka-python's ``request_timeout_ms`` if None).
        """
        admin = self.admin(call_name)

        async def call():
            return await admin._manager.send(request, node_id=node_id, request_timeout_ms=request_timeout_ms)
        return admin._manager.run(call)

    def broker_endpoint(self, node_id: int) -> tuple[str, int] | None:
        """(host, port) of a broker the client knows from metadata."""
        broker = self.admin("describeCluster")._manager.cluster.broker_metadata(node_id)
        return None if broker is None else (broker.host, broker.port)

    def add_group_coordinator(self, call_name: str, found: Any) -> int:
        """Record a FindCoordinator answer (one entry of its ``coordinators``) in kafka-python's
        metadata, so that `send` can reach that node; its node id (private API)."""
        from kafka.protocol.metadata import CoordinatorType
        return self.admin(call_name)._manager.cluster.add_coordinator(
            found, CoordinatorType.GROUP, found.key, synthesize_node_id=False)

    def offset_fetch_request(self, group_id: str) -> Any:
        """kafka-python's OffsetFetch request for every committed offset of one group (private helper)."""
        ((_, request),) = self.admin("offsetFetch")._list_group_offsets_requests({group_id: None})
        return request

    def parse_offset_fetch(self, group: Any) -> dict:
        """``{TopicPartition: OffsetAndMetadata}`` of one group of an OffsetFetch response, raising
        kafka-python's error of a failed partition (private helper)."""
        return self.admin("offsetFetch")._parse_group_offsets(group)

    def offset_commit_request(self, group_id: str, offsets: dict) -> Any:
        """kafka-python's OffsetCommit request of ``{TopicPartition: OffsetAndMetadata}`` for a group with
        no active member, as the admin client commits (private helper)."""
        return self.admin("offsetCommit")._alter_group_offsets_request(group_id, offsets)

    def close(self) -> None:
        if self._admin is not None:
            try:
                self._admin.close()
            finally:
                self._admin = None

    def __enter__(self) -> "AdminConnection":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


__all__ = ["AdminConnection", "ExecutionException", "execution", "DEFAULT_API_TIMEOUT_MS", "error_for",
           "java_string", "from_client_error", "kafka_uuid"]
