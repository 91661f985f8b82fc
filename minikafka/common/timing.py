"""Timing profiles: Kafka's real time-related defaults, and the scaled-down set lessons use.

Theory of operation
-------------------
Every timeout and interval the engine uses is a Kafka configuration with
Kafka's name (``broker.session.timeout.ms``, ``controller.quorum.election.
timeout.ms``, ...).  A `TimingProfile` maps those names to values.

* ``kafka`` holds Kafka 4.x's defaults: a crashed broker is fenced after 9 s,
  a follower leaves the ISR after 30 s.
* ``teaching`` (the default) divides the failure-detection timeouts and the
  periodic background checks by five, so that a failover happens while a
  learner watches.  Everything that is already short (linger, backoff,
  long-poll waits) keeps Kafka's value.  The cluster's description prints the
  active profile, so a learner always knows which numbers they see.
  KIP-848 consumer groups are scaled like the classic protocol's timers: a
  consumer-protocol member heartbeats every 1 s (Kafka: 5 s,
  ``group.consumer.heartbeat.interval.ms``) and is fenced after 9 s of
  silence (Kafka: 45 s, ``group.consumer.session.timeout.ms``).  Kafka
  refuses to start a broker whose interval or timeout lies outside the
  ``group.consumer.min/max.*`` bounds (5-15 s and 45-60 s), so the teaching
  profile divides those bounds by five as well (1-3 s and 9-12 s): the same
  settings in a real ``server.properties`` start a real Kafka 4.3.1 broker.

A profile can be adjusted with ``profile.with_overrides({...})``; unknown
names are rejected so a typo never silently keeps a default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

# Kafka 4.x defaults for every time-related setting the engine reads (ms unless named otherwise).
KAFKA_DEFAULTS: Mapping[str, int] = MappingProxyType({
    # KRaft quorum (QuorumConfig)
    "controller.quorum.election.timeout.ms": 1000,
    "controller.quorum.fetch.timeout.ms": 2000,
    "controller.quorum.election.backoff.max.ms": 1000,
    "controller.quorum.request.timeout.ms": 2000,
    "controller.quorum.retry.backoff.ms": 20,
    "controller.quorum.append.linger.ms": 25,
    # broker lifecycle (KRaftConfigs)
    "broker.heartbeat.interval.ms": 2000,
    "broker.session.timeout.ms": 9000,
    "initial.broker.registration.timeout.ms": 60000,
    "metadata.max.idle.interval.ms": 500,
    # replication (ReplicationConfigs)
    "replica.lag.time.max.ms": 30000,
    "replica.fetch.wait.max.ms": 500,
    "replica.fetch.backoff.ms": 1000,
    "replica.socket.timeout.ms": 30000,
    "replica.high.watermark.checkpoint.interval.ms": 5000,
    "leader.imbalance.check.interval.seconds": 300,
    "unclean.leader.election.interval.ms": 300000,
    # log manager (ServerLogConfigs)
    "log.retention.check.interval.ms": 300000,
    "log.flush.offset.checkpoint.interval.ms": 60000,
    "log.flush.start.offset.checkpoint.interval.ms": 60000,
    "log.segment.delete.delay.ms": 60000,
    # requests between nodes and from clients
    "request.timeout.ms": 30000,
    # group coordinator (GroupCoordinatorConfig)
    "group.initial.rebalance.delay.ms": 3000,
    "group.consumer.session.timeout.ms": 45000,       # KIP-848 consumer groups
    "group.consumer.min.session.timeout.ms": 45000,
    "group.consumer.max.session.timeout.ms": 60000,
    "group.consumer.heartbeat.interval.ms": 5000,
    "group.consumer.min.heartbeat.interval.ms": 5000,
    "group.consumer.max.heartbeat.interval.ms": 15000,
    "offsets.commit.timeout.ms": 5000,
    "offsets.retention.check.interval.ms": 600000,
})

# Settings the teaching profile leaves alone: they are already short, or they
# are validation bounds a client's own settings must respect.
_UNSCALED = {
    "controller.quorum.retry.backoff.ms",
    "controller.quorum.append.linger.ms",
    "metadata.max.idle.interval.ms",
    "replica.fetch.wait.max.ms",
    "replica.high.watermark.checkpoint.interval.ms",
    "log.segment.delete.delay.ms",
    "request.timeout.ms",
    "offsets.commit.timeout.ms",
}

TEACHING_SCALE = 5


def _scaled(defaults: Mapping[str, int], factor: int) -> dict[str, int]:
    return {name: value if name in _UNSCALED else max(1, value // factor)
            for name, value in defaults.items()}


@dataclass(frozen=True)
class TimingProfile:
    name: str
    values: Mapping[str, int] = field(repr=False)
    note: str = ""

    def __getitem__(self, name: str) -> int:
        return self.values[name]

    def ms(self, name: str) -> int:
        """The value of ``name`` in milliseconds (``*.seconds`` settings are converted)."""
        value = self.values[name]
        return value * 1000 if name.endswith(".seconds") else value

    def with_overrides(self, overrides: Mapping[str, int], name: str | None = None) -> "TimingProfile":
        unknown = sorted(set(overrides) - set(self.values))
        if unknown:
            raise ValueError(f"Unknown timing setting(s): {', '.join(unknown)}. "
                             f"Known: {', '.join(sorted(self.values))}")
        merged = dict(self.values)
        merged.update({k: int(v) for k, v in overrides.items()})
        return TimingProfile(name or f"{self.name}+overrides", MappingProxyType(merged), self.note)

    def describe(self) -> str:
        """One line for the cluster's description, e.g. in a lesson's first cell."""
        keys = ("broker.session.timeout.ms", "controller.quorum.election.timeout.ms",
                "replica.lag.time.max.ms")
        shown = ", ".join(f"{k}={self.values[k]}" for k in keys)
        return f"timing profile: {self.name}{' (' + self.note + ')' if self.note else ''}; {shown}"


KAFKA = TimingProfile("kafka", KAFKA_DEFAULTS, "Kafka's defaults")
TEACHING = TimingProfile(
    "teaching", MappingProxyType(_scaled(KAFKA_DEFAULTS, TEACHING_SCALE)),
    f"Kafka's failure-detection timeouts divided by {TEACHING_SCALE}")
PROFILES = {"teaching": TEACHING, "kafka": KAFKA}


def profile(name_or_profile: "str | TimingProfile | None") -> TimingProfile:
    if name_or_profile is None:
        return TEACHING
    if isinstance(name_or_profile, TimingProfile):
        return name_or_profile
    try:
        return PROFILES[name_or_profile]
    except KeyError:
        raise ValueError(f"Unknown timing profile {name_or_profile!r}; choose one of "
                         f"{', '.join(PROFILES)}") from None
