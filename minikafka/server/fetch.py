"""The Fetch API as the broker's domain sees it: one request shape for followers and consumers.

Theory of operation
-------------------
In Kafka a follower replicates by sending the same ``Fetch`` request a
consumer sends, with its own broker id as ``replica_id``.  The leader then
reads up to its log end offset (a consumer only up to the high watermark),
learns how far the follower has got from ``fetch_offset``, and tells it where
its log diverges when ``last_fetched_epoch`` shows the follower still holds
a tail written under an older leader (KIP-320, KIP-595's reconciliation,
Fetch v12+ ``DivergingEpoch``).

These dataclasses are what a replica fetcher sends between brokers inside the
process, and what the wire-protocol Fetch handler builds from a client's
request.  Field names follow ``FetchRequest.json``/``FetchResponse.json``.

Mirrors ``org.apache.kafka.server.storage.log.FetchParams`` and
``FetchPartitionData``.  Simplified: no fetch sessions (KIP-227) between
brokers; every replica fetch is a full fetch.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid

CONSUMER_REPLICA_ID = -1         # FetchRequest.CONSUMER_REPLICA_ID
READ_UNCOMMITTED = 0
READ_COMMITTED = 1


@dataclass(frozen=True, slots=True)
class FetchPartitionRequest:
    topic: str
    partition: int
    fetch_offset: int                     # the next offset the fetcher wants (a follower's LEO)
    partition_max_bytes: int
    current_leader_epoch: int = -1        # the fetcher's idea of the leader epoch (-1: unknown)
    last_fetched_epoch: int = -1          # epoch of the fetcher's last batch (-1: none)
    log_start_offset: int = -1            # a follower's log start offset
    topic_id: Uuid = Uuid.ZERO


@dataclass(frozen=True, slots=True)
class FetchRequest:
    replica_id: int                       # follower broker id, or -1 for a consumer
    replica_epoch: int                    # the follower's broker epoch (-1 for consumers)
    max_wait_ms: int                      # how long the leader may park the request
    min_bytes: int                        # answer as soon as this much data is available
    max_bytes: int                        # response size limit
    partitions: tuple[FetchPartitionRequest, ...]
    isolation_level: int = READ_UNCOMMITTED
    client_metadata: bool = False         # a v11+ consumer fetch (KIP-392): any replica may serve it

    @property
    def is_from_follower(self) -> bool:
        return self.replica_id >= 0

    @property
    def fetch_only_leader(self) -> bool:
        """``FetchParams.fetchOnlyLeader``: followers and pre-v11 consumers must fetch from the leader."""
        return self.is_from_follower or not self.client_metadata


@dataclass(frozen=True, slots=True)
class FetchPartitionData:
    topic: str
    partition: int
    error: Errors = Errors.NONE
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: bytes = b""                  # whole record batches, exactly as stored
    diverging_epoch: tuple[int, int] | None = None   # (epoch, end_offset) when the fetcher diverged
    current_leader: tuple[int, int] | None = None    # (leader_id, leader_epoch) hint on leader errors
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class FetchResponse:
    partitions: tuple[FetchPartitionData, ...]
    error: Errors = Errors.NONE
