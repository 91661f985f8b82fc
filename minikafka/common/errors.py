"""Kafka's error codes, their default messages and the exceptions that carry them.

Theory of operation
-------------------
Every Kafka response carries a 16-bit error code.  The code is part of the
protocol; the name and the default message are what a Java client (or the
Kafka tools) print when they meet it.  This module is the single table of
those facts for the sandbox: `Errors.NOT_LEADER_OR_FOLLOWER.code == 6`, and
`Errors.NOT_LEADER_OR_FOLLOWER.message` is Kafka's default text.

Python code inside the sandbox raises `KafkaException` subclasses named like
Kafka's Java exceptions (`InvalidTopicException`, `TopicExistsException`, ...).
Each knows its `Errors` member, so a protocol handler can turn any raised
exception into the right error code and message without a lookup table of its
own.

Mirrors ``org.apache.kafka.common.protocol.Errors`` and the exception classes
in ``org.apache.kafka.common.errors``.  Simplified: only the exception classes
the sandbox raises are defined; every code is still known by name.
"""

from __future__ import annotations

import enum

# (code, NAME, Java exception class or None, retriable, default message)
_TABLE: list[tuple[int, str, str | None, bool, str | None]] = [
    (-1, "UNKNOWN_SERVER_ERROR", "UnknownServerException", False,
     "The server experienced an unexpected error when processing the request."),
    (0, "NONE", None, False, None),
    (1, "OFFSET_OUT_OF_RANGE", "OffsetOutOfRangeException", False,
     "The requested offset is not within the range of offsets maintained by the server."),
    (2, "CORRUPT_MESSAGE", "CorruptRecordException", True,
     "This message has failed its CRC checksum, exceeds the valid size, has a null key for a "
     "compacted topic, or is otherwise corrupt."),
    (3, "UNKNOWN_TOPIC_OR_PARTITION", "UnknownTopicOrPartitionException", True,
     "This server does not host this topic-partition."),
    (4, "INVALID_FETCH_SIZE", "InvalidFetchSizeException", False,
     "The requested fetch size is invalid."),
    (5, "LEADER_NOT_AVAILABLE", "LeaderNotAvailableException", True,
     "There is no leader for this topic-partition as we are in the middle of a leadership election."),
    (6, "NOT_LEADER_OR_FOLLOWER", "NotLeaderOrFollowerException", True,
     "For requests intended only for the leader, this error indicates that the broker is not the "
     "current leader. For requests intended for any replica, this error indicates that the broker "
     "is not a replica of the topic partition."),
    (7, "REQUEST_TIMED_OUT", "TimeoutException", True, "The request timed out."),
    (8, "BROKER_NOT_AVAILABLE", "BrokerNotAvailableException", False, "The broker is not available."),
    (9, "REPLICA_NOT_AVAILABLE", "ReplicaNotAvailableException", True,
     "The replica is not available for the requested topic-partition. Produce/Fetch requests and "
     "other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the "
     "broker is not a replica of the topic-partition."),
    (10, "MESSAGE_TOO_LARGE", "RecordTooLargeException", False,
     "The request included a message larger than the max message size the server will accept."),
    (11, "STALE_CONTROLLER_EPOCH", "ControllerMovedException", False,
     "The controller moved to another broker."),
    (12, "OFFSET_METADATA_TOO_LARGE", "OffsetMetadataTooLarge", False,
     "The metadata field of the offset request was too large."),
    (13, "NETWORK_EXCEPTION", "NetworkException", True,
     "The server disconnected before a response was received."),
    (14, "COORDINATOR_LOAD_IN_PROGRESS", "CoordinatorLoadInProgressException", True,
     "The coordinator is loading and hence can't process requests."),
    (15, "COORDINATOR_NOT_AVAILABLE", "CoordinatorNotAvailableException", True,
     "The coordinator is not available."),
    (16, "NOT_COORDINATOR", "NotCoordinatorException", True, "This is not the correct coordinator."),
    (17, "INVALID_TOPIC_EXCEPTION", "InvalidTopicException", False,
     "The request attempted to perform an operation on an invalid topic."),
    (18, "RECORD_LIST_TOO_LARGE", "RecordBatchTooLargeException", False,
     "The request included message batch larger than the configured segment size on the server."),
    (19, "NOT_ENOUGH_REPLICAS", "NotEnoughReplicasException", True,
     "Messages are rejected since there are fewer in-sync replicas than required."),
    (20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "NotEnoughReplicasAfterAppendException", True,
     "Messages are written to the log, but to fewer in-sync replicas than required."),
    (21, "INVALID_REQUIRED_ACKS", "InvalidRequiredAcksException", False,
     "Produce request specified an invalid value for required acks."),
    (22, "ILLEGAL_GENERATION", "IllegalGenerationException", False,
     "Specified group generation id is not valid."),
    (23, "INCONSISTENT_GROUP_PROTOCOL", "InconsistentGroupProtocolException", False,
     "The group member's supported protocols are incompatible with those of existing members or "
     "first group member tried to join with empty protocol type or empty protocol list."),
    (24, "INVALID_GROUP_ID", "InvalidGroupIdException", False, "The group id is invalid."),
    (25, "UNKNOWN_MEMBER_ID", "UnknownMemberIdException", False,
     "The coordinator is not aware of this member."),
    (26, "INVALID_SESSION_TIMEOUT", "InvalidSessionTimeoutException", False,
     "The session timeout is not within the range allowed by the broker (as configured by "
     "group.min.session.timeout.ms and group.max.session.timeout.ms)."),
    (27, "REBALANCE_IN_PROGRESS", "RebalanceInProgressException", False,
     "The group is rebalancing, so a rejoin is needed."),
    (28, "INVALID_COMMIT_OFFSET_SIZE", "InvalidCommitOffsetSizeException", False,
     "The committing offset data size is not valid."),
    (29, "TOPIC_AUTHORIZATION_FAILED", "TopicAuthorizationException", False,
     "Topic authorization failed."),
    (30, "GROUP_AUTHORIZATION_FAILED", "GroupAuthorizationException", False,
     "Group authorization failed."),
    (31, "CLUSTER_AUTHORIZATION_FAILED", "ClusterAuthorizationException", False,
     "Cluster authorization failed."),
    (32, "INVALID_TIMESTAMP", "InvalidTimestampException", False,
     "The timestamp of the message is out of acceptable range."),
    (33, "UNSUPPORTED_SASL_MECHANISM", "UnsupportedSaslMechanismException", False,
     "The broker does not support the requested SASL mechanism."),
    (34, "ILLEGAL_SASL_STATE", "IllegalSaslStateException", False,
     "Request is not valid given the current SASL state."),
    (35, "UNSUPPORTED_VERSION", "UnsupportedVersionException", False,
     "The version of API is not supported."),
    (36, "TOPIC_ALREADY_EXISTS", "TopicExistsException", False,
     "Topic with this name already exists."),
    (37, "INVALID_PARTITIONS", "InvalidPartitionsException", False,
     "Number of partitions is below 1."),
    (38, "INVALID_REPLICATION_FACTOR", "InvalidReplicationFactorException", False,
     "Replication factor is below 1 or larger than the number of available brokers."),
    (39, "INVALID_REPLICA_ASSIGNMENT", "InvalidReplicaAssignmentException", False,
     "Replica assignment is invalid."),
    (40, "INVALID_CONFIG", "InvalidConfigurationException", False, "Configuration is invalid."),
    (41, "NOT_CONTROLLER", "NotControllerException", True,
     "This is not the correct controller for this cluster."),
    (42, "INVALID_REQUEST", "InvalidRequestException", False,
     "This most likely occurs because of a request being malformed by the client library or the "
     "message was sent to an incompatible broker. See the broker logs for more details."),
    (43, "UNSUPPORTED_FOR_MESSAGE_FORMAT", "UnsupportedForMessageFormatException", False,
     "The message format version on the broker does not support the request."),
    (44, "POLICY_VIOLATION", "PolicyViolationException", False,
     "Request parameters do not satisfy the configured policy."),
    (45, "OUT_OF_ORDER_SEQUENCE_NUMBER", "OutOfOrderSequenceException", False,
     "The broker received an out of order sequence number."),
    (46, "DUPLICATE_SEQUENCE_NUMBER", "DuplicateSequenceException", False,
     "The broker received a duplicate sequence number."),
    (47, "INVALID_PRODUCER_EPOCH", "InvalidProducerEpochException", False,
     "Producer attempted to produce with an old epoch."),
    (48, "INVALID_TXN_STATE", "InvalidTxnStateException", False,
     "The producer attempted a transactional operation in an invalid state."),
    (49, "INVALID_PRODUCER_ID_MAPPING", "InvalidPidMappingException", False,
     "The producer attempted to use a producer id which is not currently assigned to its "
     "transactional id."),
    (50, "INVALID_TRANSACTION_TIMEOUT", "InvalidTxnTimeoutException", False,
     "The transaction timeout is larger than the maximum value allowed by the broker (as "
     "configured by transaction.max.timeout.ms)."),
    (51, "CONCURRENT_TRANSACTIONS", "ConcurrentTransactionsException", True,
     "The producer attempted to update a transaction while another concurrent operation on the "
     "same transaction was ongoing."),
    (52, "TRANSACTION_COORDINATOR_FENCED", "TransactionCoordinatorFencedException", False,
     "Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current "
     "coordinator for a given producer."),
    (53, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "TransactionalIdAuthorizationException", False,
     "Transactional Id authorization failed."),
    (54, "SECURITY_DISABLED", "SecurityDisabledException", False, "Security features are disabled."),
    (55, "OPERATION_NOT_ATTEMPTED", "OperationNotAttemptedException", False,
     "The broker did not attempt to execute this operation. This may happen for batched RPCs where "
     "some operations in the batch failed, causing the broker to respond without trying the rest."),
    (56, "KAFKA_STORAGE_ERROR", "KafkaStorageException", True,
     "Disk error when trying to access log file on the disk."),
    (57, "LOG_DIR_NOT_FOUND", "LogDirNotFoundException", False,
     "The user-specified log directory is not found in the broker config."),
    (58, "SASL_AUTHENTICATION_FAILED", "SaslAuthenticationException", False,
     "SASL Authentication failed."),
    (59, "UNKNOWN_PRODUCER_ID", "UnknownProducerIdException", False,
     "This exception is raised by the broker if it could not locate the producer metadata "
     "associated with the producerId in question. This could happen if, for instance, the "
     "producer's records were deleted because their retention time had elapsed. Once the last "
     "records of the producerId are removed, the producer's metadata is removed from the broker, "
     "and future appends by the producer will return this exception."),
    (60, "REASSIGNMENT_IN_PROGRESS", "ReassignmentInProgressException", False,
     "A partition reassignment is in progress."),
    (67, "INVALID_PRINCIPAL_TYPE", "InvalidPrincipalTypeException", False,
     "Supplied principalType is not supported."),
    (68, "NON_EMPTY_GROUP", "GroupNotEmptyException", False, "The group is not empty."),
    (69, "GROUP_ID_NOT_FOUND", "GroupIdNotFoundException", False, "The group id does not exist."),
    (70, "FETCH_SESSION_ID_NOT_FOUND", "FetchSessionIdNotFoundException", True,
     "The fetch session ID was not found."),
    (71, "INVALID_FETCH_SESSION_EPOCH", "InvalidFetchSessionEpochException", True,
     "The fetch session epoch is invalid."),
    (72, "LISTENER_NOT_FOUND", "ListenerNotFoundException", True,
     "There is no listener on the leader broker that matches the listener on which metadata "
     "request was processed."),
    (73, "TOPIC_DELETION_DISABLED", "TopicDeletionDisabledException", False,
     "Topic deletion is disabled."),
    (74, "FENCED_LEADER_EPOCH", "FencedLeaderEpochException", True,
     "The leader epoch in the request is older than the epoch on the broker."),
    (75, "UNKNOWN_LEADER_EPOCH", "UnknownLeaderEpochException", True,
     "The leader epoch in the request is newer than the epoch on the broker."),
    (76, "UNSUPPORTED_COMPRESSION_TYPE", "UnsupportedCompressionTypeException", False,
     "The requesting client does not support the compression type of given partition."),
    (77, "STALE_BROKER_EPOCH", "StaleBrokerEpochException", False, "Broker epoch has changed."),
    (78, "OFFSET_NOT_AVAILABLE", "OffsetNotAvailableException", True,
     "The leader high watermark has not caught up from a recent leader election so the offsets "
     "cannot be guaranteed to be monotonically increasing."),
    (79, "MEMBER_ID_REQUIRED", "MemberIdRequiredException", False,
     "The group member needs to have a valid member id before actually entering a consumer group."),
    (80, "PREFERRED_LEADER_NOT_AVAILABLE", "PreferredLeaderNotAvailableException", True,
     "The preferred leader was not available."),
    (81, "GROUP_MAX_SIZE_REACHED", "GroupMaxSizeReachedException", False,
     "The group has reached its maximum size."),
    (82, "FENCED_INSTANCE_ID", "FencedInstanceIdException", False,
     "The broker rejected this static consumer since another consumer with the same "
     "group.instance.id has registered with a different member.id."),
    (83, "ELIGIBLE_LEADERS_NOT_AVAILABLE", "EligibleLeadersNotAvailableException", True,
     "Eligible topic partition leaders are not available."),
    (84, "ELECTION_NOT_NEEDED", "ElectionNotNeededException", False,
     "Leader election not needed for topic partition."),
    (85, "NO_REASSIGNMENT_IN_PROGRESS", "NoReassignmentInProgressException", False,
     "No partition reassignment is in progress."),
    (86, "GROUP_SUBSCRIBED_TO_TOPIC", "GroupSubscribedToTopicException", False,
     "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed "
     "to it."),
    (87, "INVALID_RECORD", "InvalidRecordException", False,
     "This record has failed the validation on broker and hence will be rejected."),
    (88, "UNSTABLE_OFFSET_COMMIT", "UnstableOffsetCommitException", True,
     "There are unstable offsets that need to be cleared."),
    (89, "THROTTLING_QUOTA_EXCEEDED", "ThrottlingQuotaExceededException", True,
     "The throttling quota has been exceeded."),
    (90, "PRODUCER_FENCED", "ProducerFencedException", False,
     "There is a newer producer with the same transactionalId which fences the current one."),
    (91, "RESOURCE_NOT_FOUND", "ResourceNotFoundException", False,
     "A request illegally referred to a resource that does not exist."),
    (92, "DUPLICATE_RESOURCE", "DuplicateResourceException", False,
     "A request illegally referred to the same resource twice."),
    (94, "INCONSISTENT_VOTER_SET", "InconsistentVoterSetException", False,
     "Indicates that the either the sender or recipient of a voter-only request is not one of the "
     "expected voters."),
    (95, "INVALID_UPDATE_VERSION", "InvalidUpdateVersionException", False,
     "The given update version was invalid."),
    (98, "SNAPSHOT_NOT_FOUND", "SnapshotNotFoundException", False,
     "Requested snapshot was not found."),
    (100, "UNKNOWN_TOPIC_ID", "UnknownTopicIdException", True,
     "This server does not host this topic ID."),
    (101, "DUPLICATE_BROKER_REGISTRATION", "DuplicateBrokerRegistrationException", False,
     "This broker ID is already in use."),
    (102, "BROKER_ID_NOT_REGISTERED", "BrokerIdNotRegisteredException", False,
     "The given broker ID was not registered."),
    (103, "INCONSISTENT_TOPIC_ID", "InconsistentTopicIdException", True,
     "The log's topic ID did not match the topic ID in the request."),
    (104, "INCONSISTENT_CLUSTER_ID", "InconsistentClusterIdException", False,
     "The clusterId in the request does not match that found on the server."),
    (106, "FETCH_SESSION_TOPIC_ID_ERROR", "FetchSessionTopicIdException", True,
     "The fetch session encountered inconsistent topic ID usage."),
    (107, "INELIGIBLE_REPLICA", "IneligibleReplicaException", False,
     "The new ISR contains at least one ineligible replica."),
    (108, "NEW_LEADER_ELECTED", "NewLeaderElectedException", False,
     "The AlterPartition request successfully updated the partition state but the leader has "
     "changed."),
    (110, "FENCED_MEMBER_EPOCH", "FencedMemberEpochException", False,
     "The member epoch is fenced by the group coordinator. The member must abandon all its "
     "partitions and rejoin."),
    (111, "UNRELEASED_INSTANCE_ID", "UnreleasedInstanceIdException", False,
     "The instance ID is still used by another member in the consumer group. That member must "
     "leave first."),
    (112, "UNSUPPORTED_ASSIGNOR", "UnsupportedAssignorException", False,
     "The assignor or its version range is not supported by the consumer group."),
    (113, "STALE_MEMBER_EPOCH", "StaleMemberEpochException", False,
     "The member epoch is stale. The member must retry after receiving its updated member epoch "
     "via the ConsumerGroupHeartbeat API."),
    (114, "MISMATCHED_ENDPOINT_TYPE", "MismatchedEndpointTypeException", False,
     "The request was sent to an endpoint of the wrong type."),
    (115, "UNSUPPORTED_ENDPOINT_TYPE", "UnsupportedEndpointTypeException", False,
     "This endpoint type is not supported yet."),
    (116, "UNKNOWN_CONTROLLER_ID", "UnknownControllerIdException", False,
     "This controller ID is not known."),
    (119, "INVALID_REGISTRATION", "InvalidRegistrationException", False,
     "The controller has considered the broker registration to be invalid."),
    (128, "INVALID_REGULAR_EXPRESSION", "InvalidRegularExpression", False,
     "The regular expression is not valid."),
]


