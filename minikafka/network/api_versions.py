"""What a sandbox broker tells clients it speaks: the ApiVersions table and feature levels.

Theory of operation
-------------------
A client's first request on every connection is ApiVersions (KIP-35).  The
answer lists, for each API the broker serves, the lowest and highest version
it accepts; the client then uses, for every later request, the highest version
both sides know.  Clients also read the table to guess the broker's release
(kafka-python's ``infer_broker_version_from_api_versions``: DescribeLogDirs v5
means "4.3"), and librdkafka enables features from it (Produce v3 and Fetch v4 mean
"record batch v2").  So the ranges must be exactly those of a real release.

The sandbox advertises the ranges of Apache Kafka 4.3.1 (``api_keys``) for
the APIs it implements, and nothing else:

* produce, fetch, offsets, the classic consumer group protocol (with
  OffsetDelete), the KIP-848 consumer group protocol (ConsumerGroupHeartbeat,
  ConsumerGroupDescribe), topic, config, log-dir, reassignment and quorum
  administration (``SANDBOX_API_KEYS``);
* the three ACL APIs, which the sandbox answers as a broker without an
  authorizer does (SECURITY_DISABLED), because admin tools call them.

It does *not* advertise the transaction APIs (AddPartitionsToTxn,
AddOffsetsToTxn, EndTxn, TxnOffsetCommit, WriteTxnMarkers,
DescribeTransactions, ListTransactions, DescribeProducers), SASL, delegation
tokens, quotas, SCRAM, share or streams groups: a
real broker would serve them, and no Kafka error code says "not
implemented".  A client that needs one fails fast with its own "broker does
not support ..." error.  This is a documented fidelity difference.  The
features of those protocols (``group.version``, ``share.version``,
``streams.version``) are finalized at 4.3's levels all the same, as
``kafka-storage.sh format`` writes them: feature levels are cluster state,
the APIs a broker serves are its code.

A request is *enabled* when its API is advertised and its version lies in the
release's range.  Produce is the exception Kafka itself makes: it advertises
v0-v13 but accepts only v3-v13 (KAFKA-18659).  ApiVersions is always enabled,
whatever the version, so that a newer client can be told which version to
retry with.

Feature levels (KIP-584) also travel in ApiVersions v3+: the *supported*
ranges are a property of the broker binary (``BROKER_SUPPORTED_FEATURES``,
4.3.1's ``BrokerFeatures.defaultSupportedFeatures``), the *finalized* levels
and their epoch are cluster state that the broker reads from its metadata
image (`FinalizedFeatures`).

Mirrors ``ApiVersionsResponse.filterApis`` / ``ApiVersionManager.isApiEnabled``
and ``org.apache.kafka.server.BrokerFeatures``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from minikafka.common.java_hashing import hashmap_order
from minikafka.network.api_keys import API_KEYS, API_VERSIONS, broker_api_versions

METADATA_VERSION = "metadata.version"

ACL_API_KEYS = frozenset({29, 30, 31})
"""DescribeAcls, CreateAcls, DeleteAcls: advertised, answered with SECURITY_DISABLED."""

SANDBOX_API_KEYS = frozenset({
    18,                               # ApiVersions
    3, 60, 75,                        # Metadata, DescribeCluster, DescribeTopicPartitions
    0, 22,                            # Produce, InitProducerId
    1, 2, 23,                         # Fetch, ListOffsets, OffsetForLeaderEpoch
    10, 11, 14, 12, 13,               # FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup
    8, 9, 16, 15, 42,                 # OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups
    68, 69,                           # ConsumerGroupHeartbeat, ConsumerGroupDescribe (KIP-848)
    47,                               # OffsetDelete
    19, 20, 37, 21,                   # CreateTopics, DeleteTopics, CreatePartitions, DeleteRecords
    32, 33, 44, 74,                   # DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, ListConfigResources
    35, 34,                           # DescribeLogDirs, AlterReplicaLogDirs
    43, 45, 46,                       # ElectLeaders, AlterPartitionReassignments, ListPartitionReassignments
    55,                               # DescribeQuorum
}) | ACL_API_KEYS

ADVERTISED_API_VERSIONS: Mapping[int, tuple[int, int]] = MappingProxyType({
    key: versions for key, versions in sorted(broker_api_versions().items())
    if key in SANDBOX_API_KEYS})
"""``{api_key: (min_version, max_version)}`` as a sandbox broker lists them, in key order."""


def is_api_enabled(key: int, version: int,
                   advertised: Mapping[int, tuple[int, int]] = ADVERTISED_API_VERSIONS) -> bool:
    """Whether a broker advertising ``advertised`` processes ``key`` at ``version``.

    ApiVersions is accepted at any version (an unknown one gets a v0 answer);
    every other API must be advertised and the version must be one the release
    really parses (so Produce v0-v2 are refused although advertised).
    """
    if key == API_VERSIONS:
        return True
    if key not in advertised or key not in API_KEYS:
        return False
    low, high = advertised[key]
    oldest = API_KEYS[key].oldest
    return oldest is not None and max(low, oldest) <= version <= high


# --------------------------------------------------------------------------- features

METADATA_VERSION_MINIMUM = 7            # 3.3-IV3, the oldest metadata.version 4.x can run
METADATA_VERSION_LATEST_PRODUCTION = 30  # 4.3-IV0, LATEST_PRODUCTION in 4.3.1

# The production features of 4.3.1 (server-common's Feature.PRODUCTION_FEATURES, in the enum's
# order) after metadata.version: the order BrokerFeatures fills its HashMap in.
BROKER_SUPPORTED_FEATURES: Mapping[str, tuple[int, int]] = MappingProxyType({
    "metadata.version": (METADATA_VERSION_MINIMUM, METADATA_VERSION_LATEST_PRODUCTION),
    "kraft.version": (0, 1),
    "transaction.version": (0, 2),
    "group.version": (0, 1),
    "eligible.leader.replicas.version": (0, 1),
    "share.version": (0, 1),
    "streams.version": (0, 1),
})
"""Feature ranges a 4.3.1 broker supports with unstable feature versions disabled.

