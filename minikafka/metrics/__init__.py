"""Broker and controller metrics, named and computed as Kafka's JMX MBeans are.

A Kafka process keeps its metrics in one registry (Yammer's
``KafkaYammerMetrics.defaultRegistry``); each component registers gauges
(a value read on demand) and meters (a count of events and its rates) under
an MBean name such as ``kafka.server:type=ReplicaManager,name=LeaderCount``.
The sandbox does the same per node: `MetricsRegistry` holds the node's
gauges and meters, `Meter` counts events in the node's own time (``now``),
`BrokerTopicStats` holds the byte and message meters of Kafka's
``BrokerTopicMetrics``.  Nothing here reads a clock: time arrives as ``now``
(sans-IO, like the rest of the node).

What a learner reads is plain data: ``{mbean name: {attribute: value}}``,
with JMX's attribute names (``Value`` for gauges; ``Count``,
``OneMinuteRate``... for meters).  See `meter` for the one attribute the
sandbox adds, ``TenSecondRate``.
"""
