"""``ClusterControlManager``: broker and controller registrations.

Theory of operation
-------------------
A broker process joins the cluster by sending BrokerRegistration.  The
controller checks the cluster id, that no *other* live process holds the
broker id (a registration whose session is still valid, fenced or not, with
a different incarnation id), the log directories, and that the broker supports every
finalized feature level; then it writes a `RegisterBrokerRecord`:

* a new incarnation (a restarted process) gets a new **broker epoch**: the
  offset the RegisterBrokerRecord will have in the metadata log.  Requests
  carrying an older epoch are refused with STALE_BROKER_EPOCH, so nothing
  from before the restart can be mistaken for the new process.  The record
  says ``fenced=True``: the broker may not lead or join an ISR until its
  heartbeats show it has replayed the metadata log up to this record;
* the same incarnation registering again keeps its epoch and its fencing and
  controlled-shutdown state.

The offset of each broker's latest RegisterBrokerRecord is remembered (it is
not part of the metadata image); a fenced broker is unfenced once it reports
a metadata offset at least this high.

On the active controller this class also owns the `BrokerHeartbeatManager`,
created when the controller becomes active (every unfenced broker starts
with a fresh session; the others get one at their next heartbeat) and dropped when it stops being active.

Mirrors ``org.apache.kafka.controller.ClusterControlManager`` (Kafka 4.x),
with its error texts.  Simplified: the records that take a new incarnation
out of its ISRs (and, after a crash with ELR, its ELRs) are added by the
controller's request handler rather than through a ``BrokerShutdownHandler``,
and ``kraft.version`` (a Raft-level feature, 0 on a static quorum) is not
checked.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from minikafka.common.errors import (BrokerIdNotRegisteredException, DuplicateBrokerRegistrationException,
                                     InconsistentClusterIdException, StaleBrokerEpochException,
                                     UnsupportedVersionException, exception_for, Errors)
from minikafka.common.uuid import Uuid
from minikafka.common.java_hashing import hashmap_order
from minikafka.controller.broker_heartbeat_manager import BrokerHeartbeatManager
from minikafka.controller.controller_result import ControllerEvent, ControllerResult
from minikafka.controller.requests import (BrokerRegistrationRequest, BrokerRegistrationResponse,
                                           Feature, Listener)
from minikafka.controller.striped_replica_placer import UsableBroker
from minikafka.metadata.image import METADATA_VERSION, MetadataImage
from minikafka.metadata.partition_registration import DirectoryId
from minikafka.metadata.records import (BrokerEndpoint, BrokerFeature, BrokerRegistrationChangeRecord,
                                        ControllerEndpoint, ControllerFeature, MetadataRecord,
                                        RegisterBrokerRecord,
                                        RegisterControllerRecord, UnregisterBrokerRecord)

InvalidRegistrationException = exception_for(Errors.INVALID_REGISTRATION)

MINIMUM_METADATA_VERSION = 7     # MetadataVersion.MINIMUM_VERSION, 3.3-IV3 (Kafka 4.x)


def _reserved(directory: Uuid) -> bool:
    # DirectoryId.reserved: the first 100 ids are reserved (MIGRATING, UNASSIGNED, LOST...).
    return directory.most == 0 and directory.least < 100


class ClusterControlManager:
    """Registration logic plus the controller-only state that goes with it."""

    def __init__(self, cluster_id: str, session_timeout_ms: int):
        self.cluster_id = cluster_id
        self.session_timeout_ms = session_timeout_ms
        self.register_offsets: dict[int, int] = {}            # broker -> offset of its RegisterBrokerRecord
        self.committed_register_offsets: dict[int, int] = {}  # the same, committed records only
        self.heartbeat_manager: BrokerHeartbeatManager | None = None  # only while active

    # ------------------------------------------------------------------ activation
    def activate(self, image: MetadataImage, now: int) -> None:
        self.heartbeat_manager = BrokerHeartbeatManager(self.session_timeout_ms)
        for broker in image.cluster.brokers.values():
            self.heartbeat_manager.register(broker.id, broker.fenced)
            if not broker.fenced:   # a new active controller gives the unfenced brokers a fresh session
                self.heartbeat_manager.tracker.update_contact_time(broker.id, broker.epoch, now)

    def deactivate(self) -> None:
        self.heartbeat_manager = None
        self.reset_working_state()

    def reset_working_state(self) -> None:
        """Forget what uncommitted records taught us: the controller's working image went back to the committed one."""
        self.register_offsets = dict(self.committed_register_offsets)

    # ------------------------------------------------------------------ replay hooks
    def replay(self, record: MetadataRecord, offset: int, image_after: MetadataImage, now: int) -> None:
        """Keep controller-only state in step with a record applied to the working image."""
        if isinstance(record, RegisterBrokerRecord):
            self.register_offsets[record.broker_id] = offset
        elif isinstance(record, UnregisterBrokerRecord):
            self.register_offsets.pop(record.broker_id, None)
        if self.heartbeat_manager is None:
            return
        if isinstance(record, UnregisterBrokerRecord):
            self.heartbeat_manager.remove(record.broker_id)
        elif isinstance(record, (RegisterBrokerRecord, BrokerRegistrationChangeRecord)):
            broker = image_after.cluster.broker(record.broker_id)
            if broker is not None:
                self.heartbeat_manager.register(broker.id, broker.fenced)

    def replay_committed(self, record: MetadataRecord, offset: int) -> None:
        if isinstance(record, RegisterBrokerRecord):
            self.committed_register_offsets[record.broker_id] = offset
        elif isinstance(record, UnregisterBrokerRecord):
            self.committed_register_offsets.pop(record.broker_id, None)

    def active_heartbeat_manager(self) -> BrokerHeartbeatManager:
        """The heartbeat manager, which exists only while this controller is the active one."""
        if self.heartbeat_manager is None:
            raise RuntimeError("ClusterControlManager is not active.")
        return self.heartbeat_manager

    def track_broker_heartbeat(self, broker_id: int, broker_epoch: int, now: int) -> bool:
        """``trackBrokerHeartbeat``: refresh the session of a heartbeat's (id, epoch), before anything else
        is checked (False: not the active controller)."""
        if self.heartbeat_manager is None:
            return False
        self.heartbeat_manager.tracker.update_contact_time(broker_id, broker_epoch, now)
        return True

    def register_broker_record_offset(self, broker_id: int) -> int | None:
        return self.register_offsets.get(broker_id)

    # ------------------------------------------------------------------ queries
    @staticmethod
    def is_active(image: MetadataImage, broker_id: int) -> bool:
        """Unfenced and not in controlled shutdown: may lead and be in an ISR."""
        broker = image.cluster.broker(broker_id)
        return broker is not None and not broker.fenced and not broker.in_controlled_shutdown

    @staticmethod
    def check_broker_epoch(image: MetadataImage, broker_id: int, broker_epoch: int) -> None:
        broker = image.cluster.broker(broker_id)
        if broker is None:
            raise StaleBrokerEpochException(f"No broker registration found for broker id {broker_id}")
        if broker.epoch != broker_epoch:
            raise StaleBrokerEpochException(
                f"Expected broker epoch {broker.epoch}, but got broker epoch {broker_epoch}")

    def usable_brokers(self, image: MetadataImage) -> list[UsableBroker]:
        if self.heartbeat_manager is None:
            raise RuntimeError("ClusterControlManager is not active.")
        return list(self.heartbeat_manager.usable_brokers(lambda b: image.cluster.brokers[b].rack))

    @staticmethod
    def default_dir(image: MetadataImage, broker_id: int) -> Uuid:
        """The directory a new replica on ``broker_id`` is assigned to (its only one, if it has one)."""
        broker = image.cluster.broker(broker_id)
        if broker is None:
            return DirectoryId.UNASSIGNED
        if not broker.directories:
            return DirectoryId.MIGRATING
        return broker.directories[0] if len(broker.directories) == 1 else DirectoryId.UNASSIGNED

    # ------------------------------------------------------------------ registration
    def register_broker(self, image: MetadataImage, request: BrokerRegistrationRequest,
                        new_broker_epoch: int, now: int) -> ControllerResult[BrokerRegistrationResponse]:
        if self.heartbeat_manager is None:
            raise RuntimeError("ClusterControlManager is not active.")
        if request.cluster_id != self.cluster_id:
            raise InconsistentClusterIdException(
                f"Expected cluster ID {self.cluster_id}, but got cluster ID {request.cluster_id}")
        existing = image.cluster.broker(request.broker_id)
        # The registered epoch's session counts even when that broker is fenced: a broker stopped cleanly
        # and started again within broker.session.timeout.ms waits for its old session to expire.
        if (existing is not None and self.heartbeat_manager.has_valid_session(request.broker_id, existing.epoch, now)
                and existing.incarnation_id != request.incarnation_id):
            raise DuplicateBrokerRegistrationException(
                "Another broker is registered with that broker id. If the broker was recently restarted this "
                "should self-resolve once the heartbeat manager expires the broker's session.")
        if request.is_migrating_zk_broker:
            raise BrokerIdNotRegisteredException("Controller does not support registering ZK brokers.")
        self._check_directories(image, request)
        features = _registration_features(image, request.features)
        new_incarnation = existing is None or existing.incarnation_id != request.incarnation_id
        if existing is None or new_incarnation:
            epoch, fenced, in_controlled_shutdown = new_broker_epoch, True, False
        else:
            epoch, fenced, in_controlled_shutdown = existing.epoch, existing.fenced, existing.in_controlled_shutdown
        record = RegisterBrokerRecord(
            broker_id=request.broker_id, incarnation_id=request.incarnation_id, broker_epoch=epoch,
            end_points=tuple(BrokerEndpoint(l.name, l.host, l.port, l.security_protocol) for l in request.listeners),
            features=tuple(features), rack=request.rack, fenced=fenced,
            in_controlled_shutdown=in_controlled_shutdown, log_dirs=request.log_dirs)
        if new_incarnation:
            self.heartbeat_manager.remove(request.broker_id)
        event = ControllerEvent(
            "broker_registered",
            f"broker {record.broker_id} registered with broker epoch {record.broker_epoch}"
            + (" (fenced until it catches up with the metadata log)" if record.fenced else ""),
            {"broker": record.broker_id, "epoch": record.broker_epoch,
             "incarnation_id": str(record.incarnation_id)})
        return ControllerResult((record,), BrokerRegistrationResponse(broker_epoch=record.broker_epoch),
                                (event,))

    @staticmethod
    def _check_directories(image: MetadataImage, request: BrokerRegistrationRequest) -> None:
        if not request.log_dirs:
            raise InvalidRegistrationException("No directories specified in request")
        if any(_reserved(d) for d in request.log_dirs):
            raise InvalidRegistrationException("Reserved directory ID in request")
        if len(set(request.log_dirs)) != len(request.log_dirs):
            raise InvalidRegistrationException("Duplicate directory ID in request")
        for directory in request.log_dirs:
            for broker in image.cluster.brokers.values():
                if broker.id != request.broker_id and directory in broker.directories:
                    raise InvalidRegistrationException(
                        f"Broker {broker.id} is already registered with directory {directory}")

    @staticmethod
    def register_controller(controller_id: int, incarnation_id: Uuid, listeners: Iterable[Listener],
                            features: Iterable[Feature]) -> ControllerResult[None]:
        """ControllerRegistration (KIP-919): every controller announces its endpoints and features."""
        record = RegisterControllerRecord(
            controller_id=controller_id, incarnation_id=incarnation_id, zk_migration_ready=False,
            end_points=tuple(ControllerEndpoint(l.name, l.host, l.port, l.security_protocol) for l in listeners),
            features=tuple(ControllerFeature(f.name, f.min_supported_version, f.max_supported_version)
                           for f in features))
        return ControllerResult((record,), None)