Every production feature whose latest production level is above 0 is listed
(``BrokerFeatures.defaultSupportedFeatures``); ``streams.version`` reached
level 1 in 4.2, so it is listed now.
"""


def copied_hashmap_capacity(size: int) -> int:
    """The table of ``new HashMap<>(map)`` for a map of ``size`` entries (16 when it is empty)."""
    if size == 0:
        return 16
    wanted = int(size / 0.75 + 1.0)
    table = 1
    while table < wanted:
        table *= 2
    return table


@dataclass(frozen=True, slots=True)
class FinalizedFeatures:
    """The cluster-wide feature levels a broker has replayed from the metadata log.

    ``levels`` includes ``metadata.version``; ``kraft.version`` only when it is
    above 0, as Kafka's ``KRaftMetadataCache.features()`` does.  ``epoch`` is the
    offset of the last record in the broker's metadata image.
    """

    levels: Mapping[str, int] = field(default_factory=dict)
    epoch: int = -1

    def finalized_keys(self) -> list[tuple[str, int]]:
        """``(name, level)`` pairs ApiVersions lists, level 0 left out ("not finalized").

        Kafka's ``FinalizedFeatures`` copies the image's feature map (a ``HashMap``)
        into a new ``HashMap`` sized for it and then puts ``metadata.version``; the
        response lists that map's iteration order, which this reproduces.
        """
        others = [name for name in sorted(self.levels) if self.levels[name] != 0 and name != METADATA_VERSION]
        in_image = hashmap_order(others)
        names = in_image + ([METADATA_VERSION] if METADATA_VERSION in self.levels else [])
        order = hashmap_order(names, initial_capacity=copied_hashmap_capacity(len(in_image)))
        return [(name, self.levels[name]) for name in order]


def supported_feature_keys(request_version: int) -> list[tuple[str, int, int]]:
    """``(name, min, max)`` to list for an ApiVersions request of ``request_version``, in the
    iteration order of the broker's ``HashMap`` of supported features.

    Requests below v4 never see a feature whose minimum is 0: older clients
    cannot parse it (KAFKA-17492), so only ``metadata.version`` remains.
    """
    return [(name, *BROKER_SUPPORTED_FEATURES[name]) for name in hashmap_order(BROKER_SUPPORTED_FEATURES)
            if request_version >= 4 or BROKER_SUPPORTED_FEATURES[name][0] != 0]
