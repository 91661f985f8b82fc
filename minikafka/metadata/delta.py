"""`MetadataDelta`: replay metadata records on top of an image, then apply them.

Theory of operation
-------------------
Nodes never edit metadata.  They take the current `MetadataImage`, open a
``MetadataDelta(image)``, ``replay`` each committed record of a batch in log
order, and ``apply()`` the delta to get the next image::

    delta = MetadataDelta(image)
    for record in batch:
        delta.replay(record)
    image = delta.apply(MetadataProvenance(last_offset, epoch, append_time_ms))

Each part of the image has its own delta (`FeaturesDelta`, `ClusterDelta`,
`TopicsDelta`, `ConfigurationsDelta`, `ProducerIdsDelta`), created the first
time a record touches that part; ``apply()`` reuses every untouched part of
the old image as it is.  A record that contradicts the image (changing a
broker that is not registered, or with the wrong broker epoch; deleting an
unknown topic) raises RuntimeError with Kafka's message: in Kafka that is a
fatal metadata-replay fault.

Replay rules worth knowing (all Kafka's):

* ``FeatureLevelRecord`` with level 0 removes the feature;
* ``BrokerRegistrationChangeRecord`` fenced -1/0/1 = unfence/unchanged/fence,
  in_controlled_shutdown 0/1, empty log_dirs = unchanged;
* ``ConfigRecord`` with value None deletes the key; ``RemoveTopicRecord``
  also drops the topic's configs;
* ``NoOpRecord`` and the metadata-transaction markers change nothing here
  (Kafka's MetadataBatchLoader handles transactions; the sandbox's controller
  never aborts one);
* Raft control records (LeaderChange, SnapshotHeader/Footer, KRaftVersion,
  Voters) are ignored.

Mirrors ``org.apache.kafka.image.MetadataDelta``, ``FeaturesDelta``,
``ClusterDelta``, ``ConfigurationsDelta`` and ``ProducerIdsDelta``.
Simplified: no ACL, SCRAM, quota or delegation-token deltas; no snapshot
loading (``finishSnapshot``), since the sandbox rebuilds from the log.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from minikafka.metadata.broker_registration import BrokerRegistration, ControllerRegistration
from minikafka.metadata.image import (EMPTY_IMAGE, METADATA_VERSION, ClusterImage, ConfigResource,
                                      ConfigurationsImage, FeaturesImage, MetadataImage,
                                      MetadataProvenance, ProducerIdsImage, frozen_map)
from minikafka.metadata.records import (AbortTransactionRecord, ApiMessageAndVersion, BeginTransactionRecord,
                                        BrokerRegistrationChangeRecord, ClearElrRecord, ConfigRecord,
                                        EndTransactionRecord, FeatureLevelRecord, MetadataRecord, NoOpRecord,
                                        PartitionChangeRecord, PartitionRecord, ProducerIdsRecord,
                                        RegisterBrokerRecord, RegisterControllerRecord, RemoveTopicRecord,
                                        TopicRecord, UnregisterBrokerRecord)
from minikafka.metadata.topics_delta import LocalReplicaChanges, TopicDelta, TopicsDelta

__all__ = ["MetadataDelta", "FeaturesDelta", "ClusterDelta", "ConfigurationsDelta", "ProducerIdsDelta",
           "TopicsDelta", "TopicDelta", "LocalReplicaChanges", "replay_all"]

# Raft control records share the log with metadata records but are not metadata.
_CONTROL_RECORD_NAMES = frozenset({"LeaderChangeMessage", "SnapshotHeaderRecord", "SnapshotFooterRecord",
                                   "KRaftVersionRecord", "VotersRecord"})
_FENCING = {-1: False, 0: None, 1: True}              # BrokerRegistrationFencingChange
_CONTROLLED_SHUTDOWN = {0: None, 1: True}             # BrokerRegistrationInControlledShutdownChange


class FeaturesDelta:
    def __init__(self, image: FeaturesImage):
        self.image = image
        self.changes: dict[str, int | None] = {}        # feature -> new level, None = removed
        self.metadata_version_change: int | None = None  # new metadata.version level, if any

    def replay(self, record: FeatureLevelRecord) -> None:
        if record.name == METADATA_VERSION:
            self.metadata_version_change = record.feature_level
        else:
            self.changes[record.name] = record.feature_level or None

    def apply(self) -> FeaturesImage:
        levels = dict(self.image.finalized_versions)
        for name, level in self.changes.items():
            if level is None:
                levels.pop(name, None)
            else:
                levels[name] = level
        version = self.image.metadata_version if self.metadata_version_change is None \
            else self.metadata_version_change
        return FeaturesImage(frozen_map(dict(sorted(levels.items()))), version)


class ClusterDelta:
    def __init__(self, image: ClusterImage):
        self.image = image
        self.changed_brokers: dict[int, BrokerRegistration | None] = {}          # None = unregistered
        self.changed_controllers: dict[int, ControllerRegistration | None] = {}  # None = unregistered

    def broker(self, broker_id: int) -> BrokerRegistration | None:
        if broker_id in self.changed_brokers:
            return self.changed_brokers[broker_id]
        return self.image.broker(broker_id)

    def replay_register(self, record: RegisterBrokerRecord) -> None:
        self.changed_brokers[record.broker_id] = BrokerRegistration.from_record(record)

    def replay_unregister(self, record: UnregisterBrokerRecord) -> None:
        self.changed_brokers[record.broker_id] = None

    def replay_register_controller(self, record: RegisterControllerRecord) -> None:
        self.changed_controllers[record.controller_id] = ControllerRegistration.from_record(record)

    def replay_change(self, record: BrokerRegistrationChangeRecord) -> None:
        current = self._broker_or_throw(record.broker_id, record.broker_epoch, "change")
        if record.fenced not in _FENCING:
            raise RuntimeError(f"Unable to replay {record}: unknown value for fenced field: {record.fenced}")
        if record.in_controlled_shutdown not in _CONTROLLED_SHUTDOWN:
            raise RuntimeError(f"Unable to replay {record}: unknown value for inControlledShutdown field: "
                               f"{record.in_controlled_shutdown}")
        changed = current.clone_with(_FENCING[record.fenced],
                                     _CONTROLLED_SHUTDOWN[record.in_controlled_shutdown],
                                     record.log_dirs or None, record.cordoned_log_dirs)
        if changed != current:
            self.changed_brokers[record.broker_id] = changed

    def _broker_or_throw(self, broker_id: int, epoch: int, action: str) -> BrokerRegistration:
        broker = self.broker(broker_id)
        if broker is None:
            raise RuntimeError(f"Tried to {action} broker {broker_id}, but that broker was not registered.")
        if broker.epoch != epoch:
            raise RuntimeError(f"Tried to {action} broker {broker_id}, but the given epoch, {epoch}, "
                               f"did not match the current broker epoch, {broker.epoch}")
        return broker

    def apply(self) -> ClusterImage:
        return ClusterImage(_merged(self.image.brokers, self.changed_brokers),
                            _merged(self.image.controllers, self.changed_controllers))


class ConfigurationsDelta:
    def __init__(self, image: ConfigurationsImage):
        self.image = image
        self.changes: dict[ConfigResource, dict[str, str | None]] = {}  # resource -> {name: value|None}

    def _changes_for(self, resource: ConfigResource) -> dict[str, str | None]:
        return self.changes.setdefault(resource, {})

    def replay(self, record: ConfigRecord) -> None:
        resource = ConfigResource(record.resource_type, record.resource_name)
        self._changes_for(resource)[record.name] = record.value

    def delete_all(self, resource: ConfigResource) -> None:
        """Drop every config of ``resource`` (its topic was deleted)."""
        changes = self._changes_for(resource)
        changes.clear()
        changes.update({name: None for name in self.image.config(resource)})

    def apply(self) -> ConfigurationsImage:
        data = dict(self.image.resource_data)
        for resource, changes in self.changes.items():
            configs = dict(self.image.config(resource))
            for name, value in changes.items():
                if value is None:
                    configs.pop(name, None)
                else:
                    configs[name] = value
            if configs:
                data[resource] = frozen_map(configs)
            else:
                data.pop(resource, None)
        return ConfigurationsImage(frozen_map(data))


class ProducerIdsDelta:
    def __init__(self, image: ProducerIdsImage):
        self.image = image
        self.next_producer_id = image.next_producer_id  # first id of the next block to hand out

    def replay(self, record: ProducerIdsRecord) -> None:
        self.next_producer_id = record.next_producer_id

    def apply(self) -> ProducerIdsImage:
        return ProducerIdsImage(self.next_producer_id)


class MetadataDelta:
    """Records replayed on top of ``image``; ``apply()`` gives the next image."""

    def __init__(self, image: MetadataImage = EMPTY_IMAGE):
        self.image = image                                      # the image this delta starts from
        self.features_delta: FeaturesDelta | None = None        # created on first use, like each below
        self.cluster_delta: ClusterDelta | None = None
        self.topics_delta: TopicsDelta | None = None
        self.configs_delta: ConfigurationsDelta | None = None
        self.producer_ids_delta: ProducerIdsDelta | None = None

    # ------------------------------------------------------------------ lazily created parts
    def features(self) -> FeaturesDelta:
        if self.features_delta is None:
            self.features_delta = FeaturesDelta(self.image.features)
        return self.features_delta

    def cluster(self) -> ClusterDelta:
        if self.cluster_delta is None:
            self.cluster_delta = ClusterDelta(self.image.cluster)
        return self.cluster_delta

    def topics(self) -> TopicsDelta:
        if self.topics_delta is None:
            self.topics_delta = TopicsDelta(self.image.topics)
        return self.topics_delta

    def configs(self) -> ConfigurationsDelta:
        if self.configs_delta is None:
            self.configs_delta = ConfigurationsDelta(self.image.configs)
        return self.configs_delta

    def producer_ids(self) -> ProducerIdsDelta:
        if self.producer_ids_delta is None:
            self.producer_ids_delta = ProducerIdsDelta(self.image.producer_ids)
        return self.producer_ids_delta

    # ------------------------------------------------------------------ replay
    def replay(self, record: Any) -> None:
        """Apply one committed record (a MetadataRecord or an ApiMessageAndVersion)."""
        if isinstance(record, ApiMessageAndVersion):
            record = record.message
        handler = _HANDLERS.get(type(record))
        if handler is not None:
            handler(self, record)
        elif not _is_control_record(record):
            raise RuntimeError(f"Unknown metadata record type {type(record).__name__}")

    def _replay_remove_topic(self, record: RemoveTopicRecord) -> None:
        name = self.topics().replay_remove(record)
        self.configs().delete_all(ConfigResource(ConfigResource.TOPIC, name))

    def local_changes(self, broker_id: int) -> LocalReplicaChanges:
        """`TopicsDelta.local_changes` for this delta (empty if no topic changed)."""
        if self.topics_delta is None:
            return LocalReplicaChanges()
        return self.topics_delta.local_changes(broker_id)

    def apply(self, provenance: MetadataProvenance | None = None) -> MetadataImage:
        """The next image; parts no record touched are the old image's objects."""
        old = self.image
        return MetadataImage(
            provenance=old.provenance if provenance is None else provenance,
            features=old.features if self.features_delta is None else self.features_delta.apply(),
            cluster=old.cluster if self.cluster_delta is None else self.cluster_delta.apply(),
            topics=old.topics if self.topics_delta is None else self.topics_delta.apply(),
            configs=old.configs if self.configs_delta is None else self.configs_delta.apply(),
            producer_ids=(old.producer_ids if self.producer_ids_delta is None
                          else self.producer_ids_delta.apply()))


