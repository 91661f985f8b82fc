"""Differential scenarios: what a partition leaves on disk, read by Kafka's own ``kafka-dump-log``.

The same batches (built once by kafka-python, fixed timestamps) are produced
to a real combined node and to the sandbox's; then the partition directory
is listed and its segment, offset index and time index are dumped with the
4.3.1 tool, which reads the sandbox's files exactly as it reads Kafka's.
"""

from __future__ import annotations

import pytest

from tests.client_batches import client_batch
from tests.oracle.test_protocol import T0, create, produce_written

pytestmark = pytest.mark.slow


def listing(side, topic: str) -> list[str]:
    """The partition directory: each file's name and size."""
    directory = side.node_dir(side.broker_ids[0]) / f"{topic}-0"
    return [f"{path.name} {path.stat().st_size}" for path in sorted(directory.iterdir())]


def dump(side, topic: str, *names: str):
    directory = side.node_dir(side.broker_ids[0]) / f"{topic}-0"
    return side.tool("kafka-dump-log", "--print-data-log", "--files",
                     ",".join(str(directory / name) for name in names), bootstrap=False)


def test_a_segment_and_its_indexes(single):
    def scenario(side):
        create(side, "stored", 1)
        for i in range(10):                  # ~2.7 kB a batch: an index entry every 4096 bytes (index.interval.bytes)
            produce_written(side, "stored", 0, client_batch(5, value_size=500, timestamp=T0 + 1000 * i))
        first = "00000000000000000000"
        return {"files": listing(side, "stored"),
                "dump": dump(side, "stored", f"{first}.log", f"{first}.index", f"{first}.timeindex")}
    single.play("storage: kafka-dump-log of a segment, its offset index and time index", scenario, area="storage")


def test_rolled_segments(single):
    def scenario(side):
        create(side, "rolled", 1, "segment.bytes=1048576")
        for i in range(3):                   # ~0.9 MB a batch: each one starts a new segment
            produce_written(side, "rolled", 0, client_batch(900, value_size=1000, timestamp=T0 + 1000 * i))
        names = sorted(path.name for path in (side.node_dir(side.broker_ids[0]) / "rolled-0").iterdir())
        closed = [name for name in names if name.endswith((".index", ".timeindex"))][:2]
        return {"files": listing(side, "rolled"), "closed indexes": dump(side, "rolled", *closed)}
    single.play("storage: segments rolled by segment.bytes, and a closed segment's indexes", scenario,
                area="storage")
