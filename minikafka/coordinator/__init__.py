"""Consumer groups (classic protocol) and their ``__consumer_offsets`` records.

See `group_coordinator.GroupCoordinator` for the entry point and
`requests` for the messages it takes and gives.
"""

from minikafka.coordinator.group_coordinator import GroupCoordinator, partition_for
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig

__all__ = ["GroupCoordinator", "GroupCoordinatorConfig", "partition_for"]
