"""``GroupCoordinatorConfig``: the broker settings the group coordinator reads.

Theory of operation
-------------------
A frozen bundle of the ``group.*`` and ``offset*`` broker configurations with
Kafka 4.x's names and defaults.  The time-related ones come from the node's
`TimingProfile` (``group.initial.rebalance.delay.ms``,
``offsets.commit.timeout.ms``, ``offsets.retention.check.interval.ms``), so a
lesson in the teaching profile sees a new group form after 600 ms instead of
3 s.  The session-timeout bounds are *validation* limits a client's own
``session.timeout.ms`` must respect, so no profile scales them.

KIP-848 consumer groups read ``group.consumer.session.timeout.ms``,
``group.consumer.heartbeat.interval.ms`` and their ``min``/``max`` bounds
from the timing profile (the teaching profile divides all six by five, like
the classic timers; a broker config of the same name overrides the
profile), and
``group.consumer.max.size``, ``group.consumer.assignors`` (names, comma
separated; the first is the default),
``group.consumer.assignment.interval.ms`` and ``group.consumer.migration.policy``
(`ConsumerGroupMigrationPolicy`: ``bidirectional``, the default, ``upgrade``,
``downgrade`` or ``disabled``, in any case) from the broker configs, with
Kafka 4.3.1's defaults.  Validation as 4.3.1 does it, in its order and
words: each bound pair in order, the heartbeat interval and the session
timeout inside their bounds, the heartbeat interval below the session
timeout, sizes at least 1, an assignor must be one Kafka ships (``uniform``,
``range``), the migration policy one of the four (Kafka's
``CaseInsensitiveValidString`` words).  A failed check is Kafka's ``IllegalArgumentException`` from
``Utils.require``, which stops the broker at start-up.

Mirrors ``org.apache.kafka.coordinator.group.GroupCoordinatorConfig``.
Simplified: there are no per-group overrides (``kafka-configs --entity-type
groups``) and the ``min``/``max`` assignment intervals are not read; the share and streams
group settings do not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from minikafka.common.config.validators import CaseInsensitiveValidString
from minikafka.common.errors import ConfigException
from minikafka.common.timing import TimingProfile, profile
from minikafka.coordinator.consumer_group_migration_policy import DEFAULT_POLICY, ConsumerGroupMigrationPolicy

CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000  # fixed in Kafka, not a config
INT_MAX = 2**31 - 1

DEFAULTS: Mapping[str, int] = {
    "group.min.session.timeout.ms": 6000,
    "group.max.session.timeout.ms": 1800000,
    "group.max.size": INT_MAX,
    "offset.metadata.max.bytes": 4096,
    "offsets.topic.num.partitions": 50,
    "offsets.retention.minutes": 7 * 24 * 60,
    "group.consumer.max.size": INT_MAX,
    "group.consumer.assignment.interval.ms": 1000,
}
CONSUMER_GROUP_TIMERS = (
    "group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms",
    "group.consumer.max.session.timeout.ms", "group.consumer.heartbeat.interval.ms",
    "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms")
KNOWN_ASSIGNORS = ("uniform", "range")
MIGRATION_POLICY = "group.consumer.migration.policy"
# Kafka's Utils.enumOptions: the policies' printed names, matched without regard to case.
MIGRATION_POLICY_VALIDATOR = CaseInsensitiveValidString.in_(*(str(p) for p in ConsumerGroupMigrationPolicy))

_HB, _SESSION = "group.consumer.heartbeat.interval.ms", "group.consumer.session.timeout.ms"
RELATIONS = {"greater than or equal to": int.__ge__, "less than or equal to": int.__le__,
             "less than": int.__lt__}
CONSUMER_GROUP_REQUIREMENTS = (   # (left, relation, right): "left must be <relation> right"
    ("group.consumer.max.heartbeat.interval.ms", "greater than or equal to",
     "group.consumer.min.heartbeat.interval.ms"),
    (_HB, "greater than or equal to", "group.consumer.min.heartbeat.interval.ms"),
    (_HB, "less than or equal to", "group.consumer.max.heartbeat.interval.ms"),
    ("group.consumer.max.session.timeout.ms", "greater than or equal to",
     "group.consumer.min.session.timeout.ms"),
    (_SESSION, "greater than or equal to", "group.consumer.min.session.timeout.ms"),
    (_SESSION, "less than or equal to", "group.consumer.max.session.timeout.ms"),
    (_HB, "less than", _SESSION),
)


@dataclass(frozen=True, slots=True)
class GroupCoordinatorConfig:
    min_session_timeout_ms: int = 6000              # group.min.session.timeout.ms
    max_session_timeout_ms: int = 1800000           # group.max.session.timeout.ms
    max_size: int = INT_MAX                         # group.max.size (members per classic group)
    initial_rebalance_delay_ms: int = 3000          # group.initial.rebalance.delay.ms
    new_member_join_timeout_ms: int = CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS
    offset_metadata_max_bytes: int = 4096           # offset.metadata.max.bytes
    offsets_topic_num_partitions: int = 50          # offsets.topic.num.partitions
    offset_commit_timeout_ms: int = 5000            # offsets.commit.timeout.ms
    offsets_retention_ms: int = 7 * 24 * 60 * 60 * 1000  # offsets.retention.minutes, in ms
    offsets_retention_check_interval_ms: int = 600000    # offsets.retention.check.interval.ms
    # KIP-848 consumer groups (read by ConsumerGroupHeartbeat)
    consumer_group_session_timeout_ms: int = 45000       # group.consumer.session.timeout.ms
    consumer_group_min_session_timeout_ms: int = 45000   # group.consumer.min.session.timeout.ms
    consumer_group_max_session_timeout_ms: int = 60000   # group.consumer.max.session.timeout.ms
    consumer_group_heartbeat_interval_ms: int = 5000     # group.consumer.heartbeat.interval.ms
    consumer_group_min_heartbeat_interval_ms: int = 5000   # group.consumer.min.heartbeat.interval.ms
    consumer_group_max_heartbeat_interval_ms: int = 15000  # group.consumer.max.heartbeat.interval.ms
    consumer_group_max_size: int = INT_MAX               # group.consumer.max.size
    consumer_group_assignors: tuple[str, ...] = ("uniform", "range")  # group.consumer.assignors
    consumer_group_assignment_interval_ms: int = 1000    # group.consumer.assignment.interval.ms
    consumer_group_migration_policy: ConsumerGroupMigrationPolicy = DEFAULT_POLICY  # group.consumer.migration.policy

    @classmethod
    def from_configs(cls, configs: Mapping[str, Any] | None = None,
                     timing: "TimingProfile | str | None" = None) -> "GroupCoordinatorConfig":
        """Build from Kafka config names (values as ints or strings) and a timing profile."""
        merged = dict(DEFAULTS)
        times = profile(timing)
        consumer_timers = {name: times.ms(name) for name in CONSUMER_GROUP_TIMERS}
        assignors = ("uniform", "range")
        policy = DEFAULT_POLICY
        for name, value in (configs or {}).items():
            if name in DEFAULTS:
                merged[name] = _as_int(name, value)
            elif name in consumer_timers:
                consumer_timers[name] = _as_int(name, value)
            elif name == "group.consumer.assignors":
                assignors = _assignors(value)
            elif name == MIGRATION_POLICY:
                MIGRATION_POLICY_VALIDATOR.ensure_valid(name, value)
                policy = ConsumerGroupMigrationPolicy.parse(value)
        config = cls(
            min_session_timeout_ms=merged["group.min.session.timeout.ms"],
            max_session_timeout_ms=merged["group.max.session.timeout.ms"],
            max_size=merged["group.max.size"],
            initial_rebalance_delay_ms=times.ms("group.initial.rebalance.delay.ms"),
            offset_metadata_max_bytes=merged["offset.metadata.max.bytes"],
            offsets_topic_num_partitions=merged["offsets.topic.num.partitions"],
            offset_commit_timeout_ms=times.ms("offsets.commit.timeout.ms"),
            offsets_retention_ms=merged["offsets.retention.minutes"] * 60 * 1000,
            offsets_retention_check_interval_ms=times.ms("offsets.retention.check.interval.ms"),
            consumer_group_session_timeout_ms=consumer_timers["group.consumer.session.timeout.ms"],
            consumer_group_min_session_timeout_ms=consumer_timers["group.consumer.min.session.timeout.ms"],
            consumer_group_max_session_timeout_ms=consumer_timers["group.consumer.max.session.timeout.ms"],
            consumer_group_heartbeat_interval_ms=consumer_timers["group.consumer.heartbeat.interval.ms"],
            consumer_group_min_heartbeat_interval_ms=consumer_timers["group.consumer.min.heartbeat.interval.ms"],
            consumer_group_max_heartbeat_interval_ms=consumer_timers["group.consumer.max.heartbeat.interval.ms"],
            consumer_group_max_size=merged["group.consumer.max.size"],
            consumer_group_assignors=assignors,
            consumer_group_assignment_interval_ms=merged["group.consumer.assignment.interval.ms"],
            consumer_group_migration_policy=policy,
        )
        config.validate()
        return config

    def validate(self) -> None:
        """The ``atLeast`` checks of Kafka's config definitions, then 4.3.1's ``require`` checks."""
        _at_least("group.max.size", self.max_size, 1)
        _at_least("offsets.topic.num.partitions", self.offsets_topic_num_partitions, 1)
        _at_least("offsets.retention.minutes", self.offsets_retention_ms // 60000, 1)
        _at_least("offsets.commit.timeout.ms", self.offset_commit_timeout_ms, 1)
        for name in CONSUMER_GROUP_TIMERS:
            _at_least(name, self._timer(name), 1)
        _at_least("group.consumer.max.size", self.consumer_group_max_size, 1)
        _at_least("group.consumer.assignment.interval.ms", self.consumer_group_assignment_interval_ms, 0)
        # The consumer-group checks of 4.3.1's constructor, in its order and words.
        for left, relation, right in CONSUMER_GROUP_REQUIREMENTS:
            if not RELATIONS[relation](self._timer(left), self._timer(right)):
                raise RequirementFailed(f"{left} must be {relation} {right}")

    def _timer(self, name: str) -> int:
        return getattr(self, "consumer_group_" + name.removeprefix("group.consumer.")
                       .removesuffix(".ms").replace(".", "_") + "_ms")


class RequirementFailed(ConfigException):
    """A failed ``Utils.require`` in 4.3.1's ``GroupCoordinatorConfig``: an IllegalArgumentException."""

    @property
    def java_class(self) -> str:
        return "java.lang.IllegalArgumentException"


def _as_int(name: str, value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ConfigException(f"Invalid value {value} for configuration {name}: "
                              f"Not a number of type INT") from None


def _assignors(value: Any) -> tuple[str, ...]:
    names = tuple(n.strip() for n in (value.split(",") if isinstance(value, str) else value) if n.strip())
    for name in names:
        if name not in KNOWN_ASSIGNORS:
            raise ConfigException(f"Invalid value {name} for configuration group.consumer.assignors: "
                                  f"Class {name} cannot be found")
    if not names:
        raise ConfigException("Invalid value [] for configuration group.consumer.assignors: "
                              "Empty list not allowed")
    return names


def _at_least(name: str, value: int, minimum: int) -> None:
    if value < minimum:
        raise ConfigException(f"Invalid value {value} for configuration {name}: "
                              f"Value must be at least {minimum}")
