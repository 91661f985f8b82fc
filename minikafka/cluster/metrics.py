"""The metrics verbs of `Cluster`: each node's MBeans as plain data, and the brokers' request view.

Theory of operation
-------------------
Every node keeps its metrics in its own registry (`minikafka.metrics`), as
a Kafka process keeps them in its JVM; an operator reads them over JMX.  The
facade reads them on the driver's thread, so one call sees one consistent
moment, and returns plain data keyed by Kafka's MBean names::

    cluster.broker_metrics(2)["kafka.server:type=ReplicaManager,name=LeaderCount"]
    -> {"Value": 3}
    cluster.metric("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec")
    -> {1: 120, 2: 80, 3: 100}              (Count, per broker)

A gauge has one attribute, ``Value``; a meter has ``Count``, ``MeanRate``,
``OneMinuteRate``, ``FiveMinuteRate``, ``FifteenMinuteRate`` (Kafka's) and
``TenSecondRate`` (the sandbox's: events of the last 10 s / 10).  Only
running nodes answer: a dead or paused process serves no JMX, and a
restarted one starts counting from zero.

`request_counts` is the brokers' request view (`RequestCounts`).  `MetricsView`
receives the cluster's `NodeProcesses` and nothing else.
"""

from __future__ import annotations

from typing import Any

from minikafka.cluster.processes import NodeProcesses
from minikafka.drivers.cluster_runtime import NodeState
from minikafka.cluster.request_counts import PartitionRequestCount, RequestCount, RequestCounts
from minikafka.common.topic_partition import TopicPartition

Metrics = dict[str, dict[str, Any]]


class MetricsView:
    def __init__(self, processes: NodeProcesses):
        self._processes = processes    # the driver and the nodes on it

    def _read_metrics(self, node_id: int) -> Metrics:
        return self._processes.node(node_id).metrics.read(self._processes.driver.now())

    def node_metrics(self, node_id: int) -> Metrics:
        """Every MBean of one running node (broker, controller or both), in name order."""
        self._processes.check_node(node_id)
        self._processes.require_state(node_id, (NodeState.RUNNING,), "read the metrics of")
        return self._processes.call(lambda: self._read_metrics(node_id))

    def broker_metrics(self, broker_id: int) -> Metrics:
        """Every MBean of a running broker: ``kafka.server``, ``kafka.network``, ``kafka.log``."""
        self._processes.check_node(broker_id, "broker")
        return self.node_metrics(broker_id)

    def controller_metrics(self, controller_id: int) -> Metrics:
        """Every MBean of a running controller (``kafka.controller:type=KafkaController``...)."""
        self._processes.check_node(controller_id, "controller")
        return self.node_metrics(controller_id)

    def metrics(self) -> dict[int, Metrics]:
        """``{node id: its MBeans}`` for every running node, brokers first (ids in layout order)."""
        def read() -> dict[int, Metrics]:
            return {node_id: self._read_metrics(node_id) for node_id in self._metric_nodes()}
        return self._processes.call(read)

    def metric(self, mbean: str, attribute: str | None = None) -> dict[int, Any]:
        """One MBean on every running node that has it: ``{node id: value}``.

        ``attribute`` defaults to ``Value`` for a gauge and ``Count`` for a meter;
        pass e.g. ``"TenSecondRate"`` or ``"OneMinuteRate"`` for a meter's rate.
        """
        values = {}
        for node_id, metrics in self.metrics().items():
            found = metrics.get(mbean)
            if found is None:
                continue
            name = attribute or ("Value" if "Value" in found else "Count")
            if name not in found:
                raise KeyError(f"{mbean} has no attribute {name!r}; it has {', '.join(found)}")
            values[node_id] = found[name]
        return values

    def _metric_nodes(self) -> list[int]:
        layout = self._processes.layout
        ordered = list(layout.brokers) + [c for c in layout.controllers if c not in layout.brokers]
        return [n for n in ordered if self._processes.state(n) is NodeState.RUNNING]

    # ------------------------------------------------------------------ request view
    def request_counts(self, since: RequestCounts | None = None, *,
                       followers: bool = False) -> RequestCounts:
        """Requests every running broker answered, by API, client id and partition.

        ``since``: counts taken earlier; the result is what was answered after
        them.  ``followers=True`` adds the followers' replica fetches.
        """
        counts = self._processes.call(lambda: self._collect_requests(followers))
        return counts if since is None else counts.since(since)

    def _collect_requests(self, followers: bool) -> RequestCounts:
        requests, partitions, incarnations = [], [], {}
        processes = self._processes
        for broker_id in processes.layout.brokers:
            if processes.state(broker_id) is not NodeState.RUNNING:
                continue
            view = processes.node(broker_id).request_metrics
            incarnations[broker_id] = processes.driver.handles[broker_id].incarnation
            for (api, client_id, follower), n in view.requests.items():
                if followers or not follower:
                    requests.append(RequestCount(broker_id, api, client_id, n))
            for (api, client_id, follower, topic, index, error), n in view.partitions.items():
                if followers or not follower:
                    partitions.append(PartitionRequestCount(
                        broker_id, api, client_id, TopicPartition(topic, index), error, n))
        return RequestCounts(tuple(requests), tuple(partitions), incarnations)
