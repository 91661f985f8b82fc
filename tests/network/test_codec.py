import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.protocol.parser import KafkaProtocol
from kafka.record.memory_records import MemoryRecordsBuilder

from minikafka.common.errors import (InvalidRequestException, UnknownServerException,
                                     UnsupportedVersionException)
from minikafka.network.api_keys import API_KEYS
from minikafka.network.api_versions import ADVERTISED_API_VERSIONS
from minikafka.network.codec import (DecodedRequest, decode_request, encode_response,
                                     request_class, response_class)

ProduceRequest, MetadataRequest = request_class(0), request_class(3)
JoinGroupRequest, ApiVersionsRequest = request_class(11), request_class(18)

ENABLED = [(key, version) for key, (low, high) in ADVERTISED_API_VERSIONS.items()
           for version in range(max(low, API_KEYS[key].oldest), high + 1)]
DOCUMENTED = (InvalidRequestException, UnsupportedVersionException)


def client_frame(request, client_id="test-client", protocol=None) -> bytes:
    """What kafka-python's client puts on the wire for ``request``, minus the size prefix."""
    protocol = protocol or KafkaProtocol(client_id=client_id)
    protocol.send_request(request)
    return bytes(protocol.send_bytes())[4:]


def record_batch(size=16 * 1024) -> bytes:
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=size + 1024)
    for _ in range(size // 1024):
        builder.append(timestamp=1767225600000, key=None, value=b"v" * 1000, headers=[])
    builder.close()
    return bytes(builder.buffer())


def produce_request(version=9, records=None):
    topic = ProduceRequest.TopicProduceData
    partition = topic.PartitionProduceData(index=0, records=records or record_batch(2048))
    return ProduceRequest[version](transactional_id=None, acks=-1, timeout_ms=30000,
                                   topic_data=[topic(name="orders", partition_data=[partition])])


def join_group_request(version=5):
    protocol = JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"\x00\x01")
    return JoinGroupRequest[version](group_id="g", session_timeout_ms=45000,
                                     rebalance_timeout_ms=300000, member_id="",
                                     group_instance_id=None, protocol_type="consumer",
                                     protocols=[protocol])


# --------------------------------------------------------------------------- round trips

@pytest.mark.parametrize("key,version", ENABLED, ids=lambda x: str(x))
def test_every_enabled_request_version_decodes_as_the_client_encoded_it(key, version):
    sent = request_class(key)[version]()
    decoded = decode_request(client_frame(sent))
    assert (decoded.api_key, decoded.api_version) == (key, version)
    assert decoded.body == sent
    assert decoded.header_version == (2 if sent.flexible_version_q(version) else 1)


@pytest.mark.parametrize("key,version", ENABLED, ids=lambda x: str(x))
def test_every_enabled_response_version_parses_in_the_client(key, version):
    client = KafkaProtocol(client_id="c")
    sent = request_class(key)[version]()
    if key == 0:
        sent.acks = -1                             # acks=0 produce expects no response
    decoded = decode_request(client_frame(sent, protocol=client))
    answer = response_class(key)()                 # handlers build responses without a version
    [(correlation_id, parsed)] = client.receive_bytes(encode_response(decoded, answer))
    assert correlation_id == decoded.correlation_id
    assert parsed == answer and parsed.version == version


def test_produce_with_a_record_batch():
    batch = record_batch()
    decoded = decode_request(client_frame(produce_request(9, batch), client_id="producer-1"))
    assert decoded.name == "Produce" and decoded.client_id == "producer-1"
    partition = decoded.body.topic_data[0].partition_data[0]
    assert decoded.body.acks == -1 and decoded.body.transactional_id is None
    assert partition.records == batch and decoded.body.topic_data[0].name == "orders"
    assert decoded.size == len(client_frame(produce_request(9, batch), client_id="producer-1"))


def test_null_client_id_reads_as_empty():
    decoded = decode_request(client_frame(MetadataRequest[12](topics=None), client_id=None))
    assert decoded.client_id == ""


def test_bytes_after_the_body_are_ignored_as_kafka_does():
    decoded = decode_request(client_frame(MetadataRequest[1](topics=["a"])) + b"\x00junk")
    assert decoded.body.topics[0].name == "a"


def test_decoded_body_carries_its_header():
    decoded = decode_request(client_frame(MetadataRequest[12](topics=None)))
    assert decoded.body.header is decoded.header


