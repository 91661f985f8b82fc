"""`DrillClient`: a small producer and reader that speak the Kafka protocol in-process.

Theory of operation
-------------------
A drill needs traffic: records written before a fault, a write sent in the
middle of one, a read afterwards to count what survived.  On a simulated
cluster there is no port for a real client, so this client sends real
``Produce`` and ``Fetch`` requests through `InProcessConnection`
(kafka-python encodes them, the broker's own codec and handlers answer, in
virtual time).  What a drill learns from it is what a Kafka client would
have been told: the error code of each produce (``NOT_ENOUGH_REPLICAS``...),
the offsets, the records a consumer can read (below the high watermark).
The same client works on a live cluster (through the driver, no socket).

It plays a producer the simple way: each call is one batch to the current
leader of one partition, with the given ``acks``; it does not retry or
buffer (a drill that needs the retrying client uses kafka-python on a live
cluster).  Keys pick partitions with kafka-python's murmur2 partitioner,
which is the Java client's default for keyed records.

Mirrors what ``KafkaProducer.send`` and ``KafkaConsumer.poll`` put on the
wire; simplified: no idempotence, no batching across calls, no metadata
cache (the leader comes from the cluster's committed metadata).
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.errors import Errors
from minikafka.network.codec import request_class
from minikafka.drivers.inprocess import ConnectionClosed, InProcessConnection
from minikafka.record.memory_records import SimpleRecord, build_batch, decode_records

Produce, Fetch = request_class(0), request_class(1)
REQUEST_TIMEOUT_MS = 30_000   # the Java client's request.timeout.ms default


@dataclass(frozen=True, slots=True)
class ProduceOutcome:
    """What the leader answered to one produce request."""

    error: str             # Kafka's error name: NONE, NOT_ENOUGH_REPLICAS, ...
    base_offset: int       # the first record's offset (-1 unless NONE)
    leader: int | None     # the broker the request went to
    sent_ms: int           # cluster time when it was sent
    answered_ms: int       # cluster time when the answer came

    @property
    def ok(self) -> bool:
        return self.error == "NONE"


def partition_for_key(key: bytes, partitions: int) -> int:
    """The Java client's default partitioner for a keyed record: murmur2, made positive."""
    from kafka.partitioner.default import murmur2
    return (murmur2(key) & 0x7FFFFFFF) % partitions


class DrillClient:
    def __init__(self, cluster, client_id: str = "drill-client"):
        self.cluster = cluster
        self.client_id = client_id

    def _now(self) -> int:
        return self.cluster.now_ms

    def produce(self, topic: str, partition: int, values: list[bytes], *,
                keys: list[bytes | None] | None = None, acks: int = -1,
                timeout_ms: int = REQUEST_TIMEOUT_MS) -> ProduceOutcome:
        """One batch of ``values`` to the partition's leader; waits for the answer."""
        sent = self._now()
        leader = self.cluster.leader(topic, partition)
        if leader is None:
            return ProduceOutcome("LEADER_NOT_AVAILABLE", -1, None, sent, sent)
        keys = keys or [None] * len(values)
        batch = build_batch([SimpleRecord(value=v, key=k, timestamp=sent)
                             for k, v in zip(keys, values)])
        request = Produce[9](
            transactional_id=None, acks=acks, timeout_ms=timeout_ms,
            topic_data=[Produce.TopicProduceData(name=topic, partition_data=[
                Produce.TopicProduceData.PartitionProduceData(index=partition, records=batch)])])
        try:
            response = InProcessConnection(self.cluster, leader, self.client_id).send(
                request, timeout_ms=timeout_ms + 5_000)
        except ConnectionClosed:
            return ProduceOutcome("NETWORK_EXCEPTION", -1, leader, sent, self._now())
        answer = response.responses[0].partition_responses[0]
        error = Errors.for_code(answer.error_code).name
        return ProduceOutcome(error, answer.base_offset if error == "NONE" else -1, leader,
                              sent, self._now())

    def produce_keyed(self, topic: str, partitions: int, key: bytes, values: list[bytes],
                      acks: int = -1) -> ProduceOutcome:
        """Records of one key, to the partition the default partitioner picks."""
        return self.produce(topic, partition_for_key(key, partitions), values,
                            keys=[key] * len(values), acks=acks)

    def read(self, topic: str, partition: int) -> list:
        """Every record a consumer can read from the partition's leader (up to its high
        watermark), as `Record` objects (offset, key, value); [] when it has no leader."""
        leader = self.cluster.leader(topic, partition)
        if leader is None:
            return []
        records, offset = [], 0
        while True:
            data = self._fetch(leader, topic, partition, offset)
            if data is None or data.error_code != 0:
                return records
            batch = [r for r in decode_records(data.records) if r.offset >= offset]
            if not batch:
                return records
            records += batch
            offset = batch[-1].offset + 1

    def _fetch(self, leader: int, topic: str, partition: int, offset: int):
        request = Fetch[12](
            replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=50 << 20, isolation_level=0,
            session_id=0, session_epoch=-1,
            topics=[Fetch.FetchTopic(topic=topic, partitions=[Fetch.FetchTopic.FetchPartition(
                partition=partition, current_leader_epoch=-1, fetch_offset=offset,
                last_fetched_epoch=-1, log_start_offset=-1, partition_max_bytes=8 << 20)])],
            forgotten_topics_data=[], rack_id="")
        try:
            response = InProcessConnection(self.cluster, leader, self.client_id).send(request)
        except ConnectionClosed:
            return None
        return response.responses[0].partitions[0]
