"""FindCoordinator: which broker coordinates a group, and how the answer is shaped per version.

Theory of operation
-------------------
Any broker answers FindCoordinator.  For a group (key type 0) it computes
the group's ``__consumer_offsets`` partition and returns the endpoint of
that partition's leader.  If ``__consumer_offsets`` does not exist yet the
broker asks the controller to create it (``offsets.topic.num.partitions``
partitions, ``offsets.topic.replication.factor`` replicas) and answers
COORDINATOR_NOT_AVAILABLE; clients retry until the topic has leaders.
A partition without a live leader also gives COORDINATOR_NOT_AVAILABLE.

Versions 0-3 ask for one ``key`` and answer with top-level fields (an error
answer carries node -1, host "", port -1 and the error's default message;
a successful v1-3 answer carries Kafka's quirky message "NONE").  Version 4+
batches ``coordinator_keys`` and answers with one ``Coordinator`` entry per key.
Share-group keys (type 2) need v6+; unknown key types are INVALID_REQUEST.

Mirrors ``KafkaApis.handleFindCoordinatorRequest`` / ``getCoordinator`` and
``FindCoordinatorResponse.prepareOldResponse``.  Simplified: authorization is
not checked; the broker supplies the lookup (metadata and auto-creation are
its business).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from minikafka.common.errors import Errors
from minikafka.coordinator.group_coordinator import partition_for
from minikafka.coordinator.requests import Coordinator, FindCoordinatorRequest, FindCoordinatorResponse

GROUP_KEY_TYPE, TRANSACTION_KEY_TYPE, SHARE_KEY_TYPE = 0, 1, 2
MIN_BATCHED_VERSION = 4


class Endpoint(NamedTuple):
    node_id: int
    host: str
    port: int


NO_NODE = Endpoint(-1, "", -1)           # Node.noNode()
Lookup = Callable[[int, str], tuple[Errors, Endpoint]]


def locate_group_coordinator(group_id: str, num_partitions: int, offsets_topic_exists: bool,
                             leader_of: Callable[[int], Endpoint | None]) -> tuple[Errors, Endpoint]:
    """The endpoint coordinating ``group_id``; ``leader_of(p)`` is p's live leader or None.

    When the topic is missing the caller must also request its creation.
    """
    if not offsets_topic_exists:
        return Errors.COORDINATOR_NOT_AVAILABLE, NO_NODE
    endpoint = leader_of(partition_for(group_id, num_partitions))
    return (Errors.NONE, endpoint) if endpoint is not None else (Errors.COORDINATOR_NOT_AVAILABLE, NO_NODE)


def _lookup_checked(request: FindCoordinatorRequest, key: str, lookup: Lookup) -> tuple[Errors, Endpoint]:
    if request.key_type == SHARE_KEY_TYPE and request.api_version < 6:
        return Errors.INVALID_REQUEST, NO_NODE
    return lookup(request.key_type, key)


def find_coordinator(request: FindCoordinatorRequest, lookup: Lookup) -> FindCoordinatorResponse:
    """Answer ``request`` in the shape its version expects; ``lookup(key_type, key)`` finds one key."""
    if request.key_type not in (GROUP_KEY_TYPE, TRANSACTION_KEY_TYPE, SHARE_KEY_TYPE):
        return _error_response(request, Errors.INVALID_REQUEST)
    if request.api_version >= MIN_BATCHED_VERSION:
        entries = []
        for key in request.coordinator_keys:
            error, node = _lookup_checked(request, key, lookup)
            entries.append(Coordinator(key, node.node_id, node.host, node.port, error))
        return FindCoordinatorResponse(coordinators=tuple(entries))
    error, node = _lookup_checked(request, request.key, lookup)
    if error is not Errors.NONE:
        return _error_response(request, error)
    message = "NONE" if request.api_version >= 1 else None   # Errors.NONE.message() is its name
    return FindCoordinatorResponse(Errors.NONE, message, node.node_id, node.host, node.port)


def _error_response(request: FindCoordinatorRequest, error: Errors) -> FindCoordinatorResponse:
    if request.api_version >= MIN_BATCHED_VERSION:
        return FindCoordinatorResponse(coordinators=tuple(
            Coordinator(k, NO_NODE.node_id, NO_NODE.host, NO_NODE.port, error, error.message)
            for k in request.coordinator_keys))
    message = error.message if request.api_version >= 1 else None
    return FindCoordinatorResponse(error, message, *NO_NODE)
