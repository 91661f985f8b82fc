"""The states a KRaft replica can be in during one epoch (all but the leader's, see `leader_state`).

Theory of operation
-------------------
At any moment a replica is in exactly one *epoch state*; `QuorumState`
decides the transitions.  Each state knows its epoch, what must be persisted
about it (`ElectionState`), its deadline, and whether it may grant a vote:

* `UnattachedState` -- the epoch is known but no leader is (yet); it may hold
  a vote given in this epoch.  When its election deadline passes a voter
  becomes Prospective.
* `ProspectiveState` (KIP-996) -- asks the voters for *pre-votes* without
  bumping the epoch.  A majority makes it a Candidate; losing sends it back to
  Follower (if it knew a leader) or Unattached.  This keeps a replica cut off
  from the leader from disrupting the quorum with ever higher epochs.
* `CandidateState` -- has bumped the epoch, voted for itself (persisted) and
  asks for real votes.  A majority makes it Leader; rejection starts an
  exponential backoff, after which it is Prospective again.
* `FollowerState` -- knows the leader and fetches from it.  No successful
  fetch for ``controller.quorum.fetch.timeout.ms`` turns a voter Prospective.
* `ResignedState` -- a leader that stepped down (or restarted); it keeps
  telling the voters with EndQuorumEpoch until they acknowledge.

Vote rules (Kafka 4.x): a binding vote is granted at most once per epoch,
only by Unattached or Prospective replicas that know no leader, and only to a
candidate whose log is at least as up-to-date.  A pre-vote is granted by
anyone but the leader whose log is not ahead of the asker's -- except a
follower that has already fetched successfully from its leader in this epoch.

Mirrors ``UnattachedState``, ``ProspectiveState``, ``CandidateState``,
``FollowerState``, ``ResignedState`` and ``internals.EpochElection``.
Simplified: timers are absolute deadlines in ms (the client polls at the
earliest one); no directory ids in voter keys.
"""

from __future__ import annotations

from typing import ClassVar

from minikafka.raft.quorum_state_store import ElectionState


class EpochElection:
    """Granted/rejected votes of one (pre-)election; the local replica has granted itself."""

    def __init__(self, voters: frozenset[int], local_id: int):
        self._votes: dict[int, bool | None] = {v: None for v in voters}   # None = not recorded
        self._votes[local_id] = True

    @property
    def majority_size(self) -> int:
        return len(self._votes) // 2 + 1

    def record_vote(self, voter_id: int, granted: bool) -> bool:
        """Record a vote; False if the voter had already answered (the first answer counts)."""
        if voter_id not in self._votes:
            raise ValueError(f"Attempt to record vote from non-voter {voter_id}")
        if self._votes[voter_id] is not None:
            return False
        self._votes[voter_id] = granted
        return True

    def _count(self, value: bool | None) -> int:
        return sum(1 for v in self._votes.values() if v is value)

    def is_vote_granted(self) -> bool:
        return self._count(True) >= self.majority_size

    def is_vote_rejected(self) -> bool:
        """True once enough voters said no that a majority is out of reach."""
        return self._count(True) + self._count(None) < self.majority_size

    def voters_in_state(self, value: bool | None) -> list[int]:
        return sorted(v for v, vote in self._votes.items() if vote is value)

    @property
    def granting_voters(self) -> list[int]:
        return self.voters_in_state(True)

    @property
    def rejecting_voters(self) -> list[int]:
        return self.voters_in_state(False)

    @property
    def unrecorded_voters(self) -> list[int]:
        return self.voters_in_state(None)


class EpochState:
    """Common shape of every epoch state (``org.apache.kafka.raft.EpochState``)."""

    name: ClassVar[str] = "?"

    def __init__(self, epoch: int, voters: frozenset[int], high_watermark: int | None):
        self.epoch = epoch                    # the epoch this state belongs to
        self.voters = voters                  # the static voter set
        self.high_watermark = high_watermark  # committed offset known here, None if unknown

    leader_id: int | None = None
    voted_id: int | None = None

    def election(self) -> ElectionState:
        return ElectionState(self.epoch, self.leader_id, self.voted_id, self.voters)

    def can_grant_vote(self, replica_id: int, is_log_up_to_date: bool, is_pre_vote: bool) -> bool:
        raise NotImplementedError

    def next_deadline(self) -> int | None:
        """When this state needs attention next (ms), if ever."""
        return None

    def __repr__(self) -> str:
        return (f"{self.name}(epoch={self.epoch}, leaderId={self.leader_id}, "
                f"votedId={self.voted_id}, highWatermark={self.high_watermark})")


def unattached_or_prospective_can_grant_vote(leader_id: int | None, voted_id: int | None,
                                             replica_id: int, is_log_up_to_date: bool,
                                             is_pre_vote: bool) -> bool:
    """Kafka's ``QuorumState.unattachedOrProspectiveCanGrantVote``."""
    if is_pre_vote:
        return is_log_up_to_date
    if voted_id is not None:
        return voted_id == replica_id     # a vote may be repeated, never moved
    if leader_id is not None:
        return False                      # the epoch already has a leader
    return is_log_up_to_date


