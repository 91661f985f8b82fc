"""``ClassicGroupMember``: one consumer in a classic-protocol group, as the coordinator sees it.

Theory of operation
-------------------
A member is known by the ``member_id`` the coordinator gave it
(``<client.id>-<UUID>``, or ``<group.instance.id>-<UUID>`` for a static
member).  It brings the protocols it can speak in order of preference
(``range``, ``roundrobin``, ... for a consumer) with an opaque metadata blob
each (the consumer's subscription), its session timeout (how long the
coordinator waits for a heartbeat before declaring it dead) and its rebalance
timeout (how long a rebalance waits for it to rejoin).  After a rebalance it
holds the opaque assignment the leader computed for it.

While a member's JoinGroup or SyncGroup request is parked, the member holds
the callback that will answer it (``awaiting_join`` / ``awaiting_sync``);
a parked member counts as alive, because a client cannot heartbeat while it
waits (``has_satisfied_heartbeat``) -- except a brand-new member, which may
still be expired while its first JoinGroup is parked.

Mirrors ``org.apache.kafka.coordinator.group.classic.ClassicGroupMember``.
Simplified: futures are plain response callbacks.
"""

from __future__ import annotations

import uuid
from random import Random
from typing import Callable, Iterable

from minikafka.coordinator.requests import (
    DescribedGroupMember,
    JoinGroupRequestProtocol,
    JoinGroupResponse,
    SyncGroupResponse,
)

EMPTY_ASSIGNMENT = b""

JoinCallback = Callable[[JoinGroupResponse], None]
SyncCallback = Callable[[SyncGroupResponse], None]


def generate_member_id(client_id: str, group_instance_id: str | None, rng: Random) -> str:
    """``<client.id>-<UUID>`` (static members: ``<group.instance.id>-<UUID>``), as Kafka builds it.

    Kafka appends ``java.util.UUID.randomUUID()``; this draws the same kind of
    version-4 UUID from the node's seeded generator.
    """
    prefix = group_instance_id if group_instance_id is not None else client_id
    return f"{prefix}-{uuid.UUID(int=rng.getrandbits(128), version=4)}"


class ClassicGroupMember:
    def __init__(self, member_id: str, group_instance_id: str | None, client_id: str,
                 client_host: str, rebalance_timeout_ms: int, session_timeout_ms: int,
                 protocol_type: str, supported_protocols: Iterable[JoinGroupRequestProtocol],
                 assignment: bytes = EMPTY_ASSIGNMENT):
        self.member_id = member_id                       # assigned by the coordinator
        self.group_instance_id = group_instance_id       # static membership (KIP-345), or None
        self.client_id = client_id
        self.client_host = client_host                   # "/127.0.0.1", as Kafka prints it
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.session_timeout_ms = session_timeout_ms
        self.protocol_type = protocol_type               # "consumer" for consumers
        self.supported_protocols = tuple(supported_protocols)  # in the member's preference order
        self.assignment = assignment                     # opaque bytes from the leader's SyncGroup
        self.awaiting_join: JoinCallback | None = None   # answers a parked JoinGroup
        self.awaiting_sync: SyncCallback | None = None   # answers a parked SyncGroup
        self.is_new = False                              # joined but not yet through a rebalance

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    @property
    def is_awaiting_join(self) -> bool:
        return self.awaiting_join is not None

    @property
    def is_awaiting_sync(self) -> bool:
        return self.awaiting_sync is not None

    def protocol_names(self) -> set[str]:
        return {p.name for p in self.supported_protocols}

    def metadata(self, protocol_name: str | None) -> bytes:
        for protocol in self.supported_protocols:
            if protocol.name == protocol_name:
                return protocol.metadata
        raise ValueError(f"Member does not support protocol {protocol_name}")

    def has_satisfied_heartbeat(self) -> bool:
        # A new member may be expired even while its JoinGroup is parked; others
        # cannot heartbeat while parked, so waiting counts as being alive.
        if self.is_new:
            return False
        return self.is_awaiting_join or self.is_awaiting_sync

    def matches(self, protocols: Iterable[JoinGroupRequestProtocol]) -> bool:
        """True when a rejoin brings exactly the same protocols and metadata."""
        return tuple(protocols) == self.supported_protocols

    def vote(self, candidates: set[str]) -> str:
        """The member's most preferred protocol among those every member supports."""
        for protocol in self.supported_protocols:
            if protocol.name in candidates:
                return protocol.name
        raise ValueError("Member does not support any of the candidate protocols")

    def has_assignment(self) -> bool:
        return bool(self.assignment)

    def describe(self, protocol_name: str | None = None) -> DescribedGroupMember:
        """DescribeGroups' view; metadata only when the group has a protocol (Stable)."""
        metadata = self.metadata(protocol_name) if protocol_name is not None else b""
        return DescribedGroupMember(self.member_id, self.group_instance_id, self.client_id,
                                    self.client_host, metadata, self.assignment)

    def __repr__(self) -> str:
        return (f"ClassicGroupMember(memberId='{self.member_id}', groupInstanceId="
                f"'{self.group_instance_id or ''}', clientId='{self.client_id}', clientHost="
                f"'{self.client_host}', sessionTimeoutMs={self.session_timeout_ms}, "
                f"supportedProtocols={[p.name for p in self.supported_protocols]})")
