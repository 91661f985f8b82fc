"""``ConsumerGroupMigrationPolicy``: may a group change protocol while it has members?

Theory of operation
-------------------
A group lives either as a classic group (JoinGroup/SyncGroup, the assignment
computed by a member) or as a consumer group (KIP-848 ConsumerGroupHeartbeat,
the assignment computed by the coordinator).  ``group.consumer.migration.policy``
says which way a *non-empty* group may be converted online:

=============  =======================================================
upgrade        classic -> consumer, when a ConsumerGroupHeartbeat joins
downgrade      consumer -> classic, when the last consumer-protocol member leaves
bidirectional  both (4.3.1's default)
disabled       neither; a classic member cannot even join a consumer group
=============  =======================================================

An *empty* group is always converted, whatever the policy: it is simply
deleted and recreated with the other type.  The value is matched without
regard to case, as Kafka's ``CaseInsensitiveValidString`` does.

Mirrors ``org.apache.kafka.coordinator.group.ConsumerGroupMigrationPolicy``.
"""

from __future__ import annotations

import enum


class ConsumerGroupMigrationPolicy(enum.Enum):
    # (name as Kafka prints it, upgrade enabled, downgrade enabled), in Kafka's declaration order
    BIDIRECTIONAL = ("bidirectional", True, True)
    UPGRADE = ("upgrade", True, False)
    DOWNGRADE = ("downgrade", False, True)
    DISABLED = ("disabled", False, False)

    def __str__(self) -> str:
        return self.value[0]

    @property
    def is_upgrade_enabled(self) -> bool:
        return self.value[1]

    @property
    def is_downgrade_enabled(self) -> bool:
        return self.value[2]

    @classmethod
    def parse(cls, name: str) -> "ConsumerGroupMigrationPolicy":
        """The policy named ``name`` (any case); DISABLED for an unknown name, as Kafka's ``parse``."""
        for policy in cls:
            if str(policy) == name.strip().lower():
                return policy
        return cls.DISABLED


DEFAULT_POLICY = ConsumerGroupMigrationPolicy.BIDIRECTIONAL