class UnattachedState(EpochState):
    name = "Unattached"

    def __init__(self, epoch: int, voters: frozenset[int], high_watermark: int | None,
                 election_deadline: int | None, leader_id: int | None = None,
                 voted_id: int | None = None):
        super().__init__(epoch, voters, high_watermark)
        self.election_deadline = election_deadline   # None for observers: they never campaign
        self.leader_id = leader_id                   # a leader learned but not reachable yet
        self.voted_id = voted_id                     # the vote cast in this epoch, if any

    def can_grant_vote(self, replica_id: int, is_log_up_to_date: bool, is_pre_vote: bool) -> bool:
        return unattached_or_prospective_can_grant_vote(self.leader_id, self.voted_id, replica_id,
                                                        is_log_up_to_date, is_pre_vote)

    def next_deadline(self) -> int | None:
        return self.election_deadline


class ProspectiveState(EpochState):
    name = "Prospective"

    def __init__(self, local_id: int, epoch: int, voters: frozenset[int],
                 high_watermark: int | None, retries: int, election_deadline: int,
                 leader_id: int | None = None, voted_id: int | None = None):
        super().__init__(epoch, voters, high_watermark)
        self.local_id = local_id
        self.retries = retries                         # failed elections in a row, for the backoff
        self.election_deadline = election_deadline     # give up the pre-vote round at this time
        self.leader_id = leader_id                     # last known leader: go back to it on failure
        self.voted_id = voted_id
        self.epoch_election = EpochElection(voters, local_id)   # pre-votes received

    def can_grant_vote(self, replica_id: int, is_log_up_to_date: bool, is_pre_vote: bool) -> bool:
        return unattached_or_prospective_can_grant_vote(self.leader_id, self.voted_id, replica_id,
                                                        is_log_up_to_date, is_pre_vote)

    def next_deadline(self) -> int | None:
        return self.election_deadline


class CandidateState(EpochState):
    name = "Candidate"

    def __init__(self, local_id: int, epoch: int, voters: frozenset[int],
                 high_watermark: int | None, retries: int, election_deadline: int):
        super().__init__(epoch, voters, high_watermark)
        self.local_id = local_id
        self.voted_id = local_id                       # a candidate always votes for itself
        self.retries = retries
        self.election_deadline = election_deadline
        self.backoff_deadline: int | None = None       # set once the election is lost
        self.epoch_election = EpochElection(voters, local_id)   # votes received

    def start_backing_off(self, now: int, backoff_ms: int) -> None:
        self.backoff_deadline = now + backoff_ms

    @property
    def is_backing_off(self) -> bool:
        return self.backoff_deadline is not None

    def can_grant_vote(self, replica_id: int, is_log_up_to_date: bool, is_pre_vote: bool) -> bool:
        return is_pre_vote and is_log_up_to_date

    def next_deadline(self) -> int | None:
        if self.backoff_deadline is not None:
            return self.backoff_deadline
        return self.election_deadline


class FollowerState(EpochState):
    name = "Follower"

    def __init__(self, epoch: int, leader_id: int, voters: frozenset[int],
                 high_watermark: int | None, fetch_timeout_ms: int, now: int,
                 voted_id: int | None = None):
        super().__init__(epoch, voters, high_watermark)
        self.leader_id = leader_id
        self.voted_id = voted_id                        # kept so a restart cannot vote again
        self.fetch_timeout_ms = fetch_timeout_ms
        self.fetch_deadline = now + fetch_timeout_ms    # no good fetch by then: leader lost
        self.has_fetched_from_leader = False            # until then, pre-votes are still granted

    def reset_fetch_timeout(self, now: int) -> None:
        self.fetch_deadline = now + self.fetch_timeout_ms
        self.has_fetched_from_leader = True

    def override_fetch_timeout(self, now: int, timeout_ms: int) -> None:
        self.fetch_deadline = now + timeout_ms

    def update_high_watermark(self, new_high_watermark: int) -> bool:
        if self.high_watermark is not None:
            if new_high_watermark < self.high_watermark:
                raise ValueError(f"Non-monotonic update of high watermark from "
                                 f"{self.high_watermark} to {new_high_watermark}")
            if new_high_watermark == self.high_watermark:
                return False
        self.high_watermark = new_high_watermark
        return True

    def can_grant_vote(self, replica_id: int, is_log_up_to_date: bool, is_pre_vote: bool) -> bool:
        return is_pre_vote and not self.has_fetched_from_leader and is_log_up_to_date

    def next_deadline(self) -> int | None:
        return self.fetch_deadline


class ResignedState(EpochState):
    name = "Resigned"

    def __init__(self, local_id: int, epoch: int, voters: frozenset[int], election_deadline: int,
                 preferred_successors: tuple[int, ...]):
        super().__init__(epoch, voters, None)
        self.local_id = local_id
        self.leader_id = local_id                        # still the leader of record for this epoch
        self.election_deadline = election_deadline
        self.preferred_successors = preferred_successors  # most caught-up voters first
        self.unacked_voters = set(voters) - {local_id}    # still to receive EndQuorumEpoch

    def acknowledge_resignation(self, voter_id: int) -> None:
        self.unacked_voters.discard(voter_id)

    def can_grant_vote(self, replica_id: int, is_log_up_to_date: bool, is_pre_vote: bool) -> bool:
        return is_pre_vote and is_log_up_to_date

    def next_deadline(self) -> int | None:
        return self.election_deadline
