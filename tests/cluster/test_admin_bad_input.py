"""Bad admin input through the facade: Kafka's errors in Kafka's words, and nothing changed."""

import pytest

from minikafka.cluster import Cluster
from minikafka.common.errors import (InvalidPartitionsException, InvalidReplicaAssignmentException,
                                     NoReassignmentInProgressException, UnknownTopicOrPartitionException)


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=81, simulated=True).start()
    c.create_topic("orders", partitions=3, replication_factor=2)
    yield c
    c.stop()


def state(cluster):
    return (cluster.describe_topic("orders"), cluster.list_reassignments(),
            len(cluster.metadata_records()))


@pytest.mark.parametrize("plan, error, message", [
    ({("orders", 0): [1, 2, 9]}, InvalidReplicaAssignmentException,
     "The manual partition assignment includes broker 9, but no such broker is registered."),
    ({("orders", 0): [2, 3, 2]}, InvalidReplicaAssignmentException,
     "The manual partition assignment includes the broker 2 more than once."),
    ({("orders", 0): []}, InvalidReplicaAssignmentException,
     "The manual partition assignment includes an empty replica list."),
    ({("orders", 7): [1, 2]}, UnknownTopicOrPartitionException, "Unable to find partition orders:7."),
    ({("nope", 0): [1, 2]}, UnknownTopicOrPartitionException, "Unable to find a topic named nope."),
], ids=["unknown-broker", "duplicate-replica", "empty", "unknown-partition", "unknown-topic"])
def test_a_bad_reassignment_plan_is_refused_with_the_controllers_words(cluster, plan, error, message):
    before = state(cluster)
    with pytest.raises(error) as raised:
        cluster.reassign_partitions(plan)
    assert raised.value.message == message
    assert state(cluster) == before


def test_one_bad_entry_refuses_the_whole_plan(cluster):
    before = state(cluster)
    good = [b for b in cluster.broker_ids if b not in cluster.replicas("orders", 1)][:1] + \
        cluster.replicas("orders", 1)[:1]
    with pytest.raises(InvalidReplicaAssignmentException, match="includes broker 42, but no such broker"):
        cluster.reassign_partitions({("orders", 1): good, ("orders", 2): [1, 42]},
                                    throttle_bytes_per_sec=1000)
    assert state(cluster) == before                  # no move started, no throttle configured


def test_cancelling_where_nothing_moves_is_the_controllers_error(cluster):
    before = state(cluster)
    with pytest.raises(NoReassignmentInProgressException,
                       match="^No partition reassignment is in progress.$"):
        cluster.reassign_partitions({("orders", 0): None})
    assert state(cluster) == before


@pytest.mark.parametrize("total, message", [
    (2, "The topic orders currently has 3 partition(s); 2 would not be an increase."),
    (3, "Topic already has 3 partition(s)."),
])
def test_partition_counts_that_do_not_grow_the_topic_are_refused(cluster, total, message):
    before = state(cluster)
    with pytest.raises(InvalidPartitionsException) as raised:
        cluster.create_partitions("orders", total)
    assert raised.value.message == message
    assert state(cluster) == before


def test_adding_partitions_to_a_missing_topic_or_on_unknown_brokers(cluster):
    before = state(cluster)
    with pytest.raises(UnknownTopicOrPartitionException,
                       match="^This server does not host this topic-partition.$"):
        cluster.create_partitions("nope", 4)
    with pytest.raises(InvalidReplicaAssignmentException,
                       match="includes broker 7, but no such broker is registered"):
        cluster.create_partitions("orders", 4, assignments=[[1, 7]])
    assert state(cluster) == before
