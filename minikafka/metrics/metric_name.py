"""MBean names as Kafka builds them: ``group:type=Type,name=Name,tag=value,...``.

Kafka's ``KafkaMetricsGroup.explicitMetricName`` writes the group (a package
name such as ``kafka.server``), then ``type=`` and ``name=``, then the tags
in the order the component gave them (``topic`` before ``partition``,
``request`` before ``version``); tags with an empty value are left out.
`mbean_name` does the same, and `parse_mbean_name` takes one apart again
(for filtering by tag).

Mirrors ``org.apache.kafka.server.metrics.KafkaMetricsGroup``.
"""

from __future__ import annotations


def mbean_name(group: str, type_name: str, name: str, tags: tuple[tuple[str, str], ...] = ()) -> str:
    """``mbean_name("kafka.log", "Log", "Size", (("topic", "orders"), ("partition", "0")))``."""
    text = f"{group}:type={type_name},name={name}"
    extra = ",".join(f"{key}={value}" for key, value in tags if value != "")
    return f"{text},{extra}" if extra else text


def parse_mbean_name(mbean: str) -> tuple[str, dict[str, str]]:
    """``"kafka.log:type=Log,name=Size,topic=t,partition=0"`` -> ``("kafka.log", {"type": "Log", ...})``."""
    group, _, rest = mbean.partition(":")
    properties = dict(part.split("=", 1) for part in rest.split(",") if "=" in part)
    return group, properties


def is_node_level(mbean: str) -> bool:
    """True for an MBean with no tags besides ``type`` and ``name`` (not per topic, partition...)."""
    return mbean.count("=") == 2