class Errors(enum.Enum):
    """One member per Kafka error code, e.g. ``Errors.NOT_LEADER_OR_FOLLOWER``."""

    def __new__(cls, code, exception_name, retriable, message):
        member = object.__new__(cls)
        member._value_ = code
        member.code = code
        member.exception_name = exception_name
        member.retriable = retriable
        member.message = message
        return member

    @classmethod
    def for_code(cls, code: int) -> "Errors":
        try:
            return cls(code)
        except ValueError:
            return cls.UNKNOWN_SERVER_ERROR

    def exception(self, message: str | None = None) -> "KafkaException":
        """An exception instance for this error with ``message`` or Kafka's default text."""
        exc_class = _EXCEPTION_CLASSES.get(self, KafkaException)
        exc = exc_class(message if message is not None else self.message)
        exc.error = self
        return exc


Errors = Errors("Errors", [(name, (code, exc, retriable, message))
                           for code, name, exc, retriable, message in _TABLE])  # type: ignore[misc]


class KafkaException(Exception):
    """Base of every error the sandbox raises in Kafka's words.

    ``error`` is the matching `Errors` member, ``message`` the text Kafka would
    print.  ``str(exc)`` is the message alone, as in Java's ``getMessage()``.
    """

    error: "Errors" = Errors.UNKNOWN_SERVER_ERROR

    def __init__(self, message: str | None = None):
        self.message = message if message is not None else self.error.message
        super().__init__(self.message)

    @property
    def java_class(self) -> str:
        """The fully qualified Java class name Kafka's tools print before the message."""
        return f"org.apache.kafka.common.errors.{type(self).__name__}"

    @property
    def retriable(self) -> bool:
        return self.error.retriable


