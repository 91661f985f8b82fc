"""Raw bytes at a live broker: bad frames close only their own connection and change no data.

Kafka's broker parses each request frame before it does anything with it.
A frame it cannot read -- a size it refuses, a header it cannot parse, an api
key it does not know, a body that stops short -- closes that connection and
logs ``Closing socket for <connection id> because of error``; every other
connection carries on, and no log changes.  The last test lets hypothesis
mutate valid read-only requests and checks exactly that.
"""

from __future__ import annotations

import socket
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.protocol.parser import KafkaProtocol

from minikafka.network.codec import request_class
from tests.e2e.dataplane_helpers import live_cluster, producer, segment_files, wait_for_leaders

pytestmark = pytest.mark.live

Metadata, Fetch, ListOffsets = request_class(3), request_class(1), request_class(2)
ApiVersions, OffsetForLeaderEpoch, DescribeLogDirs = request_class(18), request_class(23), request_class(35)
BROKER = 1


@pytest.fixture(scope="module")
def cluster():
    c = live_cluster(seed=131, broker_config={"auto.create.topics.enable": False})
    c.create_topic("kept", partitions=2, replication_factor=3)
    wait_for_leaders(c, "kept", 2)
    p = producer(c, acks="all")
    for i in range(20):
        p.send("kept", value=b"record-%d" % i, partition=i % 2)
    p.flush(timeout=20)
    p.close()
    yield c
    c.stop()


def connect(cluster) -> socket.socket:
    return socket.create_connection(("127.0.0.1", cluster.layout.broker_ports[BROKER]), timeout=10)


def encode(request) -> bytes:
    """A framed request exactly as kafka-python would send it."""
    client = KafkaProtocol(client_id="raw-test")
    client.send_request(request)
    return bytes(client.send_bytes())


def read_frame(sock: socket.socket) -> bytes | None:
    """One response frame, or None if the broker closed the connection."""
    header = _read_exactly(sock, 4)
    if header is None:
        return None
    return _read_exactly(sock, struct.unpack(">i", header)[0])


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def still_serves(cluster) -> bool:
    with connect(cluster) as sock:
        sock.sendall(encode(Metadata[12](topics=None)))
        return read_frame(sock) is not None


def log_lines(cluster) -> list[str]:
    return list(cluster.listeners[BROKER].log_lines)


def closes(cluster, payload: bytes) -> str:
    """Send raw bytes on a fresh connection; expect it closed; return the new log line."""
    before = len(log_lines(cluster))
    with connect(cluster) as sock:
        sock.sendall(payload)
        assert read_frame(sock) is None
    lines = log_lines(cluster)[before:]
    assert len(lines) == 1, lines
    return lines[0]


def test_bad_frames_close_their_connection_only(cluster):
    files = segment_files(cluster, BROKER)
    bystander = connect(cluster)
    good = encode(Metadata[12](topics=None))
    body = good[4:]
    truncated = struct.pack(">i", 20) + body[:20]            # a whole frame, but a body cut short
    unknown_key = struct.pack(">i", 10) + struct.pack(">hhi", 999, 0, 1) + b"\x00\x00"
    oversized = struct.pack(">i", 200_000_000)
    line = closes(cluster, truncated)
    assert "because of error: InvalidRequestException: Error getting request for apiKey: METADATA, " \
           "apiVersion: 12" in line and line.startswith("Closing socket for 127.0.0.1:")
    assert closes(cluster, unknown_key).endswith(
        "InvalidRequestException: Error parsing request header. Our best guess of the apiKeyId is: 999")
    assert closes(cluster, oversized).endswith(
        "InvalidReceiveException: Invalid receive (size = 200000000 larger than 104857600)")
    assert closes(cluster, struct.pack(">i", -5)).endswith("Invalid receive (size = -5)")
    bystander.sendall(good)                                   # an innocent connection opened earlier
    assert read_frame(bystander) is not None
    bystander.close()
    assert segment_files(cluster, BROKER) == files


def base_requests(cluster) -> list[bytes]:
    partitions = [Fetch.FetchTopic.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 16,
                                                  current_leader_epoch=-1, last_fetched_epoch=-1,
                                                  log_start_offset=-1)]
    return [encode(r) for r in (
        Metadata[12](topics=[Metadata.MetadataRequestTopic(name="kept")], allow_auto_topic_creation=False),
        Fetch[12](replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 16, isolation_level=0,
                  session_id=0, session_epoch=-1, topics=[Fetch.FetchTopic(topic="kept", partitions=partitions)],
                  forgotten_topics_data=[], rack_id=""),
        ListOffsets[9](replica_id=-1, isolation_level=0, timeout_ms=1000, topics=[
            ListOffsets.ListOffsetsTopic(name="kept", partitions=[
                ListOffsets.ListOffsetsTopic.ListOffsetsPartition(partition_index=1, timestamp=-1)])]),
        ApiVersions[3](client_software_name="fuzz", client_software_version="1"),
        OffsetForLeaderEpoch[4](replica_id=-1, topics=[OffsetForLeaderEpoch.OffsetForLeaderTopic(
            topic="kept", partitions=[OffsetForLeaderEpoch.OffsetForLeaderTopic.OffsetForLeaderPartition(
                partition=0, current_leader_epoch=-1, leader_epoch=0)])]),
        DescribeLogDirs[4](topics=None))]


def mutate(frame: bytes, flips: list[tuple[int, int]], cut: int) -> bytes:
    """Flip bytes of the payload, maybe cut it, and fix the size prefix so the frame is complete."""
    payload = bytearray(frame[4:])
    for position, value in flips:
        payload[position % len(payload)] = value
    if cut:
        del payload[len(payload) - cut % len(payload):]
    return struct.pack(">i", len(payload)) + bytes(payload)


@pytest.fixture(scope="module")
def fuzz_state(cluster):
    return {"files": segment_files(cluster, BROKER), "frames": base_requests(cluster)}


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, 5), flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)),
                                                max_size=4),
       cut=st.integers(0, 64))
def test_mutated_requests_never_hurt_the_broker(cluster, fuzz_state, which, flips, cut):
    frame = mutate(fuzz_state["frames"][which], flips, cut)
    with connect(cluster) as sock:
        sock.settimeout(5)
        sock.sendall(frame)
        try:
            read_frame(sock)                                 # an answer or a close; both are fine
        except socket.timeout:
            pass                                             # e.g. a long poll the mutation asked for
    assert still_serves(cluster)
    assert segment_files(cluster, BROKER) == fuzz_state["files"]