def _finalized_levels(image: MetadataImage) -> Mapping[str, int]:
    levels = dict(image.features.finalized_versions)
    if image.features.metadata_version is not None:
        levels[METADATA_VERSION] = image.features.metadata_version
    return levels


def _check_feature(finalized: Mapping[str, int], feature: Feature) -> BrokerFeature:
    level = finalized.get(feature.name, 1 if feature.name == METADATA_VERSION else 0)
    if not feature.min_supported_version <= level <= feature.max_supported_version:
        raise UnsupportedVersionException(
            f"Unable to register because the broker does not support finalized version {level} of "
            f"{feature.name}. The broker wants a version between {feature.min_supported_version} and "
            f"{feature.max_supported_version}, inclusive.")
    return BrokerFeature(feature.name, feature.min_supported_version, feature.max_supported_version)


def _registration_features(image: MetadataImage, requested: tuple[Feature, ...]) -> list[BrokerFeature]:
    """The RegisterBrokerRecord feature list, refusing a broker that lacks a finalized level."""
    finalized = _finalized_levels(image)
    features = [_check_feature(finalized, f) for f in requested]
    names = {f.name for f in requested}
    if METADATA_VERSION not in names:
        features.append(_check_feature(
            finalized, Feature(METADATA_VERSION, MINIMUM_METADATA_VERSION, MINIMUM_METADATA_VERSION)))
    for name in hashmap_order(finalized):   # Kafka walks a HashMap of the finalized levels
        if finalized[name] != 0 and name not in names and name != METADATA_VERSION:
            _check_feature(finalized, Feature(name, 0, 0))
    return features
