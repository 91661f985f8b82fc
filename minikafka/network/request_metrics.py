"""`RequestMetrics`: which requests a broker answered, by API, client and partition.

Theory of operation
-------------------
When a Kafka broker has answered a request it updates the request's
metrics, among them the meter
``kafka.network:type=RequestMetrics,name=RequestsPerSec,request=<API>,version=<v>``.
A fetch counts twice: under ``Fetch`` and under ``FetchConsumer`` or
``FetchFollower``, depending on who sent it.  With DEBUG logging of
``kafka.request.logger`` it also logs every request with its client id, the
partitions it named and, in the response, each partition's error.

The sandbox does both at the same moment, when the answer leaves the
broker (also a produce with ``acks=0``, which is never answered: its
partitions then have no error, None):

* the ``RequestsPerSec`` meters go into the node's `MetricsRegistry`;
* the *request view* (what Kafka's request log would let you count) is two
  counters: requests by ``(api, client.id)`` and, for the APIs that name
  partitions (`request_partitions`), requests by ``(api, client.id,
  topic, partition, error)``.  The facade turns them into
  `minikafka.cluster.request_counts.RequestCounts`.

Followers' fetches do not come over the Kafka protocol in the sandbox (they
are the replica fetcher's in-process messages) but are counted the same way,
as ``FetchFollower`` at the newest Fetch version a 4.3 broker would use (18),
with the client id Kafka's fetcher uses, ``broker-<id>-fetcher-0``, and
flagged so the view can leave them out.

Mirrors ``kafka.network.RequestChannel.Request.updateRequestMetrics`` and
``org.apache.kafka.network.metrics.RequestMetrics``.  Simplified: no
request/response time histograms, no ``ErrorsPerSec`` meters (the request
view carries the per-partition errors); requests controllers answer
(heartbeats, votes, the metadata log's fetches) are not counted.
"""

from __future__ import annotations

from typing import Any, Iterable

from minikafka.common.topic_partition import TopicPartition
from minikafka.metrics.meter import Meter
from minikafka.metrics.metric_name import mbean_name
from minikafka.metrics.metrics_registry import MetricsRegistry
from minikafka.network.api_keys import API_KEYS
from minikafka.network.codec import DecodedRequest
from minikafka.network.request_channel import CloseConnectionResponse, NoOpResponse
from minikafka.network.request_context import RequestContext
from minikafka.network.request_partitions import TopicNames, partition_outcomes

FETCH_KEY = 1
FOLLOWER_FETCH_VERSION = 18
"""The newest stable Fetch version of 4.3.1 (``API_KEYS[FETCH_KEY].latest_stable()``), the one a
4.3 broker's replica fetcher uses."""


def requests_per_sec_metric(request: str, version: int) -> str:
    return mbean_name("kafka.network", "RequestMetrics", "RequestsPerSec",
                      (("request", request), ("version", str(version))))


def fetcher_client_id(broker_id: int) -> str:
    """The client id of a broker's replica fetcher (``num.replica.fetchers=1``: fetcher 0)."""
    return f"broker-{broker_id}-fetcher-0"


class RequestMetrics:
    def __init__(self, registry: MetricsRegistry):
        self.registry = registry
        self._meters: dict[tuple[str, int], Meter] = {}          # (request name, version) -> meter
        # (api, client id, from a follower) -> requests answered
        self.requests: dict[tuple[str, str, bool], int] = {}
        # (api, client id, from a follower, topic, partition, error name or None) -> requests answered
        self.partitions: dict[tuple[str, str, bool, str, int, str | None], int] = {}
        self._fetcher_ids: dict[int, str] = {}                     # follower id -> its client id

    def _mark(self, name: str, version: int, now: int) -> None:
        meter = self._meters.get((name, version))
        if meter is None:
            meter = self._meters[(name, version)] = self.registry.meter(
                requests_per_sec_metric(name, version), "requests")
        meter.mark(1, now)

    def _count(self, api: str, client_id: str, follower: bool,
               outcomes: Iterable[tuple[TopicPartition, str | None]]) -> None:
        key = (api, client_id, follower)
        self.requests[key] = self.requests.get(key, 0) + 1
        partitions = self.partitions
        for tp, error in outcomes:
            row = (api, client_id, follower, tp[0], tp[1], error)
            partitions[row] = partitions.get(row, 0) + 1

    def client_request_completed(self, ctx: RequestContext, decoded: DecodedRequest, outcome: Any,
                                 topic_name: TopicNames, now: int) -> None:
        """A request from a client was answered with ``outcome`` (or deliberately not answered)."""
        api = API_KEYS[ctx.api_key].name
        if ctx.api_key == FETCH_KEY:
            self._mark("FetchConsumer", ctx.api_version, now)
        self._mark(api, ctx.api_version, now)
        response = None if isinstance(outcome, (NoOpResponse, CloseConnectionResponse)) else outcome
        outcomes = partition_outcomes(ctx.api_key, ctx.api_version, decoded.body, response, topic_name)
        self._count(api, ctx.client_id, False, outcomes)

    def follower_fetch_completed(self, replica_id: int, response: Any, now: int) -> None:
        """A follower's fetch was answered (``response``: the domain `FetchResponse`, or None)."""
        self._mark("FetchFollower", FOLLOWER_FETCH_VERSION, now)
        self._mark("Fetch", FOLLOWER_FETCH_VERSION, now)
        client_id = self._fetcher_ids.get(replica_id)
        if client_id is None:
            client_id = self._fetcher_ids[replica_id] = fetcher_client_id(replica_id)
        key = ("Fetch", client_id, True)
        self.requests[key] = self.requests.get(key, 0) + 1
        partitions = self.partitions
        for p in getattr(response, "partitions", ()):
            row = ("Fetch", client_id, True, p.topic, p.partition, p.error.name)
            partitions[row] = partitions.get(row, 0) + 1
