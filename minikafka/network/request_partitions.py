"""Which partitions a request is about, and the error each got in the response.

Theory of operation
-------------------
Five client APIs name partitions one by one: Produce, Fetch, ListOffsets,
OffsetForLeaderEpoch and DeleteRecords.  Their requests list topics, each
with its partitions; their responses list the same topics and partitions,
each with an ``error_code``.  Kafka's request log prints both; the sandbox's
request view counts them (`request_metrics`).

Each API spells the same shape with its own field names (``topic_data`` and
``partition_data`` in a produce request, ``responses`` and
``partition_responses`` in its response...), so `_SHAPES` names, per API
key, the fields of the request and of the response.  From Produce v13 and
Fetch v13 on, topics travel by id; the caller's ``topic_name`` (the broker's
metadata image) gives their names back (an unknown id stays ``""``).

The other APIs (Metadata, ApiVersions, FindCoordinator, JoinGroup...) are
about the cluster or a group, not about partitions: for them
`partition_outcomes` returns nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.network.codec import from_wire_uuid

# api key -> ((topics field, topic name field, partitions field, partition field) of the request,
#             (the same four of the response))
_SHAPES: dict[int, tuple[tuple[str, str, str, str], tuple[str, str, str, str]]] = {
    0: (("topic_data", "name", "partition_data", "index"),
        ("responses", "name", "partition_responses", "index")),
    1: (("topics", "topic", "partitions", "partition"),
        ("responses", "topic", "partitions", "partition_index")),
    2: (("topics", "name", "partitions", "partition_index"),
        ("topics", "name", "partitions", "partition_index")),
    21: (("topics", "name", "partitions", "partition_index"),
         ("topics", "name", "partitions", "partition_index")),
    23: (("topics", "topic", "partitions", "partition"),
         ("topics", "topic", "partitions", "partition")),
}
PARTITION_APIS = frozenset(_SHAPES)
_TOPIC_IDS_SINCE = {0: 13, 1: 13}          # Produce and Fetch name topics by id from v13

TopicNames = Callable[[Uuid], "str | None"]
"""A topic id -> its name in the broker's metadata (None: no such topic)."""


def _topic_name(entry: Any, field: str, api_key: int, version: int, topic_name: TopicNames) -> str:
    if version >= _TOPIC_IDS_SINCE.get(api_key, 1 << 15):
        return topic_name(from_wire_uuid(entry.topic_id)) or ""
    return getattr(entry, field) or ""


def _walk(container: Any, shape: tuple[str, str, str, str], api_key: int, version: int,
          topic_name: TopicNames) -> Iterator[tuple[TopicPartition, Any]]:
    """Each (partition, its kafka-python entry) ``container`` lists, in its order."""
    topics_field, name_field, partitions_field, index_field = shape
    for entry in getattr(container, topics_field, None) or ():
        name = _topic_name(entry, name_field, api_key, version, topic_name)
        for partition in getattr(entry, partitions_field, None) or ():
            yield TopicPartition(name, getattr(partition, index_field)), partition


def partition_outcomes(api_key: int, version: int, body: Any, response: Any, topic_name: TopicNames
                       ) -> list[tuple[TopicPartition, str | None]]:
    """Each partition the request names, with its error name in the response.

    ``"NONE"`` means success; None means there was no response to read (an
    ``acks=0`` produce, a closed connection).  The broker's response lists
    every partition the request named, in request order, so it is read alone;
    a response that lists none but carries a top-level error (a Fetch the
    broker declines as a whole) gives that error to each requested partition.
    Empty for APIs that are not about partitions.
    """
    shape = _SHAPES.get(api_key)
    if shape is None:
        return []
    if response is not None:
        answered: list[tuple[TopicPartition, str | None]] = [(tp, _error_name(p.error_code))
                    for tp, p in _walk(response, shape[1], api_key, version, topic_name)]
        top_level = getattr(response, "error_code", 0) if api_key == 1 else 0
        if answered or not top_level:
            return answered
        error: str | None = _error_name(top_level)
    else:
        error = None
    return [(tp, error) for tp, _ in _walk(body, shape[0], api_key, version, topic_name)]


_NAMES: dict[int, str] = {}


def _error_name(code: int) -> str:
    name = _NAMES.get(code)
    if name is None:
        name = _NAMES[code] = Errors.for_code(code).name
    return name