def test_response_headers_v0_v1_and_apiversions_always_v0():
    for key, version, request, tag_byte in [
            (3, 8, MetadataRequest[8](topics=None), False),
            (3, 12, MetadataRequest[12](topics=None), True),
            (18, 4, ApiVersionsRequest[4](client_software_name="a", client_software_version="1"), False)]:
        decoded = decode_request(client_frame(request))
        body = response_class(key)()
        wire = encode_response(decoded, body)
        size, correlation_id = struct.unpack_from(">ii", wire)
        assert size == len(wire) - 4 and correlation_id == decoded.correlation_id
        expected_body = bytes(response_class(key)().encode(version=version))
        assert wire[8:] == (b"\x00" if tag_byte else b"") + expected_body


# --------------------------------------------------------------------------- ApiVersions fallback

def with_version(frame: bytes, version: int) -> bytes:
    return frame[:2] + struct.pack(">h", version) + frame[4:]


@pytest.mark.parametrize("version", [5, 127, -1])
def test_apiversions_at_an_unknown_version_is_not_parsed(version):
    sent = ApiVersionsRequest[4](client_software_name="x", client_software_version="1")
    decoded = decode_request(with_version(client_frame(sent), version))
    assert decoded.api_versions_fallback and decoded.response_version == 0
    assert decoded.body.version == 0 and decoded.api_version == version


def test_apiversions_fallback_follows_the_advertised_range():
    sent = ApiVersionsRequest[4](client_software_name="x", client_software_version="1")
    older = dict(ADVERTISED_API_VERSIONS)
    older[18] = (0, 3)                             # a broker that only knows ApiVersions v0-v3
    assert decode_request(client_frame(sent), advertised=older).api_versions_fallback
    assert not decode_request(client_frame(sent)).api_versions_fallback


# --------------------------------------------------------------------------- errors, in Kafka's words

def header(key: int, version: int, correlation_id=7, client_id=b"c") -> bytes:
    """A request header; v2 (an empty tagged-field section) where the version is flexible."""
    fixed = struct.pack(">hhih", key, version, correlation_id, len(client_id)) + client_id
    api = API_KEYS.get(key)
    flexible = api is not None and api.has_valid_version() and api.request_header_version(version) == 2
    return fixed + (b"\x00" if flexible else b"")


@pytest.mark.parametrize("data,message", [
    (b"", "Error parsing request header. Our best guess of the apiKeyId is: -1"),
    (b"\x00", "Error parsing request header. Our best guess of the apiKeyId is: -1"),
    (b"\x00\x03\x00", "Error parsing request header. Our best guess of the apiKeyId is: 3"),
    (header(93, 0), "Error parsing request header. Our best guess of the apiKeyId is: 93"),
    (header(-5, 0), "Error parsing request header. Our best guess of the apiKeyId is: -5"),
    (header(4, 7), "Unsupported api with key 4 (LeaderAndIsr) and version 7"),
    (header(3, 1)[:9], "Error parsing request header. Our best guess of the apiKeyId is: 3"),
    (header(50, 0), "Received request for disabled api with key 50 (DescribeUserScramCredentials) and version 0"),
    (header(52, 1), "Received request for disabled api with key 52 (Vote) and version 1"),
    (header(22, 6), "Received request for disabled api with key 22 (InitProducerId) and version 6"),
    (header(24, 4), "Received request for disabled api with key 24 (AddPartitionsToTxn) and version 4"),
])
def test_requests_the_broker_closes_the_connection_on(data, message):
    with pytest.raises(InvalidRequestException) as info:
        decode_request(data)
    assert str(info.value) == message


@pytest.mark.parametrize("key,version,name", [(0, 2, "Produce"), (0, 14, "Produce"),
                                              (3, 14, "Metadata"), (1, 3, "Fetch")])
def test_unsupported_versions(key, version, name):
    with pytest.raises(UnsupportedVersionException) as info:
        decode_request(header(key, version))
    assert str(info.value) == (f"Received request for api with key {key} ({name}) "
                               f"and unsupported version {version}")


def test_truncated_body_message_names_the_connection():
    frame = client_frame(produce_request(9))
    with pytest.raises(InvalidRequestException) as info:
        decode_request(frame[:-1], connection_id="127.0.0.1:9092-127.0.0.1:5000-0-1")
    assert str(info.value) == (
        "Error getting request for apiKey: PRODUCE, apiVersion: 9, "
        "connectionId: 127.0.0.1:9092-127.0.0.1:5000-0-1, listenerName: ListenerName(PLAINTEXT), "
        "principal: User:ANONYMOUS")
    assert info.value.__cause__ is not None


