"""`QuorumState`: the one place where a KRaft replica changes its epoch state.

Theory of operation
-------------------
A replica is always in one epoch state (see `epoch_state` and
`leader_state`).  `QuorumState` holds it, checks every move against the
transition table below, persists the new `ElectionState` *before* the move
takes effect when it changed (a "durable" transition: new epoch, new vote,
new leader), and draws the randomized election timeouts:
``election.timeout.ms + rng.randrange(election.timeout.ms)``, so that voters
rarely time out together.

`TRANSITIONS` and `OBSERVER_TRANSITIONS` are data on purpose: the widgets
draw the state diagram from them, so the picture cannot drift from the code.
Observers (brokers) only ever move between Unattached and Follower.

On start-up the replica resumes from the stored election state: a former
leader starts Resigned in the same epoch (it must not vote there again, and
records it may have lost on the crash must not reappear with the same
epoch); a former candidate starts as Candidate; a replica that knew a leader
starts as its Follower; otherwise Unattached.  If the log holds an epoch
newer than the file, the log wins.

Mirrors ``org.apache.kafka.raft.QuorumState`` (Kafka 4.0, with KIP-996's
Prospective state).  Simplified: a static voter set; no directory ids.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from minikafka.raft.epoch_state import (CandidateState, EpochState, FollowerState,
                                        ProspectiveState, ResignedState, UnattachedState)
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.quorum_state_store import ElectionState, QuorumStateStore
from minikafka.raft.replicated_log import OffsetAndEpoch

TRANSITIONS: dict[str, dict[str, str]] = {
    "Unattached": {
        "Unattached": "learned of a higher epoch, or granted a vote in this epoch",
        "Prospective": "election timeout expired",
        "Follower": "discovered a leader of this or a higher epoch",
    },
    "Prospective": {
        "Prospective": "granted a vote in this epoch",
        "Unattached": "learned of a higher epoch, or lost the pre-vote without a known leader",
        "Candidate": "a majority granted the pre-vote",
        "Follower": "discovered a leader, or lost the pre-vote and returns to the known leader",
    },
    "Candidate": {
        "Unattached": "learned of a higher epoch",
        "Prospective": "election timeout expired, or backoff after losing the election ended",
        "Leader": "a majority granted the vote",
        "Follower": "discovered a leader of this or a higher epoch",
    },
    "Leader": {
        "Unattached": "learned of a higher epoch",
        "Resigned": "graceful shutdown, resign request, or check-quorum failure",
        "Follower": "discovered a leader of a higher epoch",
    },
    "Follower": {
        "Unattached": "learned of a higher epoch",
        "Prospective": "fetch timeout expired",
        "Follower": "discovered a leader of a higher epoch",
    },
    "Resigned": {
        "Unattached": "learned of a higher epoch, or election timeout expired (epoch + 1)",
        "Follower": "discovered a leader of a higher epoch",
    },
}
"""Voter transitions: ``TRANSITIONS[from][to]`` is the trigger, in words."""

OBSERVER_TRANSITIONS: dict[str, dict[str, str]] = {
    "Unattached": {
        "Unattached": "learned of a higher epoch",
        "Follower": "discovered a leader of this or a higher epoch",
    },
    "Follower": {
        "Unattached": "learned of a higher epoch",
        "Follower": "discovered a leader of a higher epoch",
    },
}
"""Observer (broker) transitions, same shape as `TRANSITIONS`."""


@dataclass(frozen=True, slots=True)
class LeaderAndEpoch:
    """The leader a replica believes in (``org.apache.kafka.raft.LeaderAndEpoch``)."""

    leader_id: int | None
    epoch: int

    def is_leader(self, node_id: int) -> bool:
        return self.leader_id == node_id


class QuorumState:
    def __init__(self, local_id: int, voters: frozenset[int], store: QuorumStateStore,
                 election_timeout_ms: int, fetch_timeout_ms: int, rng: random.Random):
        self.local_id = local_id
        self.voters = voters
        self.store = store
        self.election_timeout_ms = election_timeout_ms
        self.fetch_timeout_ms = fetch_timeout_ms
        self.rng = rng                                  # the host node's seeded Random
        self.state: EpochState = UnattachedState(0, voters, None, None)   # replaced by initialize

    # ------------------------------------------------------------------ queries
    @property
    def is_voter(self) -> bool:
        return self.local_id in self.voters

    @property
    def is_observer(self) -> bool:
        return not self.is_voter

    @property
    def epoch(self) -> int:
        return self.state.epoch

    @property
    def leader_id(self) -> int | None:
        return self.state.leader_id

    @property
    def voted_id(self) -> int | None:
        return self.state.voted_id

    @property
    def high_watermark(self) -> int | None:
        return self.state.high_watermark

    @property
    def name(self) -> str:
        return self.state.name

    @property
    def leader_and_epoch(self) -> LeaderAndEpoch:
        return LeaderAndEpoch(self.state.leader_id, self.state.epoch)

    def is_only_voter(self) -> bool:
        return self.voters == frozenset({self.local_id})

    def random_election_timeout_ms(self) -> int:
        """Kafka's ``electionTimeoutMs + random.nextInt(electionTimeoutMs)``."""
        if self.election_timeout_ms == 0:
            return 0
        return self.election_timeout_ms + self.rng.randrange(self.election_timeout_ms)

    # ------------------------------------------------------------------ start-up
    def initialize(self, log_end: OffsetAndEpoch, now: int) -> None:
        election = self.store.read_election_state() or ElectionState(0, voters=self.voters)
        deadline = None if self.is_observer else now + self.random_election_timeout_ms()
        if election.voted_id is not None and self.is_observer:
            raise RuntimeError(f"Initialized quorum state ({election}) with a voted candidate, "
                               f"but the local id {self.local_id} is not a voter")
        if election.epoch < log_end.epoch:
            state: EpochState = UnattachedState(log_end.epoch, self.voters, None, deadline)
        elif election.is_leader(self.local_id) and self.is_voter:
            state = ResignedState(self.local_id, election.epoch, self.voters,
                                  now + self.random_election_timeout_ms(), ())
        elif election.is_voted_candidate(self.local_id):
            state = CandidateState(self.local_id, election.epoch, self.voters, None, 1,
                                   now + self.random_election_timeout_ms())
        elif election.leader_id is not None and election.leader_id in self.voters:
            state = FollowerState(election.epoch, election.leader_id, self.voters, None,
                                  self.fetch_timeout_ms, now, election.voted_id)
        else:
            state = UnattachedState(election.epoch, self.voters, None, deadline,
                                    election.leader_id, election.voted_id)
        self._durable_transition_to(state)

    # ------------------------------------------------------------------ transitions
    def _check(self, to: str) -> None:
        table = TRANSITIONS if self.is_voter else OBSERVER_TRANSITIONS
        if to not in table.get(self.state.name, {}):
            raise RuntimeError(f"Cannot transition to {to} from current state {self.state}")

    def _durable_transition_to(self, state: EpochState) -> None:
        self.store.write_election_state(state.election())
        self.state = state

    def _memory_transition_to(self, state: EpochState) -> None:
        self.state = state

    def transition_to_unattached(self, epoch: int, now: int, leader_id: int | None = None) -> None:
        """A higher epoch without a known leader, or (Prospective/Resigned) giving up."""
        current = self.state
        if epoch < current.epoch or (epoch == current.epoch and current.name != "Prospective"):
            raise RuntimeError(f"Cannot transition to Unattached with epoch {epoch} from "
                               f"current state {current}")
        self._check("Unattached")
        deadline = self._unattached_deadline(now)
        voted = current.voted_id if epoch == current.epoch else None
        self._durable_transition_to(UnattachedState(epoch, self.voters, current.high_watermark,
                                                    deadline, leader_id, voted))

    def _unattached_deadline(self, now: int) -> int | None:
        """Keep a running election timer; start a fresh one otherwise (Kafka's rules)."""
        current = self.state
        if self.is_observer:
            return None
        if isinstance(current, (CandidateState, UnattachedState, ResignedState)) \
                and current.election_deadline is not None:
            return max(now, current.election_deadline)
        if isinstance(current, ProspectiveState) and not current.epoch_election.is_vote_rejected():
            return max(now, current.election_deadline)
        return now + self.random_election_timeout_ms()

    def add_voted_state(self, epoch: int, candidate_id: int, now: int) -> None:
        """Record a binding vote in this epoch (Unattached or Prospective without a vote)."""
        current = self.state
        if candidate_id == self.local_id or epoch != current.epoch or current.voted_id is not None \
                or not isinstance(current, (UnattachedState, ProspectiveState)):
            raise RuntimeError(f"Cannot add voted key ({candidate_id}) to current state "
                               f"({current}) in epoch {epoch}")
        self._check(current.name)
        deadline = now + self.random_election_timeout_ms()   # the candidate is as likely as us
        if isinstance(current, UnattachedState):
            new: EpochState = UnattachedState(epoch, self.voters, current.high_watermark, deadline,
                                              current.leader_id, candidate_id)
        else:
            new = ProspectiveState(self.local_id, epoch, self.voters, current.high_watermark,
                                   current.retries, deadline, current.leader_id, candidate_id)
        self._durable_transition_to(new)

    def transition_to_follower(self, epoch: int, leader_id: int, now: int) -> None:
        current = self.state
        if leader_id == self.local_id or leader_id not in self.voters:
            raise RuntimeError(f"Cannot transition to Follower with leader {leader_id} and epoch "
                               f"{epoch} since it matches the local node.id {self.local_id} or "
                               f"is not a voter")
        if epoch < current.epoch or (epoch == current.epoch
                                     and current.name in ("Follower", "Leader")):
            raise RuntimeError(f"Cannot transition to Follower with leader {leader_id} and epoch "
                               f"{epoch} from state {current}")
        self._check("Follower")
        voted = current.voted_id if epoch == current.epoch else None   # never vote twice per epoch
        self._durable_transition_to(FollowerState(epoch, leader_id, self.voters,
                                                  current.high_watermark, self.fetch_timeout_ms,
                                                  now, voted))

    def transition_to_prospective(self, now: int) -> None:
        current = self.state
        if self.is_observer or current.name in ("Leader", "Prospective"):
            raise RuntimeError(f"Cannot transition to Prospective since the local broker.id="
                               f"{self.local_id} is state {current}")
        self._check("Prospective")
        retries = current.retries + 1 if isinstance(current, CandidateState) else 1
        # Nothing persisted changes: same epoch, same leader, same vote.
        self._memory_transition_to(ProspectiveState(
            self.local_id, current.epoch, self.voters, current.high_watermark, retries,
            now + self.random_election_timeout_ms(), current.leader_id, current.voted_id))

    def transition_to_candidate(self, now: int) -> None:
        current = self.state
        if not isinstance(current, ProspectiveState):
            raise RuntimeError(f"Cannot transition to Candidate since the local broker.id="
                               f"{self.local_id} is state {current}")
        self._check("Candidate")
        self._durable_transition_to(CandidateState(
            self.local_id, current.epoch + 1, self.voters, current.high_watermark,
            current.retries, now + self.random_election_timeout_ms()))

    def transition_to_leader(self, epoch_start_offset: int, now: int) -> LeaderState:
        current = self.state
        if not isinstance(current, CandidateState):
            raise RuntimeError(f"Cannot transition to Leader from current state {current}")
        if not current.epoch_election.is_vote_granted():
            raise RuntimeError("Cannot become leader without majority votes granted")
        self._check("Leader")
        leader = LeaderState(self.local_id, current.epoch, epoch_start_offset, self.voters,
                             tuple(current.epoch_election.granting_voters),
                             self.fetch_timeout_ms, now)
        self._durable_transition_to(leader)
        return leader

    def transition_to_resigned(self, preferred_successors: tuple[int, ...], now: int) -> None:
        if not isinstance(self.state, LeaderState):
            raise RuntimeError(f"Invalid transition to Resigned state from {self.state}")
        self._check("Resigned")
        # Soft state: a leader always restarts as Resigned anyway, so nothing to persist.
        self._memory_transition_to(ResignedState(
            self.local_id, self.state.epoch, self.voters,
            now + self.random_election_timeout_ms(), preferred_successors))
