"""The KRaft RPCs (KIP-595): Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch, DescribeQuorum.

Theory of operation
-------------------
Controllers and brokers that host a `KafkaRaftClient` talk to each other with
five request/response pairs.  They travel between nodes as these Python
objects (the client-facing wire protocol in ``network/`` is the only place
that encodes Kafka bytes); their field names are the snake_case names of
Kafka's JSON message specs (``clients/src/main/resources/common/message/``):

* ``Vote`` (API 52) -- a prospective voter asks for a *pre-vote*
  (``pre_vote=True``, KIP-996: "would you vote for me?", nothing is
  persisted), a candidate asks for a binding vote.  Both carry the sender's
  last log position so the receiver can refuse a candidate whose log is
  behind its own.
* ``BeginQuorumEpoch`` (API 53) -- a new leader announces itself to the voters.
* ``EndQuorumEpoch`` (API 54) -- a leader that resigns tells the voters, with a
  list of preferred successors (most caught-up first) so the best one runs first.
* ``Fetch`` (API 1) -- followers and observers pull the log from the leader.
  The request names the fetcher's log end offset and the epoch of its last
  batch; the leader answers with batches, its high watermark, or a
  ``diverging_epoch`` telling the fetcher where to truncate.
* ``DescribeQuorum`` (API 55) -- the leader's view of every voter and observer,
  which ``kafka-metadata-quorum.sh describe --status/--replication`` prints.

Simplifications: every request concerns the single partition
``__cluster_metadata-0``, so the ``Topics[Partitions[...]]`` nesting is
flattened and the top-level and partition-level error codes share one
``error_code``.  Voter directory ids (KIP-853) are not sent: the sandbox runs
a static voter set (``kraft.version`` 0).  Records are `Batch` objects, not
bytes, so there are no byte limits (``MaxBytes``).  FetchSnapshot is absent:
the sandbox never truncates the metadata log from the front.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.uuid import Uuid
from minikafka.raft.replicated_log import Batch

NO_LEADER = -1   # Kafka's sentinel for "leader unknown" in leader_id fields


def leader_id_field(leader: int | None) -> int:
    """A known leader's id, else the sentinel, as a leader_id field carries it."""
    return NO_LEADER if leader is None else leader


def has_valid_cluster_id(ours: str, theirs: str | None) -> bool:
    """A request from another cluster is refused; one without a cluster id is not checked
    (as Kafka's KafkaRaftClient.hasValidClusterId)."""
    return theirs is None or theirs == ours


@dataclass(frozen=True, slots=True)
class VoteRequest:
    """VoteRequest v2 (KIP-996): a vote or a pre-vote for ``replica_id`` in ``replica_epoch``."""

    cluster_id: str | None       # None is accepted by every receiver, as in Kafka
    replica_epoch: int           # candidate: its new epoch; prospective: its current epoch
    replica_id: int              # the node asking for the vote
    last_offset_epoch: int       # epoch of the sender's last batch
    last_offset: int             # the sender's log end offset
    pre_vote: bool = False       # True while the sender is only Prospective
    voter_id: int = NO_LEADER    # the receiver the request is meant for


@dataclass(frozen=True, slots=True)
class VoteResponse:
    error_code: int              # Errors code (top level and partition level combined)
    leader_id: int               # the responder's known leader, or -1
    leader_epoch: int            # the responder's current epoch
    vote_granted: bool

    @property
    def error(self) -> Errors:
        return Errors.for_code(self.error_code)


@dataclass(frozen=True, slots=True)
class BeginQuorumEpochRequest:
    """Sent by a new leader to every other voter until each acknowledges it."""

    cluster_id: str | None
    leader_id: int
    leader_epoch: int
    voter_id: int = NO_LEADER    # the receiver the request is meant for


@dataclass(frozen=True, slots=True)
class BeginQuorumEpochResponse:
    error_code: int
    leader_id: int
    leader_epoch: int

    @property
    def error(self) -> Errors:
        return Errors.for_code(self.error_code)


