"""``FeatureControlManager``: finalized feature levels and the bootstrap records of a new cluster.

Theory of operation
-------------------
Kafka versions the metadata format and protocol features with *feature
levels* that are finalized in the metadata log as ``FeatureLevelRecord`` s.
The most important one is ``metadata.version``: it says which records and
fields the controller may write.  A cluster formatted by Kafka 4.3's
``kafka-storage.sh format`` (or ``--release-version 4.3``) gets 4.3-IV0
(feature level 30) plus the default levels of the other features for that
release.

Those levels are the cluster's *bootstrap metadata*.  When the first
controller of a new cluster becomes active and finds the metadata log empty,
it appends them in a metadata transaction (KIP-868)::

    BeginTransactionRecord(name="Bootstrap records")
    FeatureLevelRecord(metadata.version, 30)
    FeatureLevelRecord(eligible.leader.replicas.version, 1)   other features: sorted
    FeatureLevelRecord(group.version, 1)                      by name, only levels
    ...                                                       above 0
    EndTransactionRecord()

Feature defaults for 4.3-IV0 (each feature's level is the highest one whose
bootstrap metadata.version is at most 4.3-IV0; ``kafka-storage.sh
version-mapping`` prints them): ``eligible.leader.replicas.version`` 1,
``group.version`` 1, ``share.version`` 1 and ``streams.version`` 1 (both 0
before 4.2), ``transaction.version`` 2; ``kraft.version`` (0 for a static
quorum) is a Raft-level feature with no FeatureLevelRecord.  Finalized
levels are cluster state: the sandbox finalizes ``share.version`` and
``streams.version`` as a real 4.3 cluster does although its brokers do not
serve share or streams groups (see ``network.api_versions``).

A cluster bootstrapped with ``eligible.leader.replicas.version`` 1 (KIP-966)
also gets a cluster-level ``min.insync.replicas`` in the same transaction,
after the feature levels: ``ConfigRecord(BROKER, "", min.insync.replicas)``
with the controller's static value (1 unless its server.properties sets it),
so every node resolves the same min ISR for the eligible leader replicas.

Mirrors ``org.apache.kafka.controller.FeatureControlManager``,
``ActivationRecordsGenerator.recordsForEmptyLog`` and
``BootstrapMetadata.fromVersions`` (Kafka 4.3).  Simplified:
``Cluster(features={...})`` formats with other levels (as ``kafka-storage.sh
format --feature eligible.leader.replicas.version=0`` would); UpdateFeatures
(``kafka-features.sh upgrade``) is not supported; a partial bootstrap transaction is never aborted, since the
sandbox appends the bootstrap records as one batch.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from minikafka.metadata.image import METADATA_VERSION, MetadataImage
from minikafka.metadata.records import (BeginTransactionRecord, ConfigRecord, EndTransactionRecord,
                                        FeatureLevelRecord, MetadataRecord)

ELIGIBLE_LEADER_REPLICAS_VERSION = "eligible.leader.replicas.version"   # EligibleLeaderReplicasVersion.FEATURE_NAME
BROKER_RESOURCE = 4                                                     # ConfigResource.Type.BROKER

# MetadataVersion feature levels of the Kafka 4.x releases (server-common MetadataVersion.java); 4.4-IV0
# (31) exists in 4.3.1 but is not production-ready, so a 4.3 node neither writes nor supports it.
METADATA_VERSION_NAMES: Mapping[int, str] = MappingProxyType({
    22: "4.0-IV0", 23: "4.0-IV1", 24: "4.0-IV2", 25: "4.0-IV3", 26: "4.1-IV0", 27: "4.1-IV1",
    28: "4.2-IV0", 29: "4.2-IV1", 30: "4.3-IV0"})
METADATA_VERSION_4_3_IV0 = 30

# Bootstrap levels of the other features for 4.3-IV0, as the sandbox formats them.
BOOTSTRAP_FEATURES_4_3: Mapping[str, int] = MappingProxyType({
    # Kafka 4.1+ bootstraps 1 (KIP-966 on); Cluster(features=...) can format with 0.
    "eligible.leader.replicas.version": 1,
    "group.version": 1,
    "share.version": 1,                 # KIP-932 share groups: 1 by default since 4.2
    "streams.version": 1,               # KIP-1071 streams groups: 1 by default since 4.2
    "transaction.version": 2,
})


# What a Kafka 4.3 broker (and controller) advertises as supported in its registration
# (BrokerFeatures.defaultSupportedFeatures: metadata.version from MINIMUM_VERSION, then every
# production feature whose latest production level is above 0, in the Feature enum's order).
SUPPORTED_FEATURES_4_3: Mapping[str, tuple[int, int]] = MappingProxyType({
    "metadata.version": (7, METADATA_VERSION_4_3_IV0),
    "kraft.version": (0, 1),
    "transaction.version": (0, 2),
    "group.version": (0, 1),
    "eligible.leader.replicas.version": (0, 1),
    "share.version": (0, 1),
    "streams.version": (0, 1),
})


class FeatureControlManager:
    """Knows the bootstrap levels; reads finalized levels from the metadata image."""

    def __init__(self, metadata_version: int = METADATA_VERSION_4_3_IV0,
                 features: Mapping[str, int] = BOOTSTRAP_FEATURES_4_3, min_insync_replicas: int = 1):
        self.bootstrap_metadata_version = metadata_version   # feature level written at bootstrap
        self.bootstrap_features = dict(features)              # other features written at bootstrap
        self.min_insync_replicas = min_insync_replicas        # the controller's static min.insync.replicas

    def bootstrap_records(self) -> list[MetadataRecord]:
        """The records the first active controller appends to an empty metadata log."""
        records: list[MetadataRecord] = [BeginTransactionRecord(name="Bootstrap records"),
                         FeatureLevelRecord(name=METADATA_VERSION, feature_level=self.bootstrap_metadata_version)]
        records += [FeatureLevelRecord(name=name, feature_level=level)
                    for name, level in sorted(self.bootstrap_features.items()) if level > 0]
        if self.bootstrap_features.get(ELIGIBLE_LEADER_REPLICAS_VERSION, 0) > 0:
            records.append(ConfigRecord(resource_type=BROKER_RESOURCE, resource_name="",
                                        name="min.insync.replicas", value=str(self.min_insync_replicas)))
        records.append(EndTransactionRecord())
        return records

    @staticmethod
    def metadata_version(image: MetadataImage) -> int | None:
        return image.features.metadata_version

    @staticmethod
    def metadata_version_name(level: int | None) -> str:
        """``30`` -> ``4.3-IV0`` (the name Kafka's tools print)."""
        if level is None:
            return "none"
        return METADATA_VERSION_NAMES.get(level, f"feature level {level}")

    @staticmethod
    def finalized_levels(image: MetadataImage) -> dict[str, int]:
        levels = dict(image.features.finalized_versions)
        if image.features.metadata_version is not None:
            levels[METADATA_VERSION] = image.features.metadata_version
        return levels


def is_elr_enabled(image: MetadataImage) -> bool:
    """``FeatureControlManager.isElrFeatureEnabled``: eligible.leader.replicas.version is 1 or more."""
    return image.features.level(ELIGIBLE_LEADER_REPLICAS_VERSION) >= 1
