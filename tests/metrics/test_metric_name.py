"""MBean names built and read back the way Kafka's KafkaMetricsGroup writes them."""

from minikafka.metrics.metric_name import is_node_level, mbean_name, parse_mbean_name


def test_tags_follow_type_and_name_in_the_given_order():
    assert mbean_name("kafka.log", "Log", "Size", (("topic", "orders"), ("partition", "0"))) == \
        "kafka.log:type=Log,name=Size,topic=orders,partition=0"
    assert mbean_name("kafka.server", "ReplicaManager", "LeaderCount") == \
        "kafka.server:type=ReplicaManager,name=LeaderCount"


def test_empty_tag_values_are_left_out():
    assert mbean_name("kafka.server", "BrokerTopicMetrics", "BytesInPerSec", (("topic", ""),)) == \
        "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec"


def test_parse_and_node_level():
    name = "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,version=9"
    assert parse_mbean_name(name) == ("kafka.network", {"type": "RequestMetrics", "name": "RequestsPerSec",
                                                        "request": "Produce", "version": "9"})
    assert not is_node_level(name)
    assert is_node_level("kafka.controller:type=KafkaController,name=ActiveControllerCount")
