"""Tests for minikafka/tools/broker_api_versions_command_output.py."""

from minikafka.network.api_keys import broker_api_versions
from minikafka.tools import broker_api_versions_command_output as bav
from minikafka.tools.broker_api_versions_command_output import BrokerApiVersions, BrokerNode
from tests.tools._snapshots import cluster, node

# A 4.0.0 broker's answer (apache/kafka:4.0.0 image), as a public Chinese tutorial printed it with
# kafka-broker-api-versions.sh; a 4.3 client judges these lines the same way (its maxima are >= the broker's).
BROKER_4_0_LINES = {0: (0, 12), 1: (4, 17), 2: (1, 10), 3: (0, 13), 8: (2, 9), 9: (1, 9), 10: (0, 6), 11: (2, 9),
                    12: (0, 4), 18: (0, 4), 27: (1, 1), 68: (0, 1)}
OBSERVED_4_0 = ["\tProduce(0): 0 to 12 [usable: 12],", "\tFetch(1): 4 to 17 [usable: 17],",
                "\tListOffsets(2): 1 to 10 [usable: 10],", "\tMetadata(3): 0 to 13 [usable: 13],",
                "\tOffsetCommit(8): 2 to 9 [usable: 9],", "\tOffsetFetch(9): 1 to 9 [usable: 9],",
                "\tFindCoordinator(10): 0 to 6 [usable: 6],", "\tJoinGroup(11): 2 to 9 [usable: 9],",
                "\tHeartbeat(12): 0 to 4 [usable: 4],", "\tApiVersions(18): 0 to 4 [usable: 4],",
                "\tWriteTxnMarkers(27): 1 [usable: 1],", "\tConsumerGroupHeartbeat(68): 0 to 1 [usable: 1],",
                "\tShareGroupHeartbeat(76): UNSUPPORTED,"]


def test_golden_lines_of_a_4_0_broker():
    out = bav.format_brokers([BrokerApiVersions(BrokerNode(1, "kafka-1", 9092), BROKER_4_0_LINES)]).text
    lines = out.split("\n")
    assert lines[0] == "kafka-1:9092 (id: 1 rack: null isFenced: false) -> ("
    for expected in OBSERVED_4_0:
        assert expected in lines
    assert lines[-3] == "\tDeleteShareGroupOffsets(92): UNSUPPORTED" and lines[-2:] == [")", ""]


def test_a_default_4_3_1_broker():
    # Lines a real Kafka 4.3.1 broker gave Kafka 4.3.1's own tool (the differential suite's cluster):
    block = bav.format_api_versions(broker_api_versions())
    for line in ("Produce(0): 0 to 13 [usable: 13]", "Fetch(1): 4 to 18 [usable: 18]",
                 "ListOffsets(2): 1 to 11 [usable: 11]", "Metadata(3): 0 to 13 [usable: 13]",
                 "OffsetCommit(8): 2 to 10 [usable: 10]", "ApiVersions(18): 0 to 4 [usable: 4]",
                 "InitProducerId(22): 0 to 5 [usable: 5]",        # the client knows unstable v6, the broker stops at 5
                 "DescribeLogDirs(35): 1 to 5 [usable: 5]", "UpdateFeatures(57): 0 to 2 [usable: 2]",
                 "GetTelemetrySubscriptions(71): UNSUPPORTED", "StreamsGroupHeartbeat(88): 0 [usable: 0]"):
        assert f"\t{line}," in block or f"\t{line}\n" in block
    assert block.startswith("(\n\tProduce(0): ") and block.endswith("\n)")
    keys = [int(line.split("(")[1].split(")")[0]) for line in block.splitlines()[1:-1]]
    assert keys == sorted(keys)
    assert "Vote(52)" not in block                       # a controller-only API is not a client API


def test_usable_verdicts():
    assert bav.api_version_line(1, 19, 20) == "Fetch(1): 19 to 20 [unusable: node too new]"
    assert bav.api_version_line(1, 0, 3) == "Fetch(1): 0 to 3 [unusable: node too old]"
    assert bav.api_version_line(0, 3, 14) == "Produce(0): 3 to 14 [usable: 13]"
    assert bav.api_version_line(200, 0, 1) == "UNKNOWN(200): 0 to 1"
    assert bav.api_version_line(4, 0, 7) == "LeaderAndIsr(4): 0 to 7 [unusable: node too new]"
    assert bav.api_version_line(47, 0, 0) == "OffsetDelete(47): 0 [usable: 0]"


def test_blocks_follow_the_node_hashmap_order_and_errors():
    nodes = [BrokerNode(i, f"broker-{i}.lab.internal", 9092, rack) for i, rack in
             ((11, "ap-south-1a"), (13, "ap-south-1c"), (14, "ap-south-1a"))]
    brokers = [BrokerApiVersions(n, {18: (0, 4)}) for n in nodes[:2]] + [
        BrokerApiVersions(nodes[2], error="org.apache.kafka.common.errors.DisconnectException")]
    heads = [line for line in bav.format_brokers(brokers).text.splitlines() if "(id:" in line]
    # Observed order on a 4.x lab cluster (public course material): 13, 11, 14
    assert heads == ["broker-13.lab.internal:9092 (id: 13 rack: ap-south-1c isFenced: false) -> (",
                     "broker-11.lab.internal:9092 (id: 11 rack: ap-south-1a isFenced: false) -> (",
                     "broker-14.lab.internal:9092 (id: 14 rack: ap-south-1a isFenced: false) -> ERROR: "
                     "org.apache.kafka.common.errors.DisconnectException"]


def test_from_snapshot():
    snapshot = cluster(nodes=[node(1, port=9092), node(2, port=9093, process="dead"), node(3, registration="fenced"),
                              node(1001, roles=("controller",), registration=None, port=9094)])
    brokers = bav.from_snapshot(snapshot)
    assert [b.node.id for b in brokers] == [1, 2]
    assert brokers[1].error == "org.apache.kafka.common.errors.DisconnectException"
    text = bav.format_brokers(brokers).text
    assert text.startswith("localhost:9093 (id: 2 rack: null isFenced: false) -> ERROR: "
                           "org.apache.kafka.common.errors.DisconnectException\n")     # HashMap order, not by id
    assert "\nlocalhost:9092 (id: 1 rack: null isFenced: false) -> (\n\tProduce(0): 0 to 13 [usable: 13],\n" in text
    assert "\tAddPartitionsToTxn(24): UNSUPPORTED," in text     # the sandbox does not advertise transactions
