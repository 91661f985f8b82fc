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

The table is keyed by (state, `QuorumEvent`), as h11 keys its connection
states: every ``transition_to_*`` method names the event that moves it, and
an event the table does not list for the current state raises
`IllegalTransition` (so does an event that leads elsewhere).  The transition
methods add the checks a table cannot hold (epochs, ids).  `TRANSITIONS` and
`OBSERVER_TRANSITIONS` are data on purpose: the stepper's state diagram
(``minikafka/testing/quorum_state_diagram.py``: Graphviz DOT or a list of
edges) is drawn from them, so the picture cannot drift from the code.  Observers
(brokers) only ever move between Unattached and Follower.

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
from enum import Enum

from minikafka.raft.epoch_state import (CandidateState, EpochState, FollowerState,
                                        ProspectiveState, ResignedState, UnattachedState)
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.quorum_state_store import ElectionState, QuorumStateStore
from minikafka.raft.replicated_log import OffsetAndEpoch

class QuorumEvent(Enum):
    """What moves a replica from one epoch state to the next; the value says it in words."""

    HIGHER_EPOCH = "learned of a higher epoch"
    LEADER_DISCOVERED = "discovered a leader of this or a higher epoch"
    VOTE_GRANTED = "granted a vote in this epoch"
    ELECTION_TIMEOUT = "election timeout expired"
    FETCH_TIMEOUT = "fetch timeout expired"
    BACKOFF_EXPIRED = "backoff after losing the election ended"
    PRE_VOTE_WON = "a majority granted the pre-vote"
    PRE_VOTE_LOST = "lost the pre-vote, or its election timed out"
    PRE_VOTE_LOST_TO_LEADER = "lost the pre-vote, or its election timed out; a leader is known"
    VOTE_WON = "a majority granted the vote"
    SHUTDOWN = "graceful shutdown"
    RESIGN_REQUESTED = "resignation requested"
    CHECK_QUORUM_FAILED = "no majority fetched within the check-quorum timeout"
    ONLY_VOTER = "the only voter elects itself at once"


_E = QuorumEvent

TRANSITIONS: dict[tuple[str, QuorumEvent], str] = {
    ("Unattached", _E.HIGHER_EPOCH): "Unattached",
    ("Unattached", _E.VOTE_GRANTED): "Unattached",
    ("Unattached", _E.LEADER_DISCOVERED): "Follower",
    ("Unattached", _E.ELECTION_TIMEOUT): "Prospective",
    ("Unattached", _E.ONLY_VOTER): "Prospective",
    ("Prospective", _E.HIGHER_EPOCH): "Unattached",
    ("Prospective", _E.VOTE_GRANTED): "Prospective",
    ("Prospective", _E.LEADER_DISCOVERED): "Follower",
    ("Prospective", _E.PRE_VOTE_WON): "Candidate",
    ("Prospective", _E.PRE_VOTE_LOST): "Unattached",
    ("Prospective", _E.PRE_VOTE_LOST_TO_LEADER): "Follower",
    ("Candidate", _E.HIGHER_EPOCH): "Unattached",
    ("Candidate", _E.LEADER_DISCOVERED): "Follower",
    ("Candidate", _E.ELECTION_TIMEOUT): "Prospective",
    ("Candidate", _E.BACKOFF_EXPIRED): "Prospective",
    ("Candidate", _E.VOTE_WON): "Leader",
    ("Leader", _E.HIGHER_EPOCH): "Unattached",
    ("Leader", _E.LEADER_DISCOVERED): "Follower",
    ("Leader", _E.SHUTDOWN): "Resigned",
    ("Leader", _E.RESIGN_REQUESTED): "Resigned",
    ("Leader", _E.CHECK_QUORUM_FAILED): "Resigned",
    ("Follower", _E.HIGHER_EPOCH): "Unattached",
    ("Follower", _E.LEADER_DISCOVERED): "Follower",
    ("Follower", _E.FETCH_TIMEOUT): "Prospective",
    ("Resigned", _E.HIGHER_EPOCH): "Unattached",
    ("Resigned", _E.LEADER_DISCOVERED): "Follower",
    ("Resigned", _E.ELECTION_TIMEOUT): "Unattached",
    ("Resigned", _E.ONLY_VOTER): "Unattached",
}
"""Voter transitions: ``TRANSITIONS[(state, event)]`` is the state ``event`` moves ``state`` to.
A pair missing from the table is illegal: `QuorumState` raises `IllegalTransition`.  A Follower
or Leader moves on LEADER_DISCOVERED only for a higher epoch, Resigned to Unattached on
ELECTION_TIMEOUT one epoch later (checks the transition methods add)."""

OBSERVER_TRANSITIONS: dict[tuple[str, QuorumEvent], str] = {
    ("Unattached", _E.HIGHER_EPOCH): "Unattached",
    ("Unattached", _E.LEADER_DISCOVERED): "Follower",
    ("Follower", _E.HIGHER_EPOCH): "Unattached",
    ("Follower", _E.LEADER_DISCOVERED): "Follower",
}
"""Observer (broker) transitions, same shape as `TRANSITIONS`."""


