"""`FetchPurgatory`: where the leader parks Fetch requests that found no new data (long polling).

Theory of operation
-------------------
A follower that is caught up sends Fetch at the leader's log end offset.
Answering "nothing new" at once would make it ask again immediately, so the
leader *parks* the request for up to ``max_wait_ms`` (Kafka's raft client
uses 500 ms).  The parked request completes as soon as the log end offset
passes its fetch offset (new records, answered with those records), when the
wait ends (answered with the empty response computed on arrival), or when the
leader loses leadership (answered NOT_LEADER_OR_FOLLOWER so the follower looks
for the new leader at once).

Mirrors the fetch purgatory of ``KafkaRaftClient`` (``ThresholdPurgatory``
keyed by fetch offset).  Simplified: parked requests are a small list (one
per fetching replica), scanned on each change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from minikafka.raft.messages import FetchRequest, FetchResponse
from minikafka.runtime.node import Envelope


@dataclass(frozen=True, slots=True)
class ParkedFetch:
    envelope: Envelope          # the request to answer (Node.reply needs it)
    request: FetchRequest
    deadline: int               # arrival time + max_wait_ms
    empty_response: FetchResponse   # what to answer if nothing arrives in time


class FetchPurgatory:
    def __init__(self) -> None:
        self._parked: list[ParkedFetch] = []   # in arrival order

    def __len__(self) -> int:
        return len(self._parked)

    def park(self, parked: ParkedFetch) -> None:
        self._parked.append(parked)

    def _take(self, predicate: Callable[[ParkedFetch], bool]) -> list[ParkedFetch]:
        taken = [p for p in self._parked if predicate(p)]
        if taken:
            self._parked = [p for p in self._parked if not predicate(p)]
        return taken

    def take_satisfied(self, end_offset: int) -> list[ParkedFetch]:
        """Requests that now have data to read (fetch offset below the log end offset)."""
        return self._take(lambda p: p.request.fetch_offset < end_offset)

    def take_expired(self, now: int) -> list[ParkedFetch]:
        return self._take(lambda p: p.deadline <= now)

    def take_all(self) -> list[ParkedFetch]:
        taken, self._parked = self._parked, []
        return taken

    def next_deadline(self) -> int | None:
        return min((p.deadline for p in self._parked), default=None)
