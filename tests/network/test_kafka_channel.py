import struct

import pytest
from kafka.protocol.parser import KafkaProtocol

from minikafka.common.errors import InvalidRequestException, UnsupportedVersionException
from minikafka.network.codec import request_class, response_class
from minikafka.network.frame import InvalidReceiveException
from minikafka.network.kafka_channel import KafkaChannel, server_connection_id
from minikafka.network.request_channel import NO_RESPONSE, CloseConnectionResponse

MetadataRequest, ApiVersionsRequest = request_class(3), request_class(18)
MetadataResponse = response_class(3)


def channel(**kwargs) -> KafkaChannel:
    return KafkaChannel(server_connection_id("127.0.0.1", 9092, "127.0.0.1", 50514, 0, 3),
                        "127.0.0.1", 50514, **kwargs)


def send(client: KafkaProtocol, *requests) -> bytes:
    for request in requests:
        client.send_request(request)
    return bytes(client.send_bytes())


def test_connection_id_format():
    assert server_connection_id("127.0.0.1", 9092, "127.0.0.1", 50514, 0, 3) == \
        "127.0.0.1:9092-127.0.0.1:50514-0-3"


def test_pipelined_requests_are_handled_one_at_a_time_in_order():
    client, ch = KafkaProtocol(client_id="c"), channel()
    ch.receive(send(client, MetadataRequest[12](topics=None), MetadataRequest[12](topics=None)))
    ctx1, first = ch.next_request()
    assert ch.muted and ch.next_request() is None and ch.queued_requests == 1
    wire = ch.complete(MetadataResponse(throttle_time_ms=1))
    ctx2, second = ch.next_request()
    assert (first.correlation_id, second.correlation_id) == (1, 2)
    assert ctx1.connection_id == "127.0.0.1:9092-127.0.0.1:50514-0-3" and ctx2.client_port == 50514
    wire += ch.complete(MetadataResponse(throttle_time_ms=2))
    responses = client.receive_bytes(wire)
    assert [(cid, r.throttle_time_ms) for cid, r in responses] == [(1, 1), (2, 2)]


def test_client_software_is_registered_after_the_apiversions_request():
    client, ch = KafkaProtocol(client_id="c"), channel()
    ch.receive(send(client, ApiVersionsRequest[4](client_software_name="kafka-python",
                                                  client_software_version="3.0.12"),
                    MetadataRequest[12](topics=None)))
    ctx, _ = ch.next_request()
    assert ctx.client_software_name == "unknown"           # as in Kafka: registered afterwards
    ch.complete(NO_RESPONSE)
    ctx, _ = ch.next_request()
    assert (ctx.client_software_name, ctx.client_software_version) == ("kafka-python", "3.0.12")


def test_invalid_software_name_is_not_registered():
    client, ch = KafkaProtocol(client_id="c"), channel()
    ch.receive(send(client, ApiVersionsRequest[3](client_software_name="bad name",
                                                  client_software_version="1"),
                    MetadataRequest[12](topics=None)))
    ch.next_request()
    ch.complete(NO_RESPONSE)
    ctx, _ = ch.next_request()
    assert ctx.client_software_name == "unknown"


def test_no_response_writes_nothing_and_unmutes():
    client, ch = KafkaProtocol(client_id="c"), channel()
    ch.receive(send(client, MetadataRequest[12](topics=None)))
    ch.next_request()
    assert ch.complete(NO_RESPONSE) is None
    assert not ch.muted and not ch.closed


def test_close_connection_outcome_closes_the_channel():
    client, ch = KafkaProtocol(client_id="c"), channel()
    ch.receive(send(client, MetadataRequest[12](topics=None), MetadataRequest[12](topics=None)))
    ch.next_request()
    assert ch.complete(CloseConnectionResponse(ValueError("x"))) is None
    assert ch.closed and ch.next_request() is None


def test_bad_frame_size_closes():
    ch = channel(max_request_bytes=100)
    with pytest.raises(InvalidReceiveException):
        ch.receive(struct.pack(">i", 101))
    assert ch.closed


@pytest.mark.parametrize("payload,error", [
    (struct.pack(">hhih", 0, 2, 1, -1), UnsupportedVersionException),
    (struct.pack(">hhih", 99, 0, 1, -1), InvalidRequestException),
])
def test_undecodable_request_closes(payload, error):
    ch = channel()
    ch.receive(struct.pack(">i", len(payload)) + payload)
    with pytest.raises(error):
        ch.next_request()
    assert ch.closed and ch.next_request() is None


def test_completing_without_a_request_is_a_bug():
    with pytest.raises(RuntimeError, match="No request in flight"):
        channel().complete(NO_RESPONSE)
