"""`LeaderState`: what the quorum leader tracks about every voter and observer.

Theory of operation
-------------------
In KRaft the leader does not push entries; followers *fetch*.  Each Fetch
names the fetcher's log end offset, so the leader learns how far every
replica has durably copied the log (followers flush before they fetch again).

* **High watermark.**  Sort the voters' end offsets (the leader's own
  included) from high to low; the one at position ``len(voters) // 2`` is
  replicated on a majority.  It becomes the high watermark only if it is
  beyond the offset where this leader's epoch started: a new leader must
  first commit a record of its own epoch (its LeaderChangeMessage) before it
  may declare older entries committed -- Raft's rule against the
  "Figure 8" anomaly.  The high watermark never moves back.
* **Check quorum.**  If a majority of the voters (the leader counts itself)
  have not fetched within 1.5 x ``controller.quorum.fetch.timeout.ms``, the
  leader is probably cut off and resigns instead of serving stale metadata.
* **BeginQuorumEpoch.**  Voters that have not acknowledged the new epoch are
  reminded every ``controller.quorum.fetch.timeout.ms / 2``.
* **Lag bookkeeping** for DescribeQuorum: the last fetch time of each replica
  and the last time it had caught up with the leader's end offset.
  Observers that stay silent for 5 minutes are forgotten.

Mirrors ``org.apache.kafka.raft.LeaderState`` (Kafka 4.0).  Simplified: no
dynamic voter changes; replica keys are node ids (directory ids are only
reported).
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.uuid import Uuid
from minikafka.raft.epoch_state import EpochState
from minikafka.raft.messages import ReplicaState as DescribedReplica

OBSERVER_SESSION_TIMEOUT_MS = 300_000   # LeaderState.OBSERVER_SESSION_TIMEOUT_MS
CHECK_QUORUM_TIMEOUT_FACTOR = 1.5       # LeaderState.CHECK_QUORUM_TIMEOUT_FACTOR


@dataclass
class ReplicaProgress:
    """The leader's view of one replica (Kafka's ``LeaderState.ReplicaState``)."""

    replica_id: int
    directory_id: Uuid = Uuid.ZERO
    end_offset: int | None = None            # last fetch offset (durable on the replica)
    last_fetch_timestamp: int = -1
    last_fetch_leader_log_end_offset: int = -1
    last_caught_up_timestamp: int = -1
    has_acknowledged_leader: bool = False    # fetched or answered BeginQuorumEpoch

    def update_follower_state(self, now: int, fetch_offset: int,
                              leader_end_offset: int | None) -> None:
        # A fetch at or past the leader's end offset means caught up now; one that
        # reaches where the leader was at the previous fetch means caught up then.
        if leader_end_offset is not None:
            if fetch_offset >= leader_end_offset:
                self.last_caught_up_timestamp = max(self.last_caught_up_timestamp, now)
            elif self.last_fetch_leader_log_end_offset > 0 \
                    and fetch_offset >= self.last_fetch_leader_log_end_offset:
                self.last_caught_up_timestamp = max(self.last_caught_up_timestamp,
                                                    self.last_fetch_timestamp)
            self.last_fetch_leader_log_end_offset = leader_end_offset
        self.last_fetch_timestamp = max(self.last_fetch_timestamp, now)
        self.end_offset = fetch_offset
        self.has_acknowledged_leader = True

    def described(self, leader_id: int, now: int) -> DescribedReplica:
        is_leader = self.replica_id == leader_id
        return DescribedReplica(
            self.replica_id, self.directory_id,
            -1 if self.end_offset is None else self.end_offset,
            now if is_leader else self.last_fetch_timestamp,
            now if is_leader else self.last_caught_up_timestamp)


class LeaderState(EpochState):
    name = "Leader"

    def __init__(self, local_id: int, epoch: int, epoch_start_offset: int, voters: frozenset[int],
                 granting_voters: tuple[int, ...], fetch_timeout_ms: int, now: int):
        super().__init__(epoch, voters, None)   # a new leader must re-establish the high watermark
        self.local_id = local_id
        self.leader_id = local_id
        self.epoch_start_offset = epoch_start_offset       # offset of this epoch's first batch
        self.granting_voters = granting_voters              # who elected us
        self.voter_states = {v: ReplicaProgress(v, has_acknowledged_leader=(v == local_id))
                             for v in sorted(voters)}
        self.observer_states: dict[int, ReplicaProgress] = {}
        self.check_quorum_timeout_ms = int(fetch_timeout_ms * CHECK_QUORUM_TIMEOUT_FACTOR)
        self.check_quorum_deadline = now + self.check_quorum_timeout_ms   # resign unless reset
        self.fetched_voters: set[int] = set()              # voters that fetched in this window
        self.begin_quorum_epoch_timeout_ms = fetch_timeout_ms // 2
        self.begin_quorum_epoch_deadline = now             # send BeginQuorumEpoch at once
        self.resign_requested = False                      # set by KafkaRaftClient.resign()

    def can_grant_vote(self, replica_id: int, is_log_up_to_date: bool, is_pre_vote: bool) -> bool:
        return False

    def next_deadline(self) -> int | None:
        return min(self.check_quorum_deadline, self.begin_quorum_epoch_deadline)

    # ------------------------------------------------------------------ check quorum
    def check_quorum_expired(self, now: int) -> bool:
        return len(self.voter_states) > 1 and now >= self.check_quorum_deadline

    def _update_check_quorum(self, replica_id: int, now: int) -> None:
        if replica_id in self.voter_states:
            self.fetched_voters.add(replica_id)
        majority_without_leader = len(self.voter_states) // 2
        if len(self.fetched_voters) >= majority_without_leader:
            self.fetched_voters.clear()
            self.check_quorum_deadline = now + self.check_quorum_timeout_ms

    # ------------------------------------------------------------------ BeginQuorumEpoch
    def reset_begin_quorum_epoch_timer(self, now: int) -> None:
        self.begin_quorum_epoch_deadline = now + self.begin_quorum_epoch_timeout_ms

    def non_acknowledging_voters(self) -> list[int]:
        return [v for v, s in self.voter_states.items() if not s.has_acknowledged_leader]

    def add_acknowledgement_from(self, voter_id: int) -> None:
        if voter_id not in self.voter_states:
            raise ValueError(f"Unexpected acknowledgement from non-voter {voter_id}")
        self.voter_states[voter_id].has_acknowledged_leader = True

    # ------------------------------------------------------------------ replication progress
    def update_local_state(self, end_offset: int) -> bool:
        """Record the leader's own (flushed) end offset; True if the high watermark moved."""
        state = self.voter_states[self.local_id]
        if state.end_offset is not None and state.end_offset > end_offset:
            raise RuntimeError(f"Detected non-monotonic update of local end offset: "
                               f"{state.end_offset} -> {end_offset}")
        state.end_offset = end_offset
        return self._maybe_update_high_watermark()

    def update_replica_state(self, replica_id: int, directory_id: Uuid, now: int,
                             fetch_offset: int) -> bool:
        """Record a fetch; True if the high watermark moved."""
        if replica_id < 0:
            return False            # not a replica (Kafka: e.g. a consumer)
        if replica_id == self.local_id:
            raise RuntimeError(f"Remote replica ID {replica_id} matches the local leader ID")
        state = self.voter_states.get(replica_id)
        if state is None:
            state = self.observer_states.setdefault(replica_id, ReplicaProgress(replica_id))
            state.directory_id = directory_id
        state.update_follower_state(now, fetch_offset, self.voter_states[self.local_id].end_offset)
        self._update_check_quorum(replica_id, now)
        return replica_id in self.voter_states and self._maybe_update_high_watermark()

    def _voters_by_descending_end_offset(self) -> list[ReplicaProgress]:
        return sorted(self.voter_states.values(),
                      key=lambda s: (s.end_offset is None, -(s.end_offset or 0), s.replica_id))

    def _maybe_update_high_watermark(self) -> bool:
        candidate = self._voters_by_descending_end_offset()[len(self.voter_states) // 2].end_offset
        if candidate is None or candidate <= self.epoch_start_offset:
            return False            # nothing of our own epoch is committed yet
        if self.high_watermark is not None and candidate <= self.high_watermark:
            return False            # never move back (a lower value would mean lost data)
        self.high_watermark = candidate
        return True

    def non_leader_voters_by_descending_fetch_offset(self) -> tuple[int, ...]:
        return tuple(s.replica_id for s in self._voters_by_descending_end_offset()
                     if s.replica_id != self.local_id)

    # ------------------------------------------------------------------ DescribeQuorum
    def describe(self, now: int) -> tuple[tuple[DescribedReplica, ...],
                                          tuple[DescribedReplica, ...]]:
        """(voters, observers) as DescribeQuorum reports them, dropping silent observers."""
        for replica_id in [r for r, s in self.observer_states.items()
                           if now - s.last_fetch_timestamp >= OBSERVER_SESSION_TIMEOUT_MS]:
            del self.observer_states[replica_id]
        voters = tuple(s.described(self.local_id, now) for s in self.voter_states.values())
        observers = tuple(self.observer_states[r].described(self.local_id, now)
                          for r in sorted(self.observer_states))
        return voters, observers