@dataclass(frozen=True, slots=True)
class EndQuorumEpochRequest:
    """Sent by a resigning leader; ``preferred_candidates`` are ordered most caught-up first."""

    cluster_id: str | None
    leader_id: int
    leader_epoch: int
    preferred_candidates: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class EndQuorumEpochResponse:
    error_code: int
    leader_id: int
    leader_epoch: int

    @property
    def error(self) -> Errors:
        return Errors.for_code(self.error_code)


@dataclass(frozen=True, slots=True)
class FetchRequest:
    """A Raft fetch of ``__cluster_metadata-0`` from the fetcher's log end offset."""

    cluster_id: str | None
    replica_id: int              # ReplicaState.ReplicaId: the fetching voter or observer
    max_wait_ms: int             # how long the leader may park the request if there is no new data
    current_leader_epoch: int    # the fetcher's epoch; the leader fences older and newer ones
    fetch_offset: int
    last_fetched_epoch: int      # epoch of the batch just before fetch_offset (0 for an empty log)
    replica_directory_id: Uuid = Uuid.ZERO  # the fetcher's metadata log directory id
    high_watermark: int = 2**63 - 1   # Fetch v17 (KAFKA-14145): the fetcher's known HW (-1 unknown; max: not sent)


@dataclass(frozen=True, slots=True)
class EpochEndOffset:
    """FetchResponse.DivergingEpoch: the last epoch shared with the fetcher, and its end."""

    epoch: int
    end_offset: int


@dataclass(frozen=True, slots=True)
class LeaderIdAndEpoch:
    """FetchResponse.CurrentLeader."""

    leader_id: int
    leader_epoch: int


@dataclass(frozen=True, slots=True)
class FetchResponse:
    error_code: int
    high_watermark: int                       # -1 when the leader does not know it yet
    log_start_offset: int
    current_leader: LeaderIdAndEpoch
    diverging_epoch: EpochEndOffset | None = None   # set when the fetcher must truncate first
    records: tuple[Batch, ...] = ()

    @property
    def error(self) -> Errors:
        return Errors.for_code(self.error_code)


@dataclass(frozen=True, slots=True)
class DescribeQuorumRequest:
    """Asks the quorum leader for its view of the replicas (single partition, so no fields)."""


@dataclass(frozen=True, slots=True)
class ReplicaState:
    """DescribeQuorumResponse.ReplicaState: one voter or observer as the leader sees it."""

    replica_id: int
    replica_directory_id: Uuid       # AAAAAAAAAAAAAAAAAAAAAA for the voters of a static quorum
    log_end_offset: int              # -1 when unknown
    last_fetch_timestamp: int        # leader clock (ms) at the replica's last fetch, -1 if unknown
    last_caught_up_timestamp: int    # -1 if unknown; the leader reports "now" for itself


@dataclass(frozen=True, slots=True)
class Listener:
    """DescribeQuorumResponse.Node.Listener: one endpoint of a voter."""

    name: str
    host: str
    port: int

    @classmethod
    def parse(cls, endpoint: str) -> "Listener":
        """Parse ``CONTROLLER://localhost:9093`` (IPv6 hosts in brackets)."""
        name, sep, address = endpoint.partition("://")
        host, colon, port = address.rpartition(":")
        if not sep or not colon or not name or not port.isdigit():
            raise KafkaException(f"Unable to parse {endpoint} to a broker endpoint")
        return cls(name, host.strip("[]"), int(port))

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.name}://{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class DescribeQuorumNode:
    """DescribeQuorumResponse.Node: a voter's id and listeners."""

    node_id: int
    listeners: tuple[Listener, ...]


@dataclass(frozen=True, slots=True)
class DescribeQuorumResponse:
    error_code: int
    error_message: str | None = None
    leader_id: int = NO_LEADER
    leader_epoch: int = -1
    high_watermark: int = -1
    current_voters: tuple[ReplicaState, ...] = ()
    observers: tuple[ReplicaState, ...] = ()
    nodes: tuple[DescribeQuorumNode, ...] = ()

    @property
    def error(self) -> Errors:
        return Errors.for_code(self.error_code)


RAFT_REQUESTS = (VoteRequest, BeginQuorumEpochRequest, EndQuorumEpochRequest, FetchRequest,
                 DescribeQuorumRequest)
"""The request types `KafkaRaftClient.handle_request` answers; anything else is the host's."""
