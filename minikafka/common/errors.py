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


class Errors(enum.Enum):
    """One member per Kafka error code, e.g. ``Errors.NOT_LEADER_OR_FOLLOWER``.

    Each member is ``NAME = (code, Java exception class or None, retriable, default message)``.
    """

    code: int                       # the 16-bit code on the wire
    exception_name: str | None      # Kafka's Java exception class (simple name), None for NONE
    retriable: bool                 # whether a client may retry the request as it is
    message: str | None             # Kafka's default message for the exception

    UNKNOWN_SERVER_ERROR = (-1, "UnknownServerException", False,
        "The server experienced an unexpected error when processing the request.")
    NONE = (0, None, False, None)
    OFFSET_OUT_OF_RANGE = (1, "OffsetOutOfRangeException", False,
        "The requested offset is not within the range of offsets maintained by the server.")
    CORRUPT_MESSAGE = (2, "CorruptRecordException", True,
        "This message has failed its CRC checksum, exceeds the valid size, has a null key for a "
        "compacted topic, or is otherwise corrupt.")
    UNKNOWN_TOPIC_OR_PARTITION = (3, "UnknownTopicOrPartitionException", True,
        "This server does not host this topic-partition.")
    INVALID_FETCH_SIZE = (4, "InvalidFetchSizeException", False, "The requested fetch size is invalid.")
    LEADER_NOT_AVAILABLE = (5, "LeaderNotAvailableException", True,
        "There is no leader for this topic-partition as we are in the middle of a leadership "
        "election.")
    NOT_LEADER_OR_FOLLOWER = (6, "NotLeaderOrFollowerException", True,
        "For requests intended only for the leader, this error indicates that the broker is not the"
        " current leader. For requests intended for any replica, this error indicates that the "
        "broker is not a replica of the topic partition.")
    REQUEST_TIMED_OUT = (7, "TimeoutException", True, "The request timed out.")
    BROKER_NOT_AVAILABLE = (8, "BrokerNotAvailableException", False, "The broker is not available.")
    REPLICA_NOT_AVAILABLE = (9, "ReplicaNotAvailableException", True,
        "The replica is not available for the requested topic-partition. Produce/Fetch requests and"
        " other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if "
        "the broker is not a replica of the topic-partition.")
    MESSAGE_TOO_LARGE = (10, "RecordTooLargeException", False,
        "The request included a message larger than the max message size the server will accept.")
    STALE_CONTROLLER_EPOCH = (11, "ControllerMovedException", False,
        "The controller moved to another broker.")
    OFFSET_METADATA_TOO_LARGE = (12, "OffsetMetadataTooLarge", False,
        "The metadata field of the offset request was too large.")
    NETWORK_EXCEPTION = (13, "NetworkException", True,
        "The server disconnected before a response was received.")
    COORDINATOR_LOAD_IN_PROGRESS = (14, "CoordinatorLoadInProgressException", True,
        "The coordinator is loading and hence can't process requests.")
    COORDINATOR_NOT_AVAILABLE = (15, "CoordinatorNotAvailableException", True,
        "The coordinator is not available.")
    NOT_COORDINATOR = (16, "NotCoordinatorException", True, "This is not the correct coordinator.")
    INVALID_TOPIC_EXCEPTION = (17, "InvalidTopicException", False,
        "The request attempted to perform an operation on an invalid topic.")
    RECORD_LIST_TOO_LARGE = (18, "RecordBatchTooLargeException", False,
        "The request included message batch larger than the configured segment size on the server.")
    NOT_ENOUGH_REPLICAS = (19, "NotEnoughReplicasException", True,
        "Messages are rejected since there are fewer in-sync replicas than required.")
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = (20, "NotEnoughReplicasAfterAppendException", True,
        "Messages are written to the log, but to fewer in-sync replicas than required.")
    INVALID_REQUIRED_ACKS = (21, "InvalidRequiredAcksException", False,
        "Produce request specified an invalid value for required acks.")
    ILLEGAL_GENERATION = (22, "IllegalGenerationException", False,
        "Specified group generation id is not valid.")
    INCONSISTENT_GROUP_PROTOCOL = (23, "InconsistentGroupProtocolException", False,
        "The group member's supported protocols are incompatible with those of existing members or "
        "first group member tried to join with empty protocol type or empty protocol list.")
    INVALID_GROUP_ID = (24, "InvalidGroupIdException", False, "The group id is invalid.")
    UNKNOWN_MEMBER_ID = (25, "UnknownMemberIdException", False,
        "The coordinator is not aware of this member.")
    INVALID_SESSION_TIMEOUT = (26, "InvalidSessionTimeoutException", False,
        "The session timeout is not within the range allowed by the broker (as configured by "
        "group.min.session.timeout.ms and group.max.session.timeout.ms).")
    REBALANCE_IN_PROGRESS = (27, "RebalanceInProgressException", False,
        "The group is rebalancing, so a rejoin is needed.")
    INVALID_COMMIT_OFFSET_SIZE = (28, "InvalidCommitOffsetSizeException", False,
        "The committing offset data size is not valid.")
    TOPIC_AUTHORIZATION_FAILED = (29, "TopicAuthorizationException", False, "Topic authorization failed.")
    GROUP_AUTHORIZATION_FAILED = (30, "GroupAuthorizationException", False, "Group authorization failed.")
    CLUSTER_AUTHORIZATION_FAILED = (31, "ClusterAuthorizationException", False,
        "Cluster authorization failed.")
    INVALID_TIMESTAMP = (32, "InvalidTimestampException", False,
        "The timestamp of the message is out of acceptable range.")
    UNSUPPORTED_SASL_MECHANISM = (33, "UnsupportedSaslMechanismException", False,
        "The broker does not support the requested SASL mechanism.")
    ILLEGAL_SASL_STATE = (34, "IllegalSaslStateException", False,
        "Request is not valid given the current SASL state.")
    UNSUPPORTED_VERSION = (35, "UnsupportedVersionException", False, "The version of API is not supported.")
    TOPIC_ALREADY_EXISTS = (36, "TopicExistsException", False, "Topic with this name already exists.")
    INVALID_PARTITIONS = (37, "InvalidPartitionsException", False, "Number of partitions is below 1.")
    INVALID_REPLICATION_FACTOR = (38, "InvalidReplicationFactorException", False,
        "Replication factor is below 1 or larger than the number of available brokers.")
    INVALID_REPLICA_ASSIGNMENT = (39, "InvalidReplicaAssignmentException", False,
        "Replica assignment is invalid.")
    INVALID_CONFIG = (40, "InvalidConfigurationException", False, "Configuration is invalid.")
    NOT_CONTROLLER = (41, "NotControllerException", True,
        "This is not the correct controller for this cluster.")
    INVALID_REQUEST = (42, "InvalidRequestException", False,
        "This most likely occurs because of a request being malformed by the client library or the "
        "message was sent to an incompatible broker. See the broker logs for more details.")
    UNSUPPORTED_FOR_MESSAGE_FORMAT = (43, "UnsupportedForMessageFormatException", False,
        "The message format version on the broker does not support the request.")
    POLICY_VIOLATION = (44, "PolicyViolationException", False,
        "Request parameters do not satisfy the configured policy.")
    OUT_OF_ORDER_SEQUENCE_NUMBER = (45, "OutOfOrderSequenceException", False,
        "The broker received an out of order sequence number.")
    DUPLICATE_SEQUENCE_NUMBER = (46, "DuplicateSequenceException", False,
        "The broker received a duplicate sequence number.")
    INVALID_PRODUCER_EPOCH = (47, "InvalidProducerEpochException", False,
        "Producer attempted to produce with an old epoch.")
    INVALID_TXN_STATE = (48, "InvalidTxnStateException", False,
        "The producer attempted a transactional operation in an invalid state.")
    INVALID_PRODUCER_ID_MAPPING = (49, "InvalidPidMappingException", False,
        "The producer attempted to use a producer id which is not currently assigned to its "
        "transactional id.")
    INVALID_TRANSACTION_TIMEOUT = (50, "InvalidTxnTimeoutException", False,
        "The transaction timeout is larger than the maximum value allowed by the broker (as "
        "configured by transaction.max.timeout.ms).")
    CONCURRENT_TRANSACTIONS = (51, "ConcurrentTransactionsException", True,
        "The producer attempted to update a transaction while another concurrent operation on the "
        "same transaction was ongoing.")
    TRANSACTION_COORDINATOR_FENCED = (52, "TransactionCoordinatorFencedException", False,
        "Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the "
        "current coordinator for a given producer.")
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = (53, "TransactionalIdAuthorizationException", False,
        "Transactional Id authorization failed.")
    SECURITY_DISABLED = (54, "SecurityDisabledException", False, "Security features are disabled.")
    OPERATION_NOT_ATTEMPTED = (55, "OperationNotAttemptedException", False,
        "The broker did not attempt to execute this operation. This may happen for batched RPCs "
        "where some operations in the batch failed, causing the broker to respond without trying "
        "the rest.")
    KAFKA_STORAGE_ERROR = (56, "KafkaStorageException", True,
        "Disk error when trying to access log file on the disk.")
    LOG_DIR_NOT_FOUND = (57, "LogDirNotFoundException", False,
        "The user-specified log directory is not found in the broker config.")
    SASL_AUTHENTICATION_FAILED = (58, "SaslAuthenticationException", False, "SASL Authentication failed.")
    UNKNOWN_PRODUCER_ID = (59, "UnknownProducerIdException", False,
        "This exception is raised by the broker if it could not locate the producer metadata "
        "associated with the producerId in question. This could happen if, for instance, the "
        "producer's records were deleted because their retention time had elapsed. Once the last "
        "records of the producerId are removed, the producer's metadata is removed from the broker,"
        " and future appends by the producer will return this exception.")
    REASSIGNMENT_IN_PROGRESS = (60, "ReassignmentInProgressException", False,
        "A partition reassignment is in progress.")
    INVALID_PRINCIPAL_TYPE = (67, "InvalidPrincipalTypeException", False,
        "Supplied principalType is not supported.")
    NON_EMPTY_GROUP = (68, "GroupNotEmptyException", False, "The group is not empty.")
    GROUP_ID_NOT_FOUND = (69, "GroupIdNotFoundException", False, "The group id does not exist.")
    FETCH_SESSION_ID_NOT_FOUND = (70, "FetchSessionIdNotFoundException", True,
        "The fetch session ID was not found.")
    INVALID_FETCH_SESSION_EPOCH = (71, "InvalidFetchSessionEpochException", True,
        "The fetch session epoch is invalid.")
    LISTENER_NOT_FOUND = (72, "ListenerNotFoundException", True,
        "There is no listener on the leader broker that matches the listener on which metadata "
        "request was processed.")
    TOPIC_DELETION_DISABLED = (73, "TopicDeletionDisabledException", False, "Topic deletion is disabled.")
    FENCED_LEADER_EPOCH = (74, "FencedLeaderEpochException", True,
        "The leader epoch in the request is older than the epoch on the broker.")
    UNKNOWN_LEADER_EPOCH = (75, "UnknownLeaderEpochException", True,
        "The leader epoch in the request is newer than the epoch on the broker.")
    UNSUPPORTED_COMPRESSION_TYPE = (76, "UnsupportedCompressionTypeException", False,
        "The requesting client does not support the compression type of given partition.")
    STALE_BROKER_EPOCH = (77, "StaleBrokerEpochException", False, "Broker epoch has changed.")
    OFFSET_NOT_AVAILABLE = (78, "OffsetNotAvailableException", True,
        "The leader high watermark has not caught up from a recent leader election so the offsets "
        "cannot be guaranteed to be monotonically increasing.")
    MEMBER_ID_REQUIRED = (79, "MemberIdRequiredException", False,
        "The group member needs to have a valid member id before actually entering a consumer "
        "group.")
    PREFERRED_LEADER_NOT_AVAILABLE = (80, "PreferredLeaderNotAvailableException", True,
        "The preferred leader was not available.")
    GROUP_MAX_SIZE_REACHED = (81, "GroupMaxSizeReachedException", False,
        "The group has reached its maximum size.")
    FENCED_INSTANCE_ID = (82, "FencedInstanceIdException", False,
        "The broker rejected this static consumer since another consumer with the same "
        "group.instance.id has registered with a different member.id.")
    ELIGIBLE_LEADERS_NOT_AVAILABLE = (83, "EligibleLeadersNotAvailableException", True,
        "Eligible topic partition leaders are not available.")
    ELECTION_NOT_NEEDED = (84, "ElectionNotNeededException", False,
        "Leader election not needed for topic partition.")
    NO_REASSIGNMENT_IN_PROGRESS = (85, "NoReassignmentInProgressException", False,
        "No partition reassignment is in progress.")
    GROUP_SUBSCRIBED_TO_TOPIC = (86, "GroupSubscribedToTopicException", False,
        "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed "
        "to it.")
    INVALID_RECORD = (87, "InvalidRecordException", False,
        "This record has failed the validation on broker and hence will be rejected.")
    UNSTABLE_OFFSET_COMMIT = (88, "UnstableOffsetCommitException", True,
        "There are unstable offsets that need to be cleared.")
    THROTTLING_QUOTA_EXCEEDED = (89, "ThrottlingQuotaExceededException", True,
        "The throttling quota has been exceeded.")
    PRODUCER_FENCED = (90, "ProducerFencedException", False,
        "There is a newer producer with the same transactionalId which fences the current one.")
    RESOURCE_NOT_FOUND = (91, "ResourceNotFoundException", False,
        "A request illegally referred to a resource that does not exist.")
    DUPLICATE_RESOURCE = (92, "DuplicateResourceException", False,
        "A request illegally referred to the same resource twice.")
    INCONSISTENT_VOTER_SET = (94, "InconsistentVoterSetException", False,
        "Indicates that the either the sender or recipient of a voter-only request is not one of "
        "the expected voters.")
    INVALID_UPDATE_VERSION = (95, "InvalidUpdateVersionException", False,
        "The given update version was invalid.")
    SNAPSHOT_NOT_FOUND = (98, "SnapshotNotFoundException", False, "Requested snapshot was not found.")
    UNKNOWN_TOPIC_ID = (100, "UnknownTopicIdException", True, "This server does not host this topic ID.")
    DUPLICATE_BROKER_REGISTRATION = (101, "DuplicateBrokerRegistrationException", False,
        "This broker ID is already in use.")
    BROKER_ID_NOT_REGISTERED = (102, "BrokerIdNotRegisteredException", False,
        "The given broker ID was not registered.")
    INCONSISTENT_TOPIC_ID = (103, "InconsistentTopicIdException", True,
        "The log's topic ID did not match the topic ID in the request.")
    INCONSISTENT_CLUSTER_ID = (104, "InconsistentClusterIdException", False,
        "The clusterId in the request does not match that found on the server.")
    TRANSACTIONAL_ID_NOT_FOUND = (105, "TransactionalIdNotFoundException", False,
        "The transactionalId could not be found.")
    FETCH_SESSION_TOPIC_ID_ERROR = (106, "FetchSessionTopicIdException", True,
        "The fetch session encountered inconsistent topic ID usage.")
    INELIGIBLE_REPLICA = (107, "IneligibleReplicaException", False,
        "The new ISR contains at least one ineligible replica.")
    NEW_LEADER_ELECTED = (108, "NewLeaderElectedException", False,
        "The AlterPartition request successfully updated the partition state but the leader has "
        "changed.")
    FENCED_MEMBER_EPOCH = (110, "FencedMemberEpochException", False,
        "The member epoch is fenced by the group coordinator. The member must abandon all its "
        "partitions and rejoin.")
    UNRELEASED_INSTANCE_ID = (111, "UnreleasedInstanceIdException", False,
        "The instance ID is still used by another member in the consumer group. That member must "
        "leave first.")
    UNSUPPORTED_ASSIGNOR = (112, "UnsupportedAssignorException", False,
        "The assignor or its version range is not supported by the consumer group.")
    STALE_MEMBER_EPOCH = (113, "StaleMemberEpochException", False,
        "The member epoch is stale. The member must retry after receiving its updated member epoch "
        "via the ConsumerGroupHeartbeat API.")
    MISMATCHED_ENDPOINT_TYPE = (114, "MismatchedEndpointTypeException", False,
        "The request was sent to an endpoint of the wrong type.")
    UNSUPPORTED_ENDPOINT_TYPE = (115, "UnsupportedEndpointTypeException", False,
        "This endpoint type is not supported yet.")
    UNKNOWN_CONTROLLER_ID = (116, "UnknownControllerIdException", False, "This controller ID is not known.")
    INVALID_REGISTRATION = (119, "InvalidRegistrationException", False,
        "The controller has considered the broker registration to be invalid.")
    TRANSACTION_ABORTABLE = (120, "TransactionAbortableException", False,
        "The server encountered an error with the transaction. The client can abort the transaction to continue "
        "using this transactional ID.")
    INVALID_REGULAR_EXPRESSION = (128, "InvalidRegularExpression", False,
        "The regular expression is not valid.")

    def __new__(cls, code: int, exception_name: str | None, retriable: bool,
                message: str | None) -> Errors:
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
            return cls(code)  # type: ignore[call-arg]  # a look-up by value, which mypy reads as __new__
        except ValueError:
            return cls.UNKNOWN_SERVER_ERROR

    def exception(self, message: str | None = None) -> "KafkaException":
        """An exception instance for this error with ``message`` or Kafka's default text."""
        exc_class = _EXCEPTION_CLASSES.get(self, KafkaException)
        exc = exc_class(message if message is not None else self.message)
        exc.error = self
        return exc


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
UnsupportedCompressionTypeException = exception_for(Errors.UNSUPPORTED_COMPRESSION_TYPE)
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
