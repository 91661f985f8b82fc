"""``kafka-metadata-quorum.sh describe --status`` and ``--replication``, as Kafka 4.3.1 prints them.

Theory of operation
-------------------
Both views print the quorum leader's answer to DescribeQuorum (API 55): for
every voter and observer its replica id, metadata-log directory id, log end
offset (LEO), and when the leader last heard a fetch from it and last saw it
caught up (-1 when unknown).

``--status`` prints eight labelled lines (labels padded to 24 columns).
``MaxFollowerLag`` is the leader's LEO minus the smallest voter LEO; the
"max lag follower" is the *first* voter with that smallest LEO, in the
order the leader listed them, and ``MaxFollowerLagTimeMs`` is 0 when that
voter is the leader itself, otherwise the leader's last-caught-up time minus
the follower's (-1 when either is unknown).  Voters and observers print as
``[{"id": 1001, "endpoints": ["CONTROLLER://localhost:9093"]}, ...]``: the
``directoryId`` is left out when it is the zero id (a static quorum), the
endpoints when the replica has none (observers, i.e. brokers).

``--replication`` prints a table (``ToolsUtils.prettyPrintTable``): every cell
padded to its column's widest value, each followed by a tab, the last one
too.  Rows: the leader, the other voters, then the observers.  With
``--human-readable`` the two timestamps print as ``<n> ms ago``, measured
against the tool's clock; a timestamp in the future (or not after the epoch)
is an error, as Kafka treats it as clock drift.

Mirrors ``org.apache.kafka.tools.MetadataQuorumCommand`` (4.3.1) and
``ToolsUtils.prettyPrintTable``.  Simplified: the tool's clock is the
``now_ms`` argument; ``add-controller``/``remove-controller`` are not
modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from minikafka.common.errors import KafkaException
from minikafka.common.uuid import Uuid
from minikafka.tools.tool_output import Console, ToolOutput

ZERO_UUID = str(Uuid.ZERO)
REPLICATION_HEADERS = ("NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                       "LastCaughtUpTimestamp", "Status")


@dataclass(frozen=True, slots=True)
class QuorumReplicaState:
    """``QuorumInfo.ReplicaState``: one voter or observer as the leader sees it."""

    replica_id: int
    replica_directory_id: str = ZERO_UUID      # base64; zero for the voters of a static quorum
    log_end_offset: int = -1
    last_fetch_timestamp: int | None = None    # None: unknown (sent as -1)
    last_caught_up_timestamp: int | None = None


@dataclass(frozen=True, slots=True)
class QuorumInfo:
    """``QuorumInfo``: the leader's DescribeQuorum answer."""

    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: tuple[QuorumReplicaState, ...]
    observers: tuple[QuorumReplicaState, ...] = ()
    endpoints: Mapping[int, tuple[str, ...]] = field(default_factory=dict)   # voter id -> LISTENER://host:port

    def leader(self) -> QuorumReplicaState:
        for voter in self.voters:
            if voter.replica_id == self.leader_id:
                return voter
        # Kafka's Optional.get() on an empty stream: the tool prints this and exits 1.
        raise KafkaException("No value present")


class TerseException(KafkaException):
    """An error the tool prints as its bare message on standard error (``TerseException``)."""

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.tools.TerseException"


# ----------------------------------------------------------------------------- --status
def max_follower_lag(quorum: QuorumInfo) -> tuple[int, int]:
    """(``MaxFollowerLag``, ``MaxFollowerLagTimeMs``)."""
    leader = quorum.leader()
    laggard = min(quorum.voters, key=lambda v: v.log_end_offset)   # min() keeps the first of equals
    lag = leader.log_end_offset - laggard.log_end_offset
    if laggard is leader:
        return lag, 0
    if leader.last_caught_up_timestamp is not None and laggard.last_caught_up_timestamp is not None:
        return lag, leader.last_caught_up_timestamp - laggard.last_caught_up_timestamp
    return lag, -1


def format_replica_list(quorum: QuorumInfo, replicas: Sequence[QuorumReplicaState]) -> str:
    """``[{"id": 1, "directoryId": "...", "endpoints": ["CONTROLLER://host:9093"]}, ...]``."""
    parts = []
    for replica in replicas:
        text = f'{{"id": {replica.replica_id}'
        if replica.replica_directory_id != ZERO_UUID:
            text += f', "directoryId": "{replica.replica_directory_id}"'
        endpoints = quorum.endpoints.get(replica.replica_id, ())
        if endpoints:
            text += ', "endpoints": [' + ", ".join(f'"{e}"' for e in endpoints) + "]"
        parts.append(text + "}")
    return "[" + ", ".join(parts) + "]"


