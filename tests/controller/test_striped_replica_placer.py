import random
from collections import Counter

import pytest

from minikafka.common.errors import InvalidReplicationFactorException
from minikafka.controller.striped_replica_placer import PlacementSpec, StripedReplicaPlacer, UsableBroker


def brokers(*ids, fenced=(), rack=None):
    return [UsableBroker(i, rack(i) if callable(rack) else rack, i in fenced) for i in ids]


def place(seed, partitions, rf, usable):
    return StripedReplicaPlacer(random.Random(seed)).place(PlacementSpec(0, partitions, rf), usable)


@pytest.mark.parametrize("seed", range(30))
def test_three_partitions_rf3_on_three_brokers_give_each_broker_one_leader(seed):
    assignment = place(seed, 3, 3, brokers(1, 2, 3))
    assert sorted(r[0] for r in assignment) == [1, 2, 3]
    # Striping: followers are the next brokers in (rotated) sorted order.
    assert assignment in ([[1, 2, 3], [2, 3, 1], [3, 1, 2]],
                          [[2, 3, 1], [3, 1, 2], [1, 2, 3]],
                          [[3, 1, 2], [1, 2, 3], [2, 3, 1]])


def test_every_random_start_is_reached():
    starts = {place(seed, 3, 3, brokers(1, 2, 3))[0][0] for seed in range(60)}
    assert starts == {1, 2, 3}


@pytest.mark.parametrize("seed", range(30))
def test_eight_partitions_rf1_on_five_brokers_counts_2_2_2_1_1(seed):
    assignment = place(seed, 8, 1, brokers(1, 2, 3, 4, 5))
    assert sorted(Counter(r[0] for r in assignment).values()) == [1, 1, 2, 2, 2]
    # The first round (5 partitions) uses every broker once.
    assert sorted(r[0] for r in assignment[:5]) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("seed", range(20))
def test_two_partitions_on_three_brokers_leave_one_broker_out(seed):
    assignment = place(seed, 2, 1, brokers(1, 2, 3))
    used = {r[0] for r in assignment}
    assert len(used) == 2 and used < {1, 2, 3}


@pytest.mark.parametrize("seed", range(20))
def test_leader_is_never_fenced_and_fenced_brokers_are_used_last(seed):
    assignment = place(seed, 6, 3, brokers(1, 2, 3, 4, fenced={2, 4}))
    for replicas in assignment:
        assert replicas[0] in (1, 3)
        assert len(set(replicas)) == 3
        # Unfenced brokers first: both unfenced brokers precede the fenced one.
        assert set(replicas[:2]) == {1, 3}


def test_replicas_are_distinct_and_rack_aware():
    usable = brokers(1, 2, 3, 4, 5, 6, rack=lambda i: "a" if i <= 2 else "b" if i <= 4 else "c")
    rack = {1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c"}
    for seed in range(20):
        for replicas in place(seed, 10, 3, usable):
            assert len(set(replicas)) == 3
            assert {rack[r] for r in replicas} == {"a", "b", "c"}


def test_same_seed_same_placement():
    assert place("x", 12, 2, brokers(1, 2, 3, 4)) == place("x", 12, 2, brokers(4, 3, 2, 1))


@pytest.mark.parametrize("rf, usable, message", [
    (0, brokers(1, 2), "Invalid replication factor 0: the replication factor must be positive."),
    (-2, brokers(1, 2), "Invalid replication factor -2: the replication factor must be positive."),
    (3, brokers(1, 2), "The target replication factor of 3 cannot be reached because only 2 broker(s) "
                       "are registered or some brokers have all their log directories cordoned."),
    (1, brokers(1, 2, fenced={1, 2}),
     "All brokers are currently fenced, or have all their log directories cordoned."),
])
def test_errors_in_kafkas_words(rf, usable, message):
    with pytest.raises(InvalidReplicationFactorException) as info:
        place(1, 1, rf, usable)
    assert info.value.message == message


def test_fenced_check_comes_before_size_check():
    with pytest.raises(InvalidReplicationFactorException, match="All brokers are currently fenced, or have all their log directories cordoned."):
        place(1, 1, 5, brokers(1, 2, fenced={1, 2}))
