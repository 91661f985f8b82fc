"""Where a KRaft replica keeps its election state: `ElectionState` and the ``quorum-state`` file.

Theory of operation
-------------------
Raft is only safe if a replica remembers, across crashes, the latest epoch it
has seen and whom it voted for in that epoch; otherwise a restarted voter
could vote twice in one epoch and two leaders could be elected.  Kafka writes
this `ElectionState` (epoch, leader id, voted id, voters) to
``<metadata log dir>/__cluster_metadata-0/quorum-state`` *before* it acts on
a transition (answers a vote, starts a candidacy, ...).

The file is one line of JSON: the ``QuorumStateData`` message written by its
JSON converter, plus a ``data_version`` field.  For a static voter set
(``controller.quorum.voters``, ``kraft.version`` 0) Kafka 4.x writes version 0::

    {"clusterId":"","leaderId":1001,"leaderEpoch":3,"votedId":-1,"appliedOffset":0,
     "currentVoters":[{"voterId":1001},{"voterId":1002},{"voterId":1003}],"data_version":0}

(one line, no spaces, no trailing newline; ``clusterId`` and
``appliedOffset`` are always their defaults).  The write goes to
``quorum-state.tmp``, is fsynced, then atomically renamed over the old file.
The file lives in the node's `LogDirectory` (on disk, or in memory for a
simulated cluster), the same one as the metadata log it sits next to.

Mirrors ``ElectionState``, ``QuorumStateStore`` and ``FileQuorumStateStore``
(``raft/src/main/java/org/apache/kafka/raft/``).  Simplified: only version 0
is written (no ``votedDirectoryId``: the sandbox has no dynamic quorums);
version 1 files are read.
"""

from __future__ import annotations

from minikafka.common.java_hashing import hashmap_order

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory, read_text

DEFAULT_FILE_NAME = "quorum-state"       # FileQuorumStateStore.DEFAULT_FILE_NAME
DATA_VERSION = "data_version"
LOWEST_SUPPORTED_VERSION = 0
HIGHEST_SUPPORTED_VERSION = 1
NOT_VOTED = -1
UNKNOWN_LEADER_ID = -1


@dataclass(frozen=True, slots=True)
class ElectionState:
    """What a replica must remember about the current epoch (Kafka's ``ElectionState``)."""

    epoch: int
    leader_id: int | None = None           # known leader of the epoch
    voted_id: int | None = None            # candidate this replica voted for in the epoch
    voters: frozenset[int] = frozenset()   # the static voter set (version 0 files list it)

    def is_leader(self, node_id: int) -> bool:
        return self.leader_id == node_id

    def is_voted_candidate(self, node_id: int) -> bool:
        return self.voted_id == node_id

    def __str__(self) -> str:
        return (f"Election(epoch={self.epoch}, leaderId={_sentinel(self.leader_id)}, "
                f"votedId={_sentinel(self.voted_id)}, voters={sorted(self.voters)})")


def _sentinel(value: int | None) -> int:
    return -1 if value is None else value


class QuorumStateStore(Protocol):
    """Persistence of `ElectionState`; ``write_election_state`` must be durable when it returns."""

    def read_election_state(self) -> ElectionState | None: ...
    def write_election_state(self, state: ElectionState) -> None: ...
    def clear(self) -> None: ...


class MemoryQuorumStateStore:
    """An in-memory store; ``history`` keeps every write so tests can audit votes."""

    def __init__(self) -> None:
        self._state: ElectionState | None = None   # the last durable write
        self.history: list[ElectionState] = []     # every write, oldest first

    def read_election_state(self) -> ElectionState | None:
        return self._state

    def write_election_state(self, state: ElectionState) -> None:
        self._state = state
        self.history.append(state)

    def clear(self) -> None:
        self._state = None


