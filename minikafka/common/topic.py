"""Topic names: what Kafka accepts, which names are internal, and which collide.

Theory of operation
-------------------
A topic name becomes a directory name (``<log dir>/<topic>-<partition>``) and
part of metric names, so Kafka restricts it: 1 to 249 characters, only ASCII
letters, digits, ``.``, ``_`` and ``-``, and never exactly ``.`` or ``..``.
Those rules alone keep a partition directory inside its log directory: no
``/``, ``\\`` or NUL can appear, and the only names made of dots that could
climb out are refused.  `partition_dir` checks this once more before a path
is built.

Metric names replace ``.`` with ``_``, so ``orders.eu`` and ``orders_eu``
would report into the same metrics.  ``kafka-topics.sh --create`` prints
`COLLISION_WARNING` for any name holding either character, and the KRaft
controller refuses a new name whose ``.``->``_`` form equals an existing
topic's (`collision_error`).  `new_topic_name_error` applies the
controller's checks in its order: name rules, then collision, then "already
exists", the later finding replacing the earlier one.

Internal topics (``__consumer_offsets``, ``__transaction_state``,
``__share_group_state``) belong to Kafka's coordinators; the metadata log
``__cluster_metadata`` is not a topic clients can see at all.

Mirrors ``org.apache.kafka.common.internals.Topic`` (Kafka 4.3.1), the
collision check of ``ReplicationControlManager.validateNewTopicNames`` and
the warning in ``TopicCommand.createTopic``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from minikafka.common.config.java_values import utf16_length
from minikafka.common.errors import InvalidTopicException, KafkaException, TopicExistsException

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"
SHARE_GROUP_STATE_TOPIC_NAME = "__share_group_state"
CLUSTER_METADATA_TOPIC_NAME = "__cluster_metadata"
INTERNAL_TOPICS = frozenset({GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME,
                             SHARE_GROUP_STATE_TOPIC_NAME})
LEGAL_CHARS = "[a-zA-Z0-9._-]"
MAX_NAME_LENGTH = 249

COLLISION_WARNING = ("WARNING: Due to limitations in metric names, topics with a period ('.') or "
                     "underscore ('_') could collide. To avoid issues it is best to use either, "
                     "but not both.")

_LEGAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def _invalid_reason(name: str) -> str | None:
    """Why Kafka refuses ``name``, in its words, or None when the name is fine."""
    if name == "":
        return "the empty string is not allowed"
    if name == ".":
        return "'.' is not allowed"
    if name == "..":
        return "'..' is not allowed"
    if utf16_length(name) > MAX_NAME_LENGTH:   # Java counts UTF-16 units, not code points
        return f"the length of '{name}' is longer than the max allowed length {MAX_NAME_LENGTH}"
    if not all(char in _LEGAL for char in name):
        return f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    return None


def is_valid(name: str) -> bool:
    return _invalid_reason(name) is None


def validate(name: str, log_prefix: str = "Topic name") -> None:
    """Raise InvalidTopicException("Topic name is invalid: <reason>") for a bad name."""
    reason = _invalid_reason(name)
    if reason is not None:
        raise InvalidTopicException(f"{log_prefix} is invalid: {reason}")


def is_internal(name: str) -> bool:
    return name in INTERNAL_TOPICS


def has_collision_chars(name: str) -> bool:
    """True if the name holds '.' or '_' (then kafka-topics.sh prints COLLISION_WARNING)."""
    return "_" in name or "." in name


def unify_collision_chars(name: str) -> str:
    """The name as metrics see it: every '.' becomes '_'."""
    return name.replace(".", "_")


def has_collision(a: str, b: str) -> bool:
    return unify_collision_chars(a) == unify_collision_chars(b)


def find_collision(name: str, existing: Iterable[str]) -> str | None:
    """The existing topic that ``name`` collides with, as the controller finds it.

    Only names containing '.' or '_' take part, on both sides; a name that
    equals an existing one is "already exists", not a collision.
    """
    if not has_collision_chars(name):
        return None
    unified = unify_collision_chars(name)
    for other in existing:
        if has_collision_chars(other) and unify_collision_chars(other) == unified:
            return other
    return None


def collision_error(name: str, existing_name: str) -> KafkaException:
    return InvalidTopicException(f"Topic '{name}' collides with existing topic: {existing_name}")


def new_topic_name_error(name: str, existing: Iterable[str]) -> KafkaException | None:
    """The error CreateTopics reports for ``name`` given the existing topics, or None.

    Order as in ``ReplicationControlManager.createTopics``: an invalid name
    is reported, a collision replaces that report, and "already exists"
    replaces both.
    """
    existing = list(existing)
    error: KafkaException | None = None
    reason = _invalid_reason(name)
    if reason is not None:
        error = InvalidTopicException(f"Topic name is invalid: {reason}")
    colliding = find_collision(name, existing)
    if colliding is not None:
        error = collision_error(name, colliding)
    if name in existing:
        error = TopicExistsException(f"Topic '{name}' already exists.")
    return error


def partition_dir(log_dir: str | Path, topic: str, partition: int) -> Path:
    """``<log_dir>/<topic>-<partition>``, refusing anything that would leave ``log_dir``."""
    validate(topic)
    if isinstance(partition, bool) or not isinstance(partition, int) or partition < 0:
        raise ValueError(f"Invalid partition {partition!r} for topic {topic}")
    base = Path(log_dir)
    path = base / f"{topic}-{partition}"
    # Belt and braces: the name rules already ensure this; compare lexically so a
    # symlinked log directory (or partition directory) is not mistaken for an escape.
    if Path(os.path.normpath(path)).parent != Path(os.path.normpath(base)):
        raise InvalidTopicException(f"Topic name is invalid: '{topic}' would leave the log directory")
    return path
