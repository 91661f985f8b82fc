"""``StripedReplicaPlacer``: where the replicas of new partitions go.

Theory of operation
-------------------
The placer is given the usable brokers (every registered broker that is not
in controlled shutdown, each with its rack and whether it is fenced) and asked
for ``num_partitions`` replica lists of ``replication_factor`` brokers each.

Brokers are grouped by rack; inside a rack they are kept in two sorted lists,
unfenced and fenced, and each list starts at a random offset.  The racks are
sorted by name (no rack first) and the rack list also starts at a random
offset.  Each partition takes its first replica, the leader, from the next
rack that has an unfenced broker, then walks the racks round robin for the
followers, taking unfenced brokers first and fenced ones only when a rack has
no unfenced broker left in this round.  Every partition moves every start
offset on by one, which gives the characteristic stripes::

    3 partitions, RF 3, brokers 1,2,3, random start r=1:
      p0 = [2, 3, 1]   p1 = [3, 1, 2]   p2 = [1, 2, 3]

Once as many partitions have been placed as there are unfenced brokers (a
full "round"), the rack list and every broker list are shuffled so that the
next round does not repeat the same replica sets.  With one rack and ``n``
unfenced brokers this means: the first ``n`` partitions have ``n`` different
leaders, and leaders only start to repeat in the next round.

Mirrors ``org.apache.kafka.metadata.placement.StripedReplicaPlacer`` (Kafka
4.x), including its error messages.  Randomness comes from the
``random.Random`` given to the constructor (Kafka uses the active
controller's ``java.util.Random``), so the same seed gives the same placement,
but not the placement a real Kafka would pick for the same cluster.
Simplified: racks are initialised and shuffled in sorted-name order (Kafka
walks a ``HashMap``); CreatePartitions starts a fresh stripe at a random
offset, as released Kafka does (the KAFKA-14437 continuation was never
merged).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable

from minikafka.common.errors import InvalidReplicationFactorException


@dataclass(frozen=True, slots=True)
class UsableBroker:
    """A broker the placer may use: registered and not in controlled shutdown."""

    id: int
    rack: str | None
    fenced: bool


@dataclass(frozen=True, slots=True)
class PlacementSpec:
    """What to place: ``num_partitions`` new partitions starting at ``start_partition``."""

    start_partition: int
    num_partitions: int
    num_replicas: int


class _BrokerList:
    """A sorted list of broker ids walked round robin from a moving offset."""

    def __init__(self) -> None:
        self.brokers: list[int] = []   # sorted at initialize(), shuffled after each full round
        self.index = 0                 # how many brokers were handed out in the current epoch
        self.offset = 0                # where the walk starts, modulo len(brokers)
        self.epoch = 0                 # the placement epoch this list last served

    def initialize(self, rng: random.Random) -> None:
        if self.brokers:
            self.brokers.sort()
            self.offset = rng.randrange(len(self.brokers))

    def shuffle(self, rng: random.Random) -> None:
        rng.shuffle(self.brokers)

    def next(self, epoch: int) -> int:
        """The next broker for partition ``epoch``, or -1 when this list is used up."""
        if not self.brokers:
            return -1
        if self.epoch != epoch:
            # A new partition: restart the walk one position further on.
            self.epoch = epoch
            self.index = 0
            self.offset = (self.offset + 1) % len(self.brokers)
        if self.index >= len(self.brokers):
            return -1
        broker = self.brokers[(self.index + self.offset) % len(self.brokers)]
        self.index += 1
        return broker


class _Rack:
    """The brokers of one rack: unfenced ones are preferred over fenced ones."""

    def __init__(self) -> None:
        self.fenced = _BrokerList()
        self.unfenced = _BrokerList()

    def initialize(self, rng: random.Random) -> None:
        self.fenced.initialize(rng)
        self.unfenced.initialize(rng)

    def shuffle(self, rng: random.Random) -> None:
        self.fenced.shuffle(rng)
        self.unfenced.shuffle(rng)

    def next_unfenced(self, epoch: int) -> int:
        return self.unfenced.next(epoch)

    def next(self, epoch: int) -> int:
        broker = self.unfenced.next(epoch)
        return broker if broker >= 0 else self.fenced.next(epoch)


def _rack_sort_key(rack: str | None) -> tuple[int, str]:
    # Kafka's OptionalStringComparator: "no rack" sorts before every named rack.
    return (0, "") if rack is None else (1, rack)


class _RackList:
    """All racks, walked round robin from a random start; one call per partition."""

    def __init__(self, rng: random.Random, brokers: Iterable[UsableBroker]):
        self.rng = rng
        self.racks: dict[str | None, _Rack] = {}
        self.num_total = 0                  # fenced + unfenced brokers
        self.num_unfenced = 0
        for broker in brokers:
            rack = self.racks.setdefault(broker.rack, _Rack())
            (rack.fenced if broker.fenced else rack.unfenced).brokers.append(broker.id)
            self.num_total += 1
            self.num_unfenced += 0 if broker.fenced else 1
        self.rack_names = sorted(self.racks, key=_rack_sort_key)  # shuffled after each full round
        for name in self.rack_names:
            self.racks[name].initialize(rng)
        self.epoch = 0                      # partitions placed in the current round
        self.offset = rng.randrange(len(self.rack_names)) if self.rack_names else 0

    def place(self, replication_factor: int) -> list[int]:
        _check_positive(replication_factor)
        _check_enough_brokers(replication_factor, self.num_total)
        _check_some_unfenced(self.num_unfenced)
        if self.epoch == self.num_unfenced and self.num_unfenced > 1:
            # A full round is done: reshuffle so the next round differs.
            self._shuffle()
            self.epoch = 0
        if self.offset == len(self.rack_names):
            self.offset = 0
        first_rack = self.offset
        while True:                         # the leader must be unfenced
            leader = self.racks[self.rack_names[first_rack]].next_unfenced(self.epoch)
            if leader >= 0:
                break
            first_rack = (first_rack + 1) % len(self.rack_names)
        replicas = [leader]
        rack_index = self.offset
        for _ in range(1, replication_factor):
            broker = -1
            while broker < 0:
                if rack_index == first_rack:
                    first_rack = -1         # the leader's rack was already served once
                else:
                    broker = self.racks[self.rack_names[rack_index]].next(self.epoch)
                rack_index = (rack_index + 1) % len(self.rack_names)
            replicas.append(broker)
        self.epoch += 1
        self.offset += 1
        return replicas

    def _shuffle(self) -> None:
        self.rng.shuffle(self.rack_names)
        for name in sorted(self.racks, key=_rack_sort_key):
            self.racks[name].shuffle(self.rng)


def _check_positive(replication_factor: int) -> None:
    if replication_factor <= 0:
        raise InvalidReplicationFactorException(
            f"Invalid replication factor {replication_factor}: the replication factor must be positive.")


def _check_some_unfenced(num_unfenced: int) -> None:
    if num_unfenced == 0:
        raise InvalidReplicationFactorException(
            "All brokers are currently fenced, or have all their log directories cordoned.")   # 4.3 (KIP-1066)


def _check_enough_brokers(replication_factor: int, num_total: int) -> None:
    if replication_factor > num_total:
        raise InvalidReplicationFactorException(
            f"The target replication factor of {replication_factor} cannot be reached because "
            f"only {num_total} broker(s) are registered or some brokers have all their log directories "
            f"cordoned.")


class StripedReplicaPlacer:
    """Places replicas; one instance per controller, fed a seeded ``random.Random``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def place(self, spec: PlacementSpec, brokers: Iterable[UsableBroker]) -> list[list[int]]:
        """One replica list per new partition (leader first).

        Raises InvalidReplicationFactorException with Kafka's message when the
        replication factor is not positive, larger than the number of
        registered brokers, or when every broker is fenced.
        """
        rack_list = _RackList(self.rng, brokers)
        _check_positive(spec.num_replicas)
        _check_some_unfenced(rack_list.num_unfenced)
        _check_enough_brokers(spec.num_replicas, rack_list.num_total)
        return [rack_list.place(spec.num_replicas) for _ in range(spec.num_partitions)]