def format_status(cluster_id: str, quorum: QuorumInfo) -> str:
    lag, lag_time = max_follower_lag(quorum)
    rows = [("ClusterId:", cluster_id), ("LeaderId:", quorum.leader_id), ("LeaderEpoch:", quorum.leader_epoch),
            ("HighWatermark:", quorum.high_watermark), ("MaxFollowerLag:", lag),
            ("MaxFollowerLagTimeMs:", lag_time),
            ("CurrentVoters:", format_replica_list(quorum, quorum.voters)),
            ("CurrentObservers:", format_replica_list(quorum, quorum.observers))]
    return "".join(f"{label:<24}{value}\n" for label, value in rows)


# ----------------------------------------------------------------------------- --replication
def pretty_print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """``ToolsUtils.prettyPrintTable``: left-aligned cells, each followed by a tab."""
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    return "".join("".join(f"{cell:<{widths[i]}}\t" for i, cell in enumerate(row)) + "\n"
                   for row in [list(headers), *rows])


def relative_time_ms(timestamp_ms: int, now_ms: int, desc: str) -> int:
    """``MetadataQuorumCommand.relativeTimeMs``: how long ago, refusing clock drift."""
    if not (0 < timestamp_ms <= now_ms):
        raise KafkaException("Error while computing relative time, possible drift in system clock.\n"
                             f"Current timestamp is {now_ms}, {desc} timestamp is {timestamp_ms}")
    return now_ms - timestamp_ms


def _timestamp_cell(value: int | None, now_ms: int | None, human_readable: bool, desc: str) -> str:
    if value is None:
        return "-1"
    if human_readable:
        return f"{relative_time_ms(value, now_ms, desc)} ms ago"
    return str(value)


def _rows(quorum: QuorumInfo, human_readable: bool, now_ms: int | None) -> list[list[str]]:
    leader = quorum.leader()
    followers = [v for v in quorum.voters if v.replica_id != quorum.leader_id]
    rows = []
    for status, replicas in (("Leader", [leader]), ("Follower", followers), ("Observer", quorum.observers)):
        for r in replicas:
            rows.append([str(r.replica_id), r.replica_directory_id, str(r.log_end_offset),
                         str(leader.log_end_offset - r.log_end_offset),
                         _timestamp_cell(r.last_fetch_timestamp, now_ms, human_readable, "last fetch"),
                         _timestamp_cell(r.last_caught_up_timestamp, now_ms, human_readable, "last caught up"),
                         status])
    return rows


def format_replication(quorum: QuorumInfo, human_readable: bool = False, now_ms: int | None = None) -> str:
    if human_readable and now_ms is None:
        raise ValueError("--human-readable needs the tool's clock (now_ms)")
    return pretty_print_table(REPLICATION_HEADERS, _rows(quorum, human_readable, now_ms))


# ----------------------------------------------------------------------------- the command
def describe(cluster_id: str, quorum: QuorumInfo, *, status: bool = False, replication: bool = False,
             human_readable: bool = False, now_ms: int | None = None) -> ToolOutput:
    """``kafka-metadata-quorum.sh describe`` with its option checks; errors go to stderr, exit 1."""
    console = Console()
    try:
        if status and replication:
            raise TerseException("Only one of --status or --replication should be specified with describe "
                                 "sub-command")
        if replication:
            console.print(format_replication(quorum, human_readable, now_ms))
        elif status:
            if human_readable:
                raise TerseException("The option --human-readable is only supported along with --replication")
            console.print(format_status(cluster_id, quorum))
        else:
            raise TerseException("One of --status or --replication must be specified with describe sub-command")
    except KafkaException as exc:
        # The tool prints the message (and, for non-terse errors, a stack trace) to stderr.
        failed = Console()
        failed.eprintln(exc.message)
        return failed.result(exit_code=1)
    return console.result()


def from_describe_quorum_response(response) -> QuorumInfo:
    """Adapt the sandbox's `minikafka.raft.messages.DescribeQuorumResponse` (as the admin client does)."""
    def state(r) -> QuorumReplicaState:
        return QuorumReplicaState(r.replica_id, str(r.replica_directory_id or Uuid.ZERO), r.log_end_offset,
                                  None if r.last_fetch_timestamp == -1 else r.last_fetch_timestamp,
                                  None if r.last_caught_up_timestamp == -1 else r.last_caught_up_timestamp)
    return QuorumInfo(response.leader_id, response.leader_epoch, response.high_watermark,
                      tuple(state(v) for v in response.current_voters),
                      tuple(state(o) for o in response.observers),
                      {node.node_id: tuple(str(listener) for listener in node.listeners) for node in response.nodes})


__all__ = ["QuorumReplicaState", "QuorumInfo", "TerseException", "max_follower_lag", "format_replica_list",
           "format_status", "pretty_print_table", "relative_time_ms", "format_replication", "describe",
           "from_describe_quorum_response"]
