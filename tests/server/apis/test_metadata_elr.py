"""DescribeTopicPartitions carries the eligible leader replicas (KIP-966) on a cluster that has them."""

from tests.server.apis.dataplane_harness import DescribeTopicPartitions, Metadata, send, start_cluster


def test_a_lone_replica_lost_is_kept_as_elr_and_last_known_leader():
    c = start_cluster(seed=22, features={"eligible.leader.replicas.version": 1})
    try:
        c.create_topic("solo", replica_assignment={0: [3]})
        c.kill(3)
        assert c.wait_until(lambda: c.leader("solo", 0) in (None, -1), 10_000)
        c.run_for(300)
        named = [DescribeTopicPartitions.TopicRequest(name="solo")]
        answer = send(c, 1, DescribeTopicPartitions[0](topics=named, response_partition_limit=10))
        p = answer.topics[0].partitions[0]
        assert (p.leader_id, p.isr_nodes, p.eligible_leader_replicas, p.last_known_elr) == (-1, [], [3], [3])
        metadata = send(c, 1, Metadata[12](topics=[Metadata.MetadataRequestTopic(name="solo")]))
        assert metadata.topics[0].partitions[0].isr_nodes == []          # Metadata has no ELR fields
        assert c.describe_topic("solo").splitlines()[1] == (
            "\tTopic: solo\tPartition: 0\tLeader: none\tReplicas: 3\tIsr: \tElr: 3\tLastKnownElr: 3")
    finally:
        c.stop()