@pytest.mark.parametrize("request_obj", [produce_request(9), produce_request(3),
                                         MetadataRequest[0](topics=["a", "bb"]),
                                         MetadataRequest[12](topics=None), join_group_request(5),
                                         join_group_request(9)],
                         ids=["produce9", "produce3", "metadata0", "metadata12", "join5", "join9"])
def test_every_strict_prefix_is_rejected(request_obj):
    frame = client_frame(request_obj)
    for end in range(len(frame)):
        with pytest.raises(InvalidRequestException):
            decode_request(frame[:end])


def test_null_in_a_non_nullable_field_is_rejected():
    body = struct.pack(">hiih", -1, 45000, 300000, 0)           # group_id = null, member_id ""
    body += struct.pack(">h", -1)                               # group_instance_id = null (allowed)
    body += struct.pack(">h", 8) + b"consumer" + struct.pack(">i", 0)
    with pytest.raises(InvalidRequestException) as info:
        decode_request(header(11, 5) + body)
    assert str(info.value.__cause__) == "non-nullable field groupId was serialized as null"


def test_nullable_fields_may_be_null():
    body = struct.pack(">h", 1) + b"g" + struct.pack(">iih", 45000, 300000, 0) + struct.pack(">h", -1)
    body += struct.pack(">h", 8) + b"consumer" + struct.pack(">i", 0)
    assert decode_request(header(11, 5) + body).body.group_instance_id is None


def test_encoding_the_wrong_response_type_is_a_server_error():
    decoded = decode_request(client_frame(MetadataRequest[12](topics=None)))
    with pytest.raises(UnknownServerException, match="Metadata request answered with"):
        encode_response(decoded, response_class(0)())


def test_encoding_a_broken_response_is_a_server_error():
    decoded = decode_request(client_frame(MetadataRequest[12](topics=None)))
    with pytest.raises(UnknownServerException, match="Cannot encode MetadataResponse v12"):
        encode_response(decoded, response_class(3)(throttle_time_ms="soon"))


# --------------------------------------------------------------------------- properties

VALID_FRAMES = [client_frame(r) for r in (
    produce_request(9), produce_request(3), MetadataRequest[12](topics=None),
    MetadataRequest[4](topics=["t"]), join_group_request(5), join_group_request(9),
    ApiVersionsRequest[4](client_software_name="kafka-python", client_software_version="3.0.12"),
    ApiVersionsRequest[0](), request_class(1)[12](), request_class(19)[7](),
    request_class(32)[4](), request_class(60)[2]())]
PROPERTY_SETTINGS = settings(max_examples=300, derandomize=True, deadline=None, database=None,
                             suppress_health_check=[HealthCheck.too_slow])


def decode_or_documented_error(data: bytes) -> None:
    try:
        result = decode_request(data)
    except DOCUMENTED:
        return
    assert isinstance(result, DecodedRequest)


@PROPERTY_SETTINGS
@given(st.binary(max_size=200))
def test_random_bytes_never_raise_anything_undocumented(data):
    decode_or_documented_error(data)


@PROPERTY_SETTINGS
@given(st.sampled_from(ENABLED), st.binary(max_size=120))
def test_valid_headers_with_random_bodies(key_version, body):
    key, version = key_version
    client = KafkaProtocol(client_id="c")
    head = client_frame(request_class(key)[version](), protocol=client)
    header_length = len(head) - len(bytes(request_class(key)[version]().encode(version=version)))
    decode_or_documented_error(head[:header_length] + body)


@st.composite
def mutated_frames(draw):
    frame = bytearray(draw(st.sampled_from(VALID_FRAMES)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "cut", "insert", "overwrite"]))
        at = draw(st.integers(0, max(len(frame) - 1, 0)))
        if kind == "flip" and frame:
            frame[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "cut":
            del frame[at:at + draw(st.integers(1, 16))]
        elif kind == "insert":
            frame[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            value = draw(st.sampled_from([b"\xff", b"\x7f\xff\xff\xff", b"\x80\x00", b"\x00\x00"]))
            frame[at:at + len(value)] = value
    return bytes(frame)


@PROPERTY_SETTINGS
@given(mutated_frames())
def test_mutated_frames_never_raise_anything_undocumented(frame):
    decode_or_documented_error(frame)
