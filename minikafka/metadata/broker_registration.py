"""What the metadata image knows about each registered broker and controller.

Theory of operation
-------------------
A broker joins the cluster by sending BrokerRegistration to the active
controller, which writes a `RegisterBrokerRecord`.  Replaying that record
gives a `BrokerRegistration`: the broker's id, its *broker epoch* (the offset
of the registration record, which fences off stale requests from an older
incarnation), its listeners, rack, supported features, log directories and
two flags.  A registered broker starts **fenced**: it may not lead partitions
or be chosen for new ones until it has caught up with the metadata log and
the controller writes ``BrokerRegistrationChangeRecord(fenced=-1)``.  A
missed heartbeat deadline writes ``fenced=1``; a broker shutting down cleanly
gets ``in_controlled_shutdown=1`` first so its leaderships move away.

Controllers register the same way with `RegisterControllerRecord` (KIP-919),
giving a `ControllerRegistration`.

Mirrors ``org.apache.kafka.metadata.BrokerRegistration`` and
``ControllerRegistration``.  Simplified: features are kept as
``(name, min, max)`` tuples rather than a map of ``VersionRange``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from minikafka.common.uuid import Uuid
from minikafka.metadata.records import (BrokerEndpoint, ControllerEndpoint, RegisterBrokerRecord,
                                        RegisterControllerRecord)


@dataclass(frozen=True, slots=True)
class BrokerRegistration:
    id: int                                   # node.id of the broker
    epoch: int                                # broker epoch: offset of its RegisterBrokerRecord
    incarnation_id: Uuid                      # random per broker process start
    listeners: tuple[BrokerEndpoint, ...]     # advertised listeners, as registered
    supported_features: tuple[tuple[str, int, int], ...]  # (feature, min level, max level)
    rack: str | None                          # broker.rack, None when unset
    fenced: bool                              # True until the controller unfences it
    in_controlled_shutdown: bool              # True while leaderships are moved away before shutdown
    is_migrating_zk_broker: bool = False      # always False in Kafka 4.x
    directories: tuple[Uuid, ...] = ()        # online log directory ids
    cordoned_directories: tuple[Uuid, ...] | None = None  # KIP-1066; None until the broker reports them

    @classmethod
    def from_record(cls, record: RegisterBrokerRecord) -> "BrokerRegistration":
        return cls(
            id=record.broker_id, epoch=record.broker_epoch, incarnation_id=record.incarnation_id,
            listeners=record.end_points,
            supported_features=tuple((f.name, f.min_supported_version, f.max_supported_version)
                                     for f in record.features),
            rack=record.rack, fenced=record.fenced, in_controlled_shutdown=record.in_controlled_shutdown,
            is_migrating_zk_broker=record.is_migrating_zk_broker, directories=record.log_dirs,
            cordoned_directories=record.cordoned_log_dirs)

    def clone_with(self, fenced: bool | None = None, in_controlled_shutdown: bool | None = None,
                   directories: tuple[Uuid, ...] | None = None,
                   cordoned_directories: tuple[Uuid, ...] | None = None) -> "BrokerRegistration":
        """A copy with the given changes; None means "unchanged" (Kafka's Optional.empty)."""
        return replace(
            self,
            fenced=self.fenced if fenced is None else fenced,
            in_controlled_shutdown=(self.in_controlled_shutdown if in_controlled_shutdown is None
                                    else in_controlled_shutdown),
            directories=self.directories if directories is None else tuple(directories),
            cordoned_directories=(self.cordoned_directories if cordoned_directories is None
                                  else tuple(cordoned_directories)))

    def cordoned_dir_changed(self, cordoned: tuple[Uuid, ...]) -> bool:
        """``BrokerRegistration.cordonedDirChanged``: never reported yet, or another set of dirs."""
        return self.cordoned_directories is None or set(self.cordoned_directories) != set(cordoned)

    def listener(self, name: str) -> BrokerEndpoint | None:
        """The endpoint of listener ``name`` (e.g. ``PLAINTEXT``), or None."""
        return next((endpoint for endpoint in self.listeners if endpoint.name == name), None)

    def supported_feature(self, name: str) -> tuple[int, int] | None:
        return next(((low, high) for feature, low, high in self.supported_features if feature == name), None)

    def has_online_dir(self, directory: Uuid) -> bool:
        return directory in self.directories


@dataclass(frozen=True, slots=True)
class ControllerRegistration:
    id: int                                     # node.id of the controller
    incarnation_id: Uuid                        # random per controller process start
    zk_migration_ready: bool                    # always False in Kafka 4.x
    listeners: tuple[ControllerEndpoint, ...]   # controller.listener.names endpoints
    supported_features: tuple[tuple[str, int, int], ...]  # (feature, min level, max level)

    @classmethod
    def from_record(cls, record: RegisterControllerRecord) -> "ControllerRegistration":
        return cls(
            id=record.controller_id, incarnation_id=record.incarnation_id,
            zk_migration_ready=record.zk_migration_ready, listeners=record.end_points,
            supported_features=tuple((f.name, f.min_supported_version, f.max_supported_version)
                                     for f in record.features))
