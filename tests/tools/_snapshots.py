"""Small hand-built ClusterSnapshots for the tool adapters."""

from minikafka import ClusterSnapshot, NodeSnapshot, PartitionSnapshot, QuorumSnapshot, TopicSnapshot


def node(node_id: int, roles=("broker",), registration="unfenced", process="running", port=9092, isolated=False):
    return NodeSnapshot(node_id, tuple(roles), process, isolated, registration, None, None, "localhost",
                        port, f"/tmp/broker-{node_id}", 0)


def partition(topic, index, replicas, isr=None, leader="first", adding=(), removing=()):
    isr = tuple(replicas) if isr is None else tuple(isr)
    lead = (isr[0] if isr else None) if leader == "first" else leader
    return PartitionSnapshot(topic, index, tuple(replicas), isr, lead, 0, 0, tuple(adding), tuple(removing))


def topic(name, topic_id, partitions, configs=None, internal=False):
    return TopicSnapshot(name, topic_id, internal, dict(configs or {}), tuple(partitions))


def cluster(topics=(), nodes=(), voters=(1001,)):
    return ClusterSnapshot("MkU3OEVBNTcwNTJENDM2Qg", 1767225600000, "teaching", True,
                           QuorumSnapshot(tuple(voters), voters[0] if voters else None, 1, 10),
                           tuple(nodes), tuple(topics))