_EXCEPTION_CLASSES: dict[Errors, type[KafkaException]] = {}
for _member in Errors:
    if _member.exception_name:
        _EXCEPTION_CLASSES[_member] = type(_member.exception_name, (KafkaException,),
                                           {"error": _member, "__module__": __name__})
        globals()[_member.exception_name] = _EXCEPTION_CLASSES[_member]


def exception_for(error: Errors) -> type[KafkaException]:
    """The exception class Kafka uses for ``error`` (e.g. InvalidTopicException)."""
    return _EXCEPTION_CLASSES.get(error, KafkaException)


# Names other modules import directly; spelled out so linters and readers can see them.
UnknownServerException = exception_for(Errors.UNKNOWN_SERVER_ERROR)
OffsetOutOfRangeException = exception_for(Errors.OFFSET_OUT_OF_RANGE)
CorruptRecordException = exception_for(Errors.CORRUPT_MESSAGE)
UnknownTopicOrPartitionException = exception_for(Errors.UNKNOWN_TOPIC_OR_PARTITION)
LeaderNotAvailableException = exception_for(Errors.LEADER_NOT_AVAILABLE)
NotLeaderOrFollowerException = exception_for(Errors.NOT_LEADER_OR_FOLLOWER)
TimeoutException = exception_for(Errors.REQUEST_TIMED_OUT)
BrokerNotAvailableException = exception_for(Errors.BROKER_NOT_AVAILABLE)
RecordTooLargeException = exception_for(Errors.MESSAGE_TOO_LARGE)
InvalidTopicException = exception_for(Errors.INVALID_TOPIC_EXCEPTION)
RecordBatchTooLargeException = exception_for(Errors.RECORD_LIST_TOO_LARGE)
NotEnoughReplicasException = exception_for(Errors.NOT_ENOUGH_REPLICAS)
NotEnoughReplicasAfterAppendException = exception_for(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND)
InvalidRequiredAcksException = exception_for(Errors.INVALID_REQUIRED_ACKS)
UnsupportedVersionException = exception_for(Errors.UNSUPPORTED_VERSION)
TopicExistsException = exception_for(Errors.TOPIC_ALREADY_EXISTS)
InvalidPartitionsException = exception_for(Errors.INVALID_PARTITIONS)
InvalidReplicationFactorException = exception_for(Errors.INVALID_REPLICATION_FACTOR)
InvalidReplicaAssignmentException = exception_for(Errors.INVALID_REPLICA_ASSIGNMENT)
InvalidConfigurationException = exception_for(Errors.INVALID_CONFIG)
NotControllerException = exception_for(Errors.NOT_CONTROLLER)
InvalidRequestException = exception_for(Errors.INVALID_REQUEST)
PolicyViolationException = exception_for(Errors.POLICY_VIOLATION)
OutOfOrderSequenceException = exception_for(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER)
DuplicateSequenceException = exception_for(Errors.DUPLICATE_SEQUENCE_NUMBER)
InvalidProducerEpochException = exception_for(Errors.INVALID_PRODUCER_EPOCH)
KafkaStorageException = exception_for(Errors.KAFKA_STORAGE_ERROR)
UnknownProducerIdException = exception_for(Errors.UNKNOWN_PRODUCER_ID)
ReassignmentInProgressException = exception_for(Errors.REASSIGNMENT_IN_PROGRESS)
FencedLeaderEpochException = exception_for(Errors.FENCED_LEADER_EPOCH)
UnknownLeaderEpochException = exception_for(Errors.UNKNOWN_LEADER_EPOCH)
StaleBrokerEpochException = exception_for(Errors.STALE_BROKER_EPOCH)
ElectionNotNeededException = exception_for(Errors.ELECTION_NOT_NEEDED)
EligibleLeadersNotAvailableException = exception_for(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE)
PreferredLeaderNotAvailableException = exception_for(Errors.PREFERRED_LEADER_NOT_AVAILABLE)
NoReassignmentInProgressException = exception_for(Errors.NO_REASSIGNMENT_IN_PROGRESS)
InvalidRecordException = exception_for(Errors.INVALID_RECORD)
UnknownTopicIdException = exception_for(Errors.UNKNOWN_TOPIC_ID)
DuplicateBrokerRegistrationException = exception_for(Errors.DUPLICATE_BROKER_REGISTRATION)
BrokerIdNotRegisteredException = exception_for(Errors.BROKER_ID_NOT_REGISTERED)
InconsistentClusterIdException = exception_for(Errors.INCONSISTENT_CLUSTER_ID)
InconsistentTopicIdException = exception_for(Errors.INCONSISTENT_TOPIC_ID)
IneligibleReplicaException = exception_for(Errors.INELIGIBLE_REPLICA)


class ConfigException(KafkaException):
    """Raised for a bad node or topic configuration, as Kafka's ``ConfigException``.

    Kafka's message form is ``Invalid value <v> for configuration <name>: <reason>``.
    """

    error = Errors.INVALID_CONFIG

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.common.config.ConfigException"


class InconsistentNodeStorageException(KafkaException):
    """A data directory that belongs to another cluster or node (Kafka fails at start-up)."""

    error = Errors.INCONSISTENT_CLUSTER_ID

    @property
    def java_class(self) -> str:
        return "java.lang.RuntimeException"
