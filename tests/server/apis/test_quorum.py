"""DescribeQuorum: forwarded to the quorum leader, answered in each version's shape."""

import random

import pytest

from minikafka.common.errors import Errors
from minikafka.server.apis.quorum import handle_describe_quorum
from minikafka.network.request_context import RequestContext
from minikafka.runtime.node import Node, RequestTimedOut
from tests.server.apis.admin_harness import DescribeQuorum, broker_node, send, start_cluster

TopicData = DescribeQuorum.TopicData


def metadata_partition(topic="__cluster_metadata", partitions=(0,)):
    return [TopicData(topic_name=topic, partitions=[TopicData.PartitionData(partition_index=p) for p in partitions])]


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=81, controllers=3)
    yield c
    c.stop()


def test_v2_reports_voters_observers_and_endpoints(cluster):
    answer = send(cluster, 2, DescribeQuorum[2](topics=metadata_partition()))
    assert (answer.error_code, answer.error_message) == (0, "")
    [topic] = answer.topics
    [partition] = topic.partitions
    assert (topic.topic_name, partition.partition_index, partition.error_code, partition.error_message) == \
        ("__cluster_metadata", 0, 0, "")
    assert partition.leader_id == cluster.active_controller
    assert [v.replica_id for v in partition.current_voters] == [1001, 1002, 1003]
    assert [o.replica_id for o in partition.observers] == [1, 2, 3]
    assert all(v.replica_directory_id is None for v in partition.current_voters)   # static quorum: zero id
    assert str(partition.observers[1].replica_directory_id).replace("-", "") == \
        broker_node(cluster, 2).directory_id.to_bytes().hex()
    leader = next(v for v in partition.current_voters if v.replica_id == partition.leader_id)
    assert leader.log_end_offset == partition.high_watermark or leader.log_end_offset >= partition.high_watermark
    assert leader.last_fetch_timestamp == leader.last_caught_up_timestamp == cluster.driver.now() - 1
    assert [(n.node_id, [(li.name, li.host) for li in n.listeners]) for n in answer.nodes] == [
        (1001, [("CONTROLLER", "127.0.0.1")]), (1002, [("CONTROLLER", "127.0.0.1")]),
        (1003, [("CONTROLLER", "127.0.0.1")])]


@pytest.mark.parametrize("version", [0, 1])
def test_older_versions_carry_fewer_fields(cluster, version):
    answer = send(cluster, 1, DescribeQuorum[version](topics=metadata_partition()))
    partition = answer.topics[0].partitions[0]
    assert partition.error_code == 0 and len(partition.current_voters) == 3
    assert answer.nodes == []                                       # not on the wire before v2
    stamps = partition.current_voters[0].last_fetch_timestamp
    assert (stamps == -1) if version == 0 else (stamps > 0)


@pytest.mark.parametrize("topics", [metadata_partition("orders"), metadata_partition(partitions=(1,)),
                                    metadata_partition(partitions=(0, 1))])
def test_anything_but_the_metadata_partition_is_unknown(cluster, topics):
    answer = send(cluster, 3, DescribeQuorum[2](topics=topics))
    assert answer.error_code == 0
    errors = [(t.topic_name, p.partition_index, p.error_code, p.error_message)
              for t in answer.topics for p in t.partitions]
    assert errors == [(t.topic_name, p.partition_index, 3, "This server does not host this topic-partition.")
                      for t in topics for p in t.partitions]


def test_a_former_leader_answers_not_leader_or_follower():
    c = start_cluster(seed=82, controllers=3, brokers=1)
    try:
        for controller in c.controller_ids[:2]:
            c.kill(controller)
        assert c.wait_until(lambda: c.active_controller is None, 10_000)   # the last voter resigned
        # For a while the broker still routes to the former leader, which answers for the partition.
        assert broker_node(c, 1).active_controller_id() == c.controller_ids[2]
        answer = send(c, 1, DescribeQuorum[2](topics=metadata_partition()))
        assert answer.error_code == 0
        [partition] = answer.topics[0].partitions
        assert (partition.error_code, partition.error_message) == (6, Errors.NOT_LEADER_OR_FOLLOWER.message)
    finally:
        c.stop()


class NoController:
    """A broker whose forwarding channel never finds a controller."""

    def __init__(self):
        self.node = Node(1, random.Random(1))
        self.budgets = []                          # the time each forwarding attempt was given

    def now(self):
        return self.node.now

    def schedule(self, key, at_ms, fn):
        self.node.schedule(key, at_ms, fn)

    def forward_to_controller(self, request, respond, timeout_ms=None):
        self.budgets.append(timeout_ms)
        respond(RequestTimedOut(-1, request))


def test_without_any_controller_the_answer_is_a_top_level_timeout():
    broker = NoController()
    ctx = RequestContext("c", "127.0.0.1", "PLAINTEXT", 55, 2, 1, "admin")
    deferred = handle_describe_quorum(ctx, DescribeQuorum[2](topics=metadata_partition()), broker)
    answer = deferred.outcome
    assert (answer.error_code, answer.error_message, answer.topics, answer.nodes) == \
        (7, "The request timed out.", [], [])
    assert broker.budgets == [60_000]                     # DescribeQuorum has no timeout: the channel's 60 s
