"""``minikafka consumer-groups --delete-offsets``: Kafka's verdicts and partition tables against live groups."""

import pytest
from kafka import KafkaConsumer, TopicPartition
from kafka.structs import OffsetAndMetadata

from minikafka import Cluster

HEADER = "\nTOPIC           PARTITION  STATUS         "
SUBSCRIBED = ("org.apache.kafka.common.errors.GroupSubscribedToTopicException: Deleting offsets of a topic is "
              "forbidden while the consumer group is actively subscribed to it.")
UNKNOWN_TOPIC = ("org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this "
                 "topic-partition.")


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=2, controllers=1, seed=47).start()
    c.create_topic("clicks", 2, 2)
    c.create_topic("views", 1, 2)
    yield c
    c.stop()


def commit(cluster, group: str, offsets: dict[tuple[str, int], int]) -> None:
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, group_id=group, enable_auto_commit=False)
    try:
        consumer.commit({TopicPartition(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in offsets.items()})
    finally:
        consumer.close()


def delete_offsets(cli, cluster, group: str, *topics: str):
    args = [a for t in topics for a in ("--topic", t)]
    return cli("consumer-groups", "--bootstrap-server", cluster.bootstrap_servers, "--delete-offsets",
               "--group", group, *args)


@pytest.mark.live
def test_an_empty_group_loses_the_offsets_of_whole_topics_and_chosen_partitions(cluster, cli):
    commit(cluster, "idle", {("clicks", 0): 1, ("clicks", 1): 2, ("views", 0): 3})
    result = delete_offsets(cli, cluster, "idle", "clicks", "views:0")
    assert (result.code, result.err) == (0, "")
    assert result.out == ("Request succeeded for deleting offsets from group idle.\n" + HEADER
                          + "\nclicks          0          Successful     "
                          + "\nclicks          1          Successful     "
                          + "\nviews           0          Successful     \n")
    described = cli("consumer-groups", "--bootstrap-server", cluster.bootstrap_servers, "--describe",
                    "--group", "idle")
    assert "clicks" not in described.out and "views" not in described.out


@pytest.mark.live
def test_an_unknown_topic_gets_a_row_of_its_own_under_the_verdict(cluster, cli):
    commit(cluster, "idle2", {("clicks", 0): 1})
    result = delete_offsets(cli, cluster, "idle2", "ghost", "clicks:0")
    assert result.out == ("Request succeeded for deleting offsets from group idle2.\n" + HEADER
                          + "\nclicks          0          Successful     "
                          + f"\nghost           -          Error: {UNKNOWN_TOPIC}\n")


@pytest.mark.live
def test_an_unknown_partition_is_a_partition_level_error(cluster, cli):
    commit(cluster, "idle3", {("clicks", 0): 1})
    result = delete_offsets(cli, cluster, "idle3", "clicks:0,5")
    assert result.out == ("\nError: Encountered some partition-level error, see the follow-up details.\n" + HEADER
                          + "\nclicks          0          Successful     "
                          + f"\nclicks          5          Error: {UNKNOWN_TOPIC}\n")


@pytest.mark.live
def test_an_unknown_group_fails_every_partition(cluster, cli):
    result = delete_offsets(cli, cluster, "nope", "clicks")
    failure = "org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist."
    assert result.out == ("\nError: The group id does not exist.\n" + HEADER
                          + f"\nclicks          0          Error: {failure}"
                          + f"\nclicks          1          Error: {failure}\n")


@pytest.mark.live
def test_a_live_member_keeps_the_offsets_of_its_subscribed_topic(cluster, cli):
    consumer = KafkaConsumer("clicks", bootstrap_servers=cluster.bootstrap_servers, group_id="live",
                             enable_auto_commit=False, heartbeat_interval_ms=200)
    try:
        while not consumer.assignment():
            consumer.poll(timeout_ms=200)
        consumer.commit({TopicPartition("clicks", 0): OffsetAndMetadata(1, "", -1),
                         TopicPartition("views", 0): OffsetAndMetadata(1, "", -1)})
        result = delete_offsets(cli, cluster, "live", "clicks:0", "views")
        assert result.out == ("\nError: Encountered some partition-level error, see the follow-up details.\n"
                              + HEADER + f"\nclicks          0          Error: {SUBSCRIBED}"
                              + "\nviews           0          Successful     \n")
    finally:
        consumer.close()


def test_a_bad_partition_list_is_a_usage_error(cli):
    result = cli("consumer-groups", "--bootstrap-server", "h:1", "--delete-offsets", "--group", "g", "--topic", "t:x")
    assert result.code == 1 and result.err.startswith("Invalid partition 'x' specified in topic arg 't:x''\n")
