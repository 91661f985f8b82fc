"""``kafka-broker-api-versions.sh``: every broker's ApiVersions table, judged by the 4.3 Java client.

Theory of operation
-------------------
The tool asks the cluster for its brokers (a Metadata request), sends each
one ApiVersions, and prints one block per broker::

    localhost:9092 (id: 1 rack: null isFenced: false) -> (
    	Produce(0): 0 to 13 [usable: 13],
    	...
    	DescribeShareGroupOffsets(90): 0 [usable: 0]
    )

Each line names an API the broker advertised, or one the *client* knows for
the broker listener but the broker did not advertise (``UNSUPPORTED``), in
api key order.  A single version prints once (``0``), a range as ``0 to 13``.
The bracket compares the broker's range with the range the Java client of
4.3 itself implements (including a newest version still marked unstable):
``usable: <the lower of both maxima>``, or ``unusable: node too new`` /
``node too old`` when the ranges do not meet.  Keys the client has never
heard of print as ``UNKNOWN(<key>)`` without a bracket.  A broker whose
ApiVersions failed prints ``-> ERROR: <message>`` instead of the block.

Blocks come out in the iteration order of a ``HashMap`` keyed by the
broker ``Node`` (host, id, port, rack, fenced flag), which is why a real
cluster may list brokers 13, 11, 14.

Mirrors ``org.apache.kafka.tools.BrokerApiVersionsCommand``,
``org.apache.kafka.clients.NodeApiVersions.toString(true)`` and
``org.apache.kafka.common.Node.toString`` (4.3.1); the client's table is
`minikafka.network.api_keys` (Kafka 4.3.1).  Simplified: the brokers are
given, not discovered (the tool keeps retrying until the cluster has one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from minikafka.network.api_keys import API_KEYS, ApiKey
from minikafka.tools.java_hash_codes import keyed_order, node_hash
from minikafka.tools.tool_output import Console, ToolOutput


@dataclass(frozen=True, slots=True)
class BrokerNode:
    """``org.apache.kafka.common.Node`` as the Metadata response gives it."""

    id: int
    host: str
    port: int
    rack: str | None = None
    is_fenced: bool = False

    def __str__(self) -> str:
        rack = "null" if self.rack is None else self.rack
        return f"{self.host}:{self.port} (id: {self.id} rack: {rack} isFenced: {str(self.is_fenced).lower()})"


@dataclass(frozen=True, slots=True)
class BrokerApiVersions:
    """One broker and its ApiVersions answer (``{api key: (min, max)}``), or the error message instead."""

    node: BrokerNode
    api_versions: Mapping[int, tuple[int, int]] | None = None
    error: str | None = None


def _client_range(api: ApiKey) -> tuple[int, int]:
    """``ApiKeys.oldestVersion()`` / ``latestVersion()`` (unstable versions included); no versions: (0, -1)."""
    if api.oldest is None or api.latest is None:
        return 0, -1
    return api.oldest, api.latest


def _versions_text(low: int, high: int) -> str:
    return str(low) if low == high else f"{low} to {high}"


def api_version_line(api_key: int, low: int, high: int) -> str:
    """One entry of ``NodeApiVersions.toString``, e.g. ``Fetch(1): 4 to 18 [usable: 18]``."""
    api = API_KEYS.get(api_key)
    if api is None:
        return f"UNKNOWN({api_key}): {_versions_text(low, high)}"
    oldest, latest = _client_range(api)
    text = f"{api.name}({api.id}): {_versions_text(low, high)}"
    if latest < low:
        return text + " [unusable: node too new]"
    if high < oldest:
        return text + " [unusable: node too old]"
    return text + f" [usable: {min(latest, high)}]"


def client_api_keys() -> list[int]:
    """``ApiKeys.clientApis()``: every API of the broker listener."""
    return sorted(k for k, api in API_KEYS.items() if "broker" in api.listeners)


def format_api_versions(api_versions: Mapping[int, tuple[int, int]]) -> str:
    """``NodeApiVersions.toString(true)``: ``(``, one tab-indented line per API, ``)``."""
    lines = {key: api_version_line(key, low, high) for key, (low, high) in api_versions.items()}
    for key in client_api_keys():
        if key not in lines:
            lines[key] = f"{API_KEYS[key].name}({key}): UNSUPPORTED"
    return "(\n\t" + ",\n\t".join(lines[key] for key in sorted(lines)) + "\n)"


def broker_order(brokers: Iterable[BrokerApiVersions]) -> list[BrokerApiVersions]:
    """The tool's ``HashMap<Node, ...>`` order, brokers sharing a bucket by id.

    The tool fills its map from ``Cluster.nodes()``, which Kafka's ``Cluster`` shuffles, so on a
    real cluster brokers whose nodes fall into the same bucket come out in either order from one
    run to the next; the look-alike puts them in id order.  Brokers in different buckets always
    come out in bucket order, on both.
    """
    by_node = {b.node: b for b in sorted(brokers, key=lambda b: b.node.id)}
    ordered = keyed_order(by_node, lambda n: node_hash(n.host, n.id, n.port, n.rack, n.is_fenced))
    return [by_node[n] for n in ordered]


def format_brokers(brokers: Iterable[BrokerApiVersions]) -> ToolOutput:
    """What ``kafka-broker-api-versions.sh --bootstrap-server ...`` prints."""
    console = Console()
    for broker in broker_order(brokers):
        if broker.error is not None:
            console.print(f"{broker.node} -> ERROR: {broker.error}\n")
        else:
            console.print(f"{broker.node} -> {format_api_versions(broker.api_versions or {})}\n")
    return console.result()


def from_snapshot(snapshot, api_versions: Mapping[int, tuple[int, int]] | None = None) -> list[BrokerApiVersions]:
    """The alive brokers of a ``ClusterSnapshot`` with the table a sandbox broker advertises.

    A broker that is registered and unfenced but whose process is down answers
    nothing: the tool prints Kafka's ``DisconnectException`` line for it.
    """
    if api_versions is None:
        from minikafka.network.api_versions import ADVERTISED_API_VERSIONS
        api_versions = ADVERTISED_API_VERSIONS
    result = []
    for node in snapshot.brokers:
        if node.registration not in ("unfenced", "controlled_shutdown") or node.port is None:
            continue
        broker = BrokerNode(node.node_id, node.host, node.port)
        if node.process == "running" and not node.isolated:
            result.append(BrokerApiVersions(broker, dict(api_versions)))
        else:
            result.append(BrokerApiVersions(broker, error="org.apache.kafka.common.errors.DisconnectException"))
    return result


__all__ = ["BrokerNode", "BrokerApiVersions", "api_version_line", "client_api_keys", "format_api_versions",
           "broker_order", "format_brokers", "from_snapshot"]
