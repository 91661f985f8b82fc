"""`BrokerTopicStats`: bytes and messages in and out of a broker, for all topics and per topic.

Theory of operation
-------------------
Kafka's ``kafka.server:type=BrokerTopicMetrics`` meters count what a broker
moves, once for all topics (no ``topic`` tag) and once per topic
(``topic=orders``).  Who marks what, as in Kafka 4.x:

* a leader appending a client's batch (``ReplicaManager.appendToLocalLog``):
  ``TotalProduceRequestsPerSec`` for every partition of a produce request
  that passed the request-level checks (also one whose append then fails),
  then, once appended, ``BytesInPerSec`` with the
  batch size and ``MessagesInPerSec`` with its record count; an unexpected
  append failure (invalid records, not "not leader" or "unknown partition")
  marks ``FailedProduceRequestsPerSec``;
* a leader answering a fetch: ``TotalFetchRequestsPerSec`` per partition
  read; the bytes of records sent go to ``BytesOutPerSec`` (consumers) or to
  ``ReplicationBytesOutPerSec`` (followers, all topics only);
* a follower appending what it fetched: ``ReplicationBytesInPerSec`` (all
  topics only).

Writes of the group coordinator to ``__consumer_offsets`` are appends too
and count as bytes and messages in, as in Kafka.  The all-topics meters exist
from the broker's start; a topic's meter appears when it is first marked.

Mirrors ``org.apache.kafka.storage.log.metrics.BrokerTopicStats`` and
``BrokerTopicMetrics``.  Simplified: no reassignment, conversion or
remote-storage meters.
"""

from __future__ import annotations

from minikafka.metrics.meter import Meter
from minikafka.metrics.metric_name import mbean_name
from minikafka.metrics.metrics_registry import MetricsRegistry

MESSAGES_IN = "MessagesInPerSec"
BYTES_IN = "BytesInPerSec"
BYTES_OUT = "BytesOutPerSec"
REPLICATION_BYTES_IN = "ReplicationBytesInPerSec"
REPLICATION_BYTES_OUT = "ReplicationBytesOutPerSec"
TOTAL_PRODUCE_REQUESTS = "TotalProduceRequestsPerSec"
FAILED_PRODUCE_REQUESTS = "FailedProduceRequestsPerSec"
TOTAL_FETCH_REQUESTS = "TotalFetchRequestsPerSec"

_EVENT_TYPES = {MESSAGES_IN: "messages", BYTES_IN: "bytes", BYTES_OUT: "bytes",
                REPLICATION_BYTES_IN: "bytes", REPLICATION_BYTES_OUT: "bytes",
                TOTAL_PRODUCE_REQUESTS: "requests", FAILED_PRODUCE_REQUESTS: "requests",
                TOTAL_FETCH_REQUESTS: "requests"}


def broker_topic_metric(name: str, topic: str | None = None) -> str:
    """``kafka.server:type=BrokerTopicMetrics,name=<name>[,topic=<topic>]``."""
    return mbean_name("kafka.server", "BrokerTopicMetrics", name, (("topic", topic),) if topic else ())


class BrokerTopicStats:
    def __init__(self, registry: MetricsRegistry):
        self.registry = registry
        # every all-topics meter exists from the start (Kafka creates them eagerly)
        self.all_topics: dict[str, Meter] = {
            name: registry.meter(broker_topic_metric(name), event_type)
            for name, event_type in _EVENT_TYPES.items()}
        self._topic_meters: dict[tuple[str, str], Meter] = {}   # (topic, name) -> meter, made at first use

    def _mark(self, name: str, topic: str, n: int, now: int) -> None:
        meter = self._topic_meters.get((topic, name))
        if meter is None:
            meter = self._topic_meters[(topic, name)] = self.registry.meter(
                broker_topic_metric(name, topic), _EVENT_TYPES[name])
        meter.mark(n, now)
        self.all_topics[name].mark(n, now)

    def produce_requested(self, topic: str, now: int) -> None:
        self._mark(TOTAL_PRODUCE_REQUESTS, topic, 1, now)

    def produce_failed(self, topic: str, now: int) -> None:
        self._mark(FAILED_PRODUCE_REQUESTS, topic, 1, now)

    def appended(self, topic: str, size_bytes: int, messages: int, now: int) -> None:
        self._mark(BYTES_IN, topic, size_bytes, now)
        self._mark(MESSAGES_IN, topic, messages, now)

    def fetch_requested(self, topic: str, now: int) -> None:
        self._mark(TOTAL_FETCH_REQUESTS, topic, 1, now)

    def bytes_out(self, topic: str, from_follower: bool, size_bytes: int, now: int) -> None:
        if from_follower:
            self.all_topics[REPLICATION_BYTES_OUT].mark(size_bytes, now)
        else:
            self._mark(BYTES_OUT, topic, size_bytes, now)

    def replication_bytes_in(self, size_bytes: int, now: int) -> None:
        self.all_topics[REPLICATION_BYTES_IN].mark(size_bytes, now)

    def remove_topic(self, topic: str) -> None:
        """A deleted topic's meters go away (Kafka's ``removeMetrics``)."""
        for key in [k for k in self._topic_meters if k[0] == topic]:
            del self._topic_meters[key]
            self.registry.meters.pop(broker_topic_metric(key[1], topic), None)