def java_hash_set_order(ids: frozenset[int] | set[int]) -> list[int]:
    """The iteration order of a Java ``HashSet<Integer>`` holding ``ids``.

    Kafka lists ``currentVoters`` in the order of its voter-id set.  A Java
    HashSet of small integers iterates bucket by bucket (bucket = id mod the
    table size, which starts at 16 and doubles past 75% load), so voters
    1001..1003 come out ascending while e.g. {5, 17} comes out 17, 5.  Ids in
    the same bucket keep insertion order, which we take to be ascending.
    """
    return hashmap_order(sorted(ids))


class UncheckedIOException(OSError):
    """Kafka's ``java.io.UncheckedIOException`` around a failed quorum-state read or write."""

    java_class = "java.io.UncheckedIOException"


class FileQuorumStateStore:
    """The ``quorum-state`` file of a metadata log directory (``FileQuorumStateStore``), in ``directory``."""

    def __init__(self, path: str | os.PathLike[str], directory: LogDirectory = FILE_SYSTEM):
        self.path = Path(path)   # .../__cluster_metadata-0/quorum-state
        self._directory = directory   # the node's files (disk or memory)

    @classmethod
    def in_partition_dir(cls, partition_dir: str | os.PathLike[str],
                         directory: LogDirectory = FILE_SYSTEM) -> "FileQuorumStateStore":
        return cls(Path(partition_dir) / DEFAULT_FILE_NAME, directory)

    @staticmethod
    def to_json(state: ElectionState) -> str:
        """The exact text Kafka 4.x writes for ``state`` (QuorumStateData version 0)."""
        voters = ",".join(f'{{"voterId":{v}}}' for v in java_hash_set_order(state.voters))
        return (f'{{"clusterId":"","leaderId":{_sentinel(state.leader_id)},'
                f'"leaderEpoch":{state.epoch},"votedId":{_sentinel(state.voted_id)},'
                f'"appliedOffset":0,"currentVoters":[{voters}],"{DATA_VERSION}":0}}')

    def read_election_state(self) -> ElectionState | None:
        if not self._directory.exists(str(self.path)):
            return None
        try:
            line = read_text(self._directory, str(self.path)).split("\n", 1)[0]
            if not line:
                raise EOFError("File ended prematurely.")
            return self._parse(line)
        except (OSError, EOFError, ValueError) as exc:
            raise UncheckedIOException(
                f"Error while reading the Quorum status from the file {self.path}") from exc

    @staticmethod
    def _parse(line: str) -> ElectionState:
        node = json.loads(line)
        if not isinstance(node, dict):
            raise ValueError(f"Deserialized node {line} is not an object node")
        if DATA_VERSION not in node:
            raise ValueError(f"Deserialized node {line} does not have {DATA_VERSION} field")
        version = node[DATA_VERSION]
        if not LOWEST_SUPPORTED_VERSION <= version <= HIGHEST_SUPPORTED_VERSION:
            # Kafka's format string has "($d)" for the max, so the number never prints.
            raise RuntimeError(f"data_version ({version}) is not within the min "
                               f"({LOWEST_SUPPORTED_VERSION}) and max ($d) supported version")
        leader = node.get("leaderId", UNKNOWN_LEADER_ID)
        voted = node.get("votedId", NOT_VOTED)
        voters = frozenset(v["voterId"] for v in node.get("currentVoters") or ())
        return ElectionState(epoch=node.get("leaderEpoch", -1),
                             leader_id=None if leader < 0 else leader,
                             voted_id=None if voted < 0 else voted, voters=voters)

    def write_election_state(self, state: ElectionState) -> None:
        path, temp = str(self.path), str(self.path) + ".tmp"
        try:
            self._directory.make_dirs(os.path.dirname(path))
            self._directory.write_atomically(path, self.to_json(state).encode("utf-8"))  # tmp, fsync, rename
        except OSError as exc:
            raise UncheckedIOException(
                f"Error while writing the Quorum status from the file "
                f"{self.path.absolute()}") from exc
        finally:
            self._directory.remove(temp)

    def clear(self) -> None:
        self._directory.remove(str(self.path))
        self._directory.remove(str(self.path) + ".tmp")

    def __str__(self) -> str:
        return f"Quorum state filepath: {self.path.absolute()}"