class IllegalTransition(RuntimeError):
    """An event the transition table does not allow in the current state (h11's
    ``LocalProtocolError``, in spirit): a bug in the caller, never a peer's doing."""


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
    def next_state(self, event: QuorumEvent) -> str:
        """The state ``event`` leads to from the current one; `IllegalTransition` if none."""
        table = TRANSITIONS if self.is_voter else OBSERVER_TRANSITIONS
        target = table.get((self.state.name, event))
        if target is None:
            raise IllegalTransition(f"Cannot handle {event.name} in current state {self.state}")
        return target

    def _check(self, event: QuorumEvent, to: str) -> None:
        """Consult the table: ``event`` must be legal here and lead to ``to``."""
        target = self.next_state(event)
        if target != to:
            raise IllegalTransition(f"Cannot transition to {to} from current state {self.state}: "
                                    f"{event.name} leads to {target}")

    def _durable_transition_to(self, state: EpochState) -> None:
        self.store.write_election_state(state.election())
        self.state = state

    def _memory_transition_to(self, state: EpochState) -> None:
        self.state = state

    def transition_to_unattached(self, event: QuorumEvent, epoch: int, now: int,
                                 leader_id: int | None = None) -> None:
        """A higher epoch without a known leader, or (Prospective/Resigned) giving up."""
        current = self.state
        if epoch < current.epoch or (epoch == current.epoch and current.name != "Prospective"):
            raise RuntimeError(f"Cannot transition to Unattached with epoch {epoch} from "
                               f"current state {current}")
        self._check(event, "Unattached")
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
        self._check(QuorumEvent.VOTE_GRANTED, current.name)
        deadline = now + self.random_election_timeout_ms()   # the candidate is as likely as us
        if isinstance(current, UnattachedState):
            new: EpochState = UnattachedState(epoch, self.voters, current.high_watermark, deadline,
                                              current.leader_id, candidate_id)
        else:
            new = ProspectiveState(self.local_id, epoch, self.voters, current.high_watermark,
                                   current.retries, deadline, current.leader_id, candidate_id)
        self._durable_transition_to(new)

    def transition_to_follower(self, event: QuorumEvent, epoch: int, leader_id: int,
                               now: int) -> None:
        current = self.state
        if leader_id == self.local_id or leader_id not in self.voters:
            raise RuntimeError(f"Cannot transition to Follower with leader {leader_id} and epoch "
                               f"{epoch} since it matches the local node.id {self.local_id} or "
                               f"is not a voter")
        if epoch < current.epoch or (epoch == current.epoch
                                     and current.name in ("Follower", "Leader")):
            raise RuntimeError(f"Cannot transition to Follower with leader {leader_id} and epoch "
                               f"{epoch} from state {current}")
        self._check(event, "Follower")
        voted = current.voted_id if epoch == current.epoch else None   # never vote twice per epoch
        self._durable_transition_to(FollowerState(epoch, leader_id, self.voters,
                                                  current.high_watermark, self.fetch_timeout_ms,
                                                  now, voted))

    def transition_to_prospective(self, event: QuorumEvent, now: int) -> None:
        current = self.state
        if self.is_observer or current.name in ("Leader", "Prospective"):
            raise RuntimeError(f"Cannot transition to Prospective since the local broker.id="
                               f"{self.local_id} is state {current}")
        self._check(event, "Prospective")
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
        self._check(QuorumEvent.PRE_VOTE_WON, "Candidate")
        self._durable_transition_to(CandidateState(
            self.local_id, current.epoch + 1, self.voters, current.high_watermark,
            current.retries, now + self.random_election_timeout_ms()))

    def transition_to_leader(self, epoch_start_offset: int, now: int) -> LeaderState:
        current = self.state
        if not isinstance(current, CandidateState):
            raise RuntimeError(f"Cannot transition to Leader from current state {current}")
        if not current.epoch_election.is_vote_granted():
            raise RuntimeError("Cannot become leader without majority votes granted")
        self._check(QuorumEvent.VOTE_WON, "Leader")
        leader = LeaderState(self.local_id, current.epoch, epoch_start_offset, self.voters,
                             tuple(current.epoch_election.granting_voters),
                             self.fetch_timeout_ms, now)
        self._durable_transition_to(leader)
        return leader

    def transition_to_resigned(self, event: QuorumEvent, preferred_successors: tuple[int, ...],
                               now: int) -> None:
        if not isinstance(self.state, LeaderState):
            raise RuntimeError(f"Invalid transition to Resigned state from {self.state}")
        self._check(event, "Resigned")
        # Soft state: a leader always restarts as Resigned anyway, so nothing to persist.
        self._memory_transition_to(ResignedState(
            self.local_id, self.state.epoch, self.voters,
            now + self.random_election_timeout_ms(), preferred_successors))
