"""KRaft: the Raft quorum that replicates ``__cluster_metadata-0`` (KIP-595, KIP-996).

Start with `KafkaRaftClient`; `QuorumState` (its transition table keyed by
state and `QuorumEvent`) and the epoch states explain the elections,
`ReplicatedLog` the log contract, `messages` the five RPCs, and one module
per RPC (``vote_rpc``, ``begin_quorum_epoch_rpc``, ``end_quorum_epoch_rpc``,
``fetch_rpc``, ``describe_quorum_rpc``) how each is sent, answered and acted on.
"""

from minikafka.raft.errors import NotLeaderException
from minikafka.raft.kafka_raft_client import KafkaRaftClient
from minikafka.raft.listener_context import RaftListener
from minikafka.raft.quorum_state import (OBSERVER_TRANSITIONS, TRANSITIONS, IllegalTransition,
                                        LeaderAndEpoch, QuorumEvent, QuorumState)
from minikafka.raft.quorum_state_store import (ElectionState, FileQuorumStateStore,
                                               MemoryQuorumStateStore, QuorumStateStore)
from minikafka.raft.replicated_log import (Batch, LeaderChangeMessage, MemoryReplicatedLog,
                                           OffsetAndEpoch, ReplicatedLog)

__all__ = ["KafkaRaftClient", "NotLeaderException", "RaftListener", "LeaderAndEpoch", "QuorumState",
           "QuorumEvent", "IllegalTransition", "TRANSITIONS", "OBSERVER_TRANSITIONS",
           "ElectionState", "QuorumStateStore",
           "MemoryQuorumStateStore", "FileQuorumStateStore", "Batch", "LeaderChangeMessage",
           "MemoryReplicatedLog", "OffsetAndEpoch", "ReplicatedLog"]
