"""Micro benchmark of the wire codec: decode a Produce request, encode a Fetch response.

Both carry one 16 KB record batch, built by kafka-python's own record builder.
Prints the median time per operation in microseconds; asserts nothing.

    .venv/bin/python benchmarks/bench_codec.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from kafka.protocol.parser import KafkaProtocol
from kafka.record.memory_records import MemoryRecordsBuilder

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run from a checkout

from minikafka.network.codec import decode_request, encode_response, request_class, response_class

BATCH_BYTES = 16 * 1024


def record_batch() -> bytes:
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=BATCH_BYTES + 1024)
    for i in range(BATCH_BYTES // 512):
        builder.append(timestamp=1767225600000 + i, key=b"key-%d" % i, value=b"v" * 480, headers=[])
    builder.close()
    return bytes(builder.buffer())


def produce_frame(batch: bytes, version: int = 9) -> bytes:
    cls = request_class(0)
    partition = cls.TopicProduceData.PartitionProduceData(index=0, records=batch)
    request = cls[version](transactional_id=None, acks=-1, timeout_ms=30000,
                           topic_data=[cls.TopicProduceData(name="orders", partition_data=[partition])])
    client = KafkaProtocol(client_id="bench-producer")
    client.send_request(request)
    return bytes(client.send_bytes())[4:]


def fetch_response(batch: bytes):
    cls = response_class(1)
    partition = cls.FetchableTopicResponse.PartitionData(
        partition_index=0, error_code=0, high_watermark=32, last_stable_offset=32,
        log_start_offset=0, records=batch)
    return cls(throttle_time_ms=0, error_code=0, session_id=0,
               responses=[cls.FetchableTopicResponse(topic="orders", partitions=[partition])])


def fetch_request_decoded(version: int = 12):
    client = KafkaProtocol(client_id="bench-consumer")
    client.send_request(request_class(1)[version]())
    return decode_request(bytes(client.send_bytes())[4:])


def median_us(operation, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        operation()
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    batch = record_batch()
    frame = produce_frame(batch)
    decoded_fetch = fetch_request_decoded()
    response = fetch_response(batch)
    decode_request(frame)                         # warm up: kafka-python compiles decoders lazily
    encode_response(decoded_fetch, response)
    decode = median_us(lambda: decode_request(frame), args.rounds)
    encode = median_us(lambda: encode_response(decoded_fetch, fetch_response(batch)), args.rounds)
    print(f"record batch: {len(batch)} bytes; produce frame: {len(frame)} bytes; rounds: {args.rounds}")
    print(f"decode Produce v9 request (1 x 16 KB batch):  median {decode:8.1f} us")
    print(f"encode Fetch v12 response (1 x 16 KB batch):  median {encode:8.1f} us  (incl. building it)")


if __name__ == "__main__":
    main()
