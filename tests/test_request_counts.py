"""RequestCounts as plain data: subtracting, grouping, totals and the text table."""

import pytest

from minikafka import PartitionRequestCount, RequestCount, RequestCounts, TopicPartition


def counts(produce_to_1=4, incarnation_1=1):
    return RequestCounts(
        requests=(RequestCount(1, "Produce", "app", produce_to_1), RequestCount(1, "Metadata", "app", 2),
                  RequestCount(2, "Produce", "app", 3)),
        partitions=(PartitionRequestCount(1, "Produce", "app", TopicPartition("orders", 10), "NONE",
                                          produce_to_1),
                    PartitionRequestCount(2, "Produce", "app", TopicPartition("orders", 2), "NONE", 2),
                    PartitionRequestCount(2, "Produce", "app", TopicPartition("orders", 2),
                                          "NOT_LEADER_OR_FOLLOWER", 1)),
        incarnations={1: incarnation_1, 2: 1})


def test_totals_per_request_and_per_partition():
    c = counts()
    assert c.total(api="Produce") == 7
    assert c.total(broker=1) == 6
    assert c.total(error="NOT_LEADER_OR_FOLLOWER") == 1
    assert c.total(topic="orders", partition=2) == 3


def test_by_groups_and_sorts_partitions_by_index():
    c = counts()
    assert c.by("broker", api="Produce") == {1: 4, 2: 3}
    assert list(c.by("partition")) == ["orders-2", "orders-10"]
    assert c.by("broker", "error", api="Produce") == {(1, "NONE"): 4, (2, "NONE"): 2,
                                                      (2, "NOT_LEADER_OR_FOLLOWER"): 1}


def test_by_an_unknown_key_is_refused():
    with pytest.raises(ValueError, match="Cannot group by 'topic'; choose from broker, api"):
        counts().by("topic")


def test_since_subtracts_and_drops_what_did_not_change():
    later = counts(produce_to_1=9)
    delta = later.since(counts())
    assert delta.requests == (RequestCount(1, "Produce", "app", 5),)
    assert [(str(r.partition), r.count) for r in delta.partitions] == [("orders-10", 5)]
    assert (later - counts()).requests == delta.requests


def test_since_keeps_everything_of_a_broker_that_restarted():
    restarted = counts(produce_to_1=1, incarnation_1=2)
    delta = restarted.since(counts())
    assert RequestCount(1, "Produce", "app", 1) in delta.requests
    assert RequestCount(1, "Metadata", "app", 2) in delta.requests
    assert all(r.broker == 1 for r in delta.requests)


def test_table_lists_partition_rows_and_other_apis_once():
    assert counts().table() == (
        "BROKER  API       CLIENT-ID  PARTITION  ERROR                   REQUESTS\n"
        "1       Metadata  app        -          -                       2\n"
        "1       Produce   app        orders-10  NONE                    4\n"
        "2       Produce   app        orders-2   NONE                    2\n"
        "2       Produce   app        orders-2   NOT_LEADER_OR_FOLLOWER  1")
    assert str(counts()) == counts().table()
    assert counts().table(api="Metadata").splitlines()[1:] == [
        "1       Metadata  app        -          -      2"]
