"""The KRaft controller: ``QuorumController`` and its control managers.

The active controller decides every metadata change by writing records to the
``__cluster_metadata`` log (see ``quorum_controller``); the managers compute
those records: `ClusterControlManager` (broker registrations),
`BrokerHeartbeatManager` (sessions and fencing), `ReplicationControlManager`
(topics, partitions, leaders, ISRs, reassignments),
`ConfigurationControlManager` (dynamic configs), `FeatureControlManager`
(metadata.version and bootstrap), `ProducerIdControlManager` (producer id
blocks), with `StripedReplicaPlacer` and `PartitionChangeBuilder`.
"""

from minikafka.controller.broker_heartbeat_manager import BrokerControlState, BrokerHeartbeatManager
from minikafka.controller.cluster_control_manager import ClusterControlManager
from minikafka.controller.configuration_control_manager import ConfigurationControlManager
from minikafka.controller.controller_result import ApiError, ControllerEvent, ControllerResult
from minikafka.controller.feature_control_manager import FeatureControlManager
from minikafka.controller.partition_change_builder import Election, PartitionChangeBuilder
from minikafka.controller.producer_id_control_manager import ProducerIdControlManager
from minikafka.controller.quorum_controller import QuorumController, QuorumControllerConfig
from minikafka.controller.replication_control_manager import ReplicationControlManager
from minikafka.controller.striped_replica_placer import PlacementSpec, StripedReplicaPlacer, UsableBroker

__all__ = [
    "ApiError", "BrokerControlState", "BrokerHeartbeatManager", "ClusterControlManager",
    "ConfigurationControlManager", "ControllerEvent", "ControllerResult", "Election",
    "FeatureControlManager", "PartitionChangeBuilder", "PlacementSpec", "ProducerIdControlManager",
    "QuorumController", "QuorumControllerConfig", "ReplicationControlManager", "StripedReplicaPlacer",
    "UsableBroker",
]
