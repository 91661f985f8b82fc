"""Exceptions the KRaft client raises to its callers (``org.apache.kafka.raft.errors``).

These are not protocol errors (no error code of their own): the controller
turns a `NotLeaderException` from ``append`` into NOT_CONTROLLER for clients,
as Kafka's ``QuorumController`` does.
"""

from __future__ import annotations

from minikafka.common.errors import KafkaException


class RaftException(KafkaException):
    @property
    def java_class(self) -> str:
        return f"org.apache.kafka.raft.errors.{type(self).__name__}"


class NotLeaderException(RaftException):
    """An append (or resign) reached a replica that is not the leader of that epoch."""
