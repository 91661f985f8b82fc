"""A minimal "sink" Kafka broker for benchmarks: it acknowledges produce requests and keeps nothing.

It speaks just enough of the protocol for kafka-python's producer --
ApiVersions (the sandbox's own table, so clients negotiate the same
versions), Metadata (itself as the only broker, leading every partition of
every topic asked for), InitProducerId and Produce (every batch acknowledged
with increasing offsets, nothing stored) -- through the sandbox's real codec
and ``KafkaChannel``.  Whatever a client achieves against it is the ceiling
the client and the wire format allow on this machine; the sandbox is
measured against that ceiling (``bench_clients.py``).

Run: ``.venv/bin/python benchmarks/sink_broker.py [--partitions N]``; it
prints ``port <n>`` once it listens on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import struct
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from minikafka.network.api_versions import FinalizedFeatures  # noqa: E402
from minikafka.network.codec import response_class  # noqa: E402
from minikafka.server.apis.api_versions import handle_api_versions  # noqa: E402
from minikafka.network.kafka_channel import KafkaChannel  # noqa: E402
from minikafka.network.request_channel import NO_RESPONSE, CloseConnectionResponse  # noqa: E402

NODE_ID = 0
_RECORDS_COUNT = struct.Struct(">i")
RECORDS_COUNT_OFFSET = 57


class SinkBroker:
    def __init__(self, host: str, partitions: int):
        self.host = host
        self.port = 0
        self.partitions = partitions
        self.next_offset: dict[tuple[str, int], int] = {}
        self.producer_ids = itertools.count(1000)
        self.features = FinalizedFeatures({"metadata.version": 30}, 0)

    def finalized_features(self) -> FinalizedFeatures:   # what handle_api_versions asks its broker
        return self.features

    # ------------------------------------------------------------------ answers
    def handle(self, ctx, request):
        key = ctx.api_key
        if key == 18:
            return handle_api_versions(ctx, request.body, self)
        if key == 3:
            return self.metadata(request.body)
        if key == 22:
            cls = response_class(22)
            return cls(throttle_time_ms=0, error_code=0, producer_id=next(self.producer_ids), producer_epoch=0)
        if key == 0:
            return self.produce(request.body)
        return CloseConnectionResponse()

    def metadata(self, body):
        cls = response_class(3)
        Topic = cls.MetadataResponseTopic
        topics = [Topic(error_code=0, name=t.name, topic_id=uuid.uuid5(uuid.NAMESPACE_DNS, t.name),
                        is_internal=False, partitions=[Topic.MetadataResponsePartition(
                            error_code=0, partition_index=p, leader_id=NODE_ID, leader_epoch=0,
                            replica_nodes=[NODE_ID], isr_nodes=[NODE_ID], offline_replicas=[])
                            for p in range(self.partitions)])
                  for t in body.topics or []]
        return cls(throttle_time_ms=0, brokers=[cls.MetadataResponseBroker(node_id=NODE_ID, host=self.host,
                                                                          port=self.port, rack=None)],
                   cluster_id="sink-broker-cluster-id0", controller_id=NODE_ID, topics=topics, error_code=0)

    def produce(self, body):
        cls = response_class(0)
        responses = []
        for topic in body.topic_data:
            partitions = []
            for p in topic.partition_data:
                key = (topic.name, p.index)
                base = self.next_offset.get(key, 0)
                count = _RECORDS_COUNT.unpack_from(p.records, RECORDS_COUNT_OFFSET)[0]
                self.next_offset[key] = base + count
                partitions.append(cls.TopicProduceResponse.PartitionProduceResponse(
                    index=p.index, error_code=0, base_offset=base, log_append_time_ms=-1, log_start_offset=0))
            responses.append(cls.TopicProduceResponse(name=topic.name, topic_id=topic.topic_id,
                                                      partition_responses=partitions))
        if body.acks == 0:
            return NO_RESPONSE
        return cls(responses=responses, throttle_time_ms=0, node_endpoints=[])

    # ------------------------------------------------------------------ network
    async def serve(self) -> None:
        server = await asyncio.start_server(self.connection, self.host, 0)
        self.port = server.sockets[0].getsockname()[1]
        print(f"port {self.port}", flush=True)
        async with server:
            await server.serve_forever()

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        channel = KafkaChannel(f"sink-{peer[1]}", peer[0], peer[1])
        try:
            while not channel.closed:
                data = await reader.read(1 << 16)
                if not data:
                    break
                channel.receive(data)
                while (item := channel.next_request()) is not None:
                    ctx, request = item
                    frame = channel.complete(self.handle(ctx, request))
                    if frame:
                        writer.write(frame)
                await writer.drain()
        except Exception:                       # a client going away is not the benchmark's business
            pass
        finally:
            writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(SinkBroker("127.0.0.1", args.partitions).serve())


if __name__ == "__main__":
    main()