def _ignore(delta: MetadataDelta, record: MetadataRecord) -> None:
    """NoOpRecord and transaction markers leave the image as it is."""


_HANDLERS: dict[type, Callable[[MetadataDelta, Any], None]] = {
    RegisterBrokerRecord: lambda d, r: d.cluster().replay_register(r),
    UnregisterBrokerRecord: lambda d, r: d.cluster().replay_unregister(r),
    BrokerRegistrationChangeRecord: lambda d, r: d.cluster().replay_change(r),
    RegisterControllerRecord: lambda d, r: d.cluster().replay_register_controller(r),
    TopicRecord: lambda d, r: d.topics().replay_topic(r),
    PartitionRecord: lambda d, r: d.topics().replay_partition(r),
    PartitionChangeRecord: lambda d, r: d.topics().replay_change(r),
    ClearElrRecord: lambda d, r: d.topics().replay_clear_elr(r),
    RemoveTopicRecord: MetadataDelta._replay_remove_topic,
    ConfigRecord: lambda d, r: d.configs().replay(r),
    FeatureLevelRecord: lambda d, r: d.features().replay(r),
    ProducerIdsRecord: lambda d, r: d.producer_ids().replay(r),
    NoOpRecord: _ignore,
    BeginTransactionRecord: _ignore,
    EndTransactionRecord: _ignore,
    AbortTransactionRecord: _ignore,
}


def _is_control_record(record: Any) -> bool:
    return (getattr(type(record), "CONTROL_RECORD_TYPE", None) is not None
            or type(record).__name__ in _CONTROL_RECORD_NAMES)


def _merged(base: Mapping[Any, Any], changes: Mapping[Any, Any]) -> Any:
    """``base`` with ``changes`` applied (None removes a key), sorted by key; base itself if no change."""
    if not changes:
        return base
    merged = dict(base)
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return frozen_map(dict(sorted(merged.items())))


def replay_all(records: Iterable[Any], image: MetadataImage = EMPTY_IMAGE,
               provenance: MetadataProvenance | None = None) -> MetadataImage:
    """Replay ``records`` on ``image`` as one delta (handy for lessons and tests)."""
    delta = MetadataDelta(image)
    for record in records:
        delta.replay(record)
    return delta.apply(provenance)
