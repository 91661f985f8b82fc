"""`ReplicaState`: what a partition leader knows about one follower (Kafka's ``Replica``).

Theory of operation
-------------------
Every fetch a follower sends tells the leader the follower's log end offset
(LEO) and log start offset.  The leader remembers them with the time of the
fetch, its own LEO at that moment, and the follower's broker epoch, and from
them the last time the follower was *caught up*: when it fetched from the
leader's LEO, or (at a later fetch) from at least the LEO the leader had at
its previous fetch -- then it was caught up as of that previous fetch.  A
follower stays in the ISR while that time is within
``replica.lag.time.max.ms``.

The ISR a leader proposes to the controller goes out in a Java ``HashSet``'s
order (`isr_set`), and the proposal waits as a `PendingIsrChange` until the
controller answers.

Mirrors ``kafka.cluster.Replica`` (``updateFetchStateOrThrow``,
``lastCaughtUpTimeMs``) and the pending states of ``kafka.cluster.Partition``
(``PendingExpandIsr``, ``PendingShrinkIsr``).  Simplified: one
`PendingIsrChange` shape for both directions.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.java_hashing import hashmap_order

UNKNOWN_OFFSET = -1


def isr_set(ids) -> tuple[int, ...]:
    """The ISR a leader proposes in AlterPartition: Kafka 4.3's ``Partition`` keeps it in a Java
    ``HashSet``, so it goes out in hash order (ascending for ids below the table size), not in the
    order replicas joined: ISR 3 plus 2 is sent as 2,3."""
    return tuple(hashmap_order(list(ids)))


@dataclass
class ReplicaState:
    """What the leader knows about one follower (Kafka's ``Replica``)."""

    log_end_offset: int = UNKNOWN_OFFSET          # the follower's LEO, from its last fetch
    log_start_offset: int = UNKNOWN_OFFSET        # the follower's log start offset
    last_fetch_leader_log_end_offset: int = UNKNOWN_OFFSET  # our LEO at its previous fetch
    last_fetch_time_ms: int = 0                   # when it last fetched
    last_caught_up_time_ms: int = 0               # last time it had everything we had
    broker_epoch: int = -1                        # the follower's broker epoch at its last fetch

    def update_fetch_state(self, fetch_offset: int, log_start_offset: int, leader_end_offset: int,
                           broker_epoch: int, now: int) -> None:
        """A fetch from ``fetch_offset`` arrived while the leader's LEO was ``leader_end_offset``."""
        if fetch_offset >= leader_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, now)
        elif fetch_offset >= self.last_fetch_leader_log_end_offset >= 0:
            # it has what we had at its previous fetch: caught up as of that fetch
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, self.last_fetch_time_ms)
        self.log_end_offset = fetch_offset
        self.log_start_offset = log_start_offset
        self.last_fetch_leader_log_end_offset = leader_end_offset
        self.last_fetch_time_ms = now
        self.broker_epoch = broker_epoch

    def is_caught_up(self, leader_end_offset: int, now: int, max_lag_ms: int) -> bool:
        return (leader_end_offset == self.log_end_offset
                or now - self.last_caught_up_time_ms <= max_lag_ms)


@dataclass(frozen=True)
class PendingIsrChange:
    """An AlterPartition in flight: the ISR we asked for and what it adds/removes."""

    proposed_isr: tuple[int, ...]
    adding: frozenset[int]
    removing: frozenset[int]
