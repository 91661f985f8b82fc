import struct

from kafka.protocol.broker_version_data import BrokerVersionData
from kafka.protocol.parser import KafkaProtocol

from minikafka.common.errors import Errors
from minikafka.network.api_versions import ADVERTISED_API_VERSIONS, FinalizedFeatures
from minikafka.network.codec import decode_request, encode_response, request_class, response_class
from minikafka.server.kafka_apis import dispatch
from minikafka.server.apis.api_versions import handle_api_versions
from minikafka.network.kafka_channel import KafkaChannel
from minikafka.network.request_context import RequestContext

ApiVersionsRequest, ApiVersionsResponse = request_class(18), response_class(18)

# A cluster formatted by Kafka 4.3.1 with a static quorum (kraft.version 0 is not listed).
FRESH_4_3_CLUSTER = FinalizedFeatures({
    "metadata.version": 30, "group.version": 1, "transaction.version": 2, "eligible.leader.replicas.version": 1,
    "share.version": 1, "streams.version": 1}, epoch=57)


class Broker:
    def finalized_features(self):
        return FRESH_4_3_CLUSTER


def context(version: int) -> RequestContext:
    return RequestContext("c", "127.0.0.1", "PLAINTEXT", 18, version, 1, "client")


def exchange(client: KafkaProtocol, channel: KafkaChannel, request, handler=handle_api_versions):
    client.send_request(request)
    channel.receive(bytes(client.send_bytes()))
    ctx, decoded = channel.next_request()
    wire = channel.complete(handler(ctx, decoded.body, Broker()))
    [(_, response)] = client.receive_bytes(wire)
    return response, wire


def kafka_python_negotiation(handler=handle_api_versions, advertised=ADVERTISED_API_VERSIONS):
    """kafka-python 3.0's ApiVersions loop (net/connection.py ``_get_api_versions``)."""
    client = KafkaProtocol(client_id="kafka-python-3.0.12")
    channel = KafkaChannel("c", "127.0.0.1", advertised=advertised)
    version, tried = ApiVersionsRequest.max_version, []
    while True:
        tried.append(version)
        request = ApiVersionsRequest(version=version, client_software_name="kafka-python",
                                     client_software_version="3.0.12")
        response, _ = exchange(client, channel, request, handler)
        if response.error_code == 0:
            return tried, response
        assert response.error_code == Errors.UNSUPPORTED_VERSION.code
        entry = [k for k in response.api_keys if k.api_key == 18]
        version = min(version, entry[0].max_version) if entry else 0


def test_kafka_python_gets_the_table_at_v4_and_infers_4_3():
    tried, response = kafka_python_negotiation()
    assert tried == [4]
    table = {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}
    assert table == dict(ADVERTISED_API_VERSIONS)
    assert [k.api_key for k in response.api_keys] == sorted(table)
    assert BrokerVersionData(api_versions=table).broker_version == (4, 3)


def test_a_broker_without_v4_makes_kafka_python_retry_at_v3():
    older = dict(ADVERTISED_API_VERSIONS)
    older[18] = (0, 3)

    def older_broker(ctx, request, broker):
        return handle_api_versions(ctx, request, broker, advertised=older)
    tried, response = kafka_python_negotiation(older_broker, older)
    assert tried == [4, 3]
    assert response.version == 3 and response.error_code == 0


def test_unknown_version_gets_the_v0_format_with_only_the_apiversions_range():
    sent = ApiVersionsRequest[4](client_software_name="x", client_software_version="1")
    client = KafkaProtocol(client_id="c")
    client.send_request(sent)
    frame = bytes(client.send_bytes())[4:]
    decoded = decode_request(frame[:2] + struct.pack(">h", 5) + frame[4:])
    response = dispatch(RequestContext("c", "h", "PLAINTEXT", 18, 5, decoded.correlation_id, "c"),
                        decoded, Broker())
    wire = encode_response(decoded, response)
    # size | correlation id | error 35 | api_keys: 1 x (18, 0, 4) -- and nothing else (v0 format)
    assert wire == struct.pack(">iihihhh", 16, decoded.correlation_id, 35, 1, 18, 0, 4)


def test_invalid_software_name_gets_invalid_request_at_the_request_version():
    response = handle_api_versions(
        context(3), ApiVersionsRequest[3](client_software_name="no spaces allowed",
                                          client_software_version="1"), Broker())
    assert response.error_code == Errors.INVALID_REQUEST.code and response.api_keys == []


def test_v3_omits_supported_features_with_minimum_zero():
    response = handle_api_versions(
        context(3), ApiVersionsRequest[3](client_software_name="a", client_software_version="1"),
        Broker())
    assert [(f.name, f.min_version, f.max_version) for f in response.supported_features] == \
        [("metadata.version", 7, 30)]


def test_v4_features_of_a_fresh_4_3_cluster_in_kafkas_hash_map_order():
    client = KafkaProtocol(client_id="c")
    response, _ = exchange(client, KafkaChannel("c", "h"),
                           ApiVersionsRequest[4](client_software_name="a", client_software_version="1"))
    # Both lists in the order a real Kafka 4.3.1 broker answered them (its HashMaps' order).
    assert [(f.name, f.min_version, f.max_version) for f in response.supported_features] == [
        ("group.version", 0, 1), ("kraft.version", 0, 1), ("metadata.version", 7, 30), ("share.version", 0, 1),
        ("streams.version", 0, 1), ("transaction.version", 0, 2), ("eligible.leader.replicas.version", 0, 1)]
    assert [(f.name, f.min_version_level, f.max_version_level) for f in response.finalized_features] == [
        ("group.version", 1, 1), ("streams.version", 1, 1), ("transaction.version", 2, 2),
        ("eligible.leader.replicas.version", 1, 1), ("share.version", 1, 1), ("metadata.version", 30, 30)]
    assert response.finalized_features_epoch == 57
    assert response.zk_migration_ready is False and response.throttle_time_ms == 0


def test_v0_to_v2_have_no_feature_fields():
    client = KafkaProtocol(client_id="c")
    for version in (0, 1, 2):
        response, wire = exchange(client, KafkaChannel("c", "h"), ApiVersionsRequest[version]())
        assert response.error_code == 0 and len(response.api_keys) == len(ADVERTISED_API_VERSIONS)
        # size | correlation | error | count | 36 x 6 bytes [| throttle]
        assert len(wire) == 4 + 4 + 2 + 4 + 6 * len(ADVERTISED_API_VERSIONS) + (4 if version else 0)
