"""The `Cluster` facade: a whole Kafka cluster in this process, as lessons and widgets use it.

One class, `Cluster` (``from minikafka import Cluster``), with collaborators
in this package, each owning one part of the facade:

* `facade` -- `Cluster` itself: checks the options, lays the cluster out and
  names every public verb, each handed to the collaborator that does it;
* `layout` -- `ClusterLayout`: node ids, roles, ports, data directories,
  ``server.properties`` and ``kafka-storage.sh format``;
* `processes` -- `NodeProcesses`: the driver and the node processes on it
  (start, stop, crash, reach a node where it lives), and the argument checks
  every verb shares;
* `faults` -- `FaultVerbs`: kill, shut down, restart, pause, isolate, heal, wipe;
* `admin` -- `AdminVerbs`: requests to the active controller, as Kafka's
  ``Admin`` client sends them (`reassignment` checks a plan up front);
* the views, which only read: `snapshot` (the data types) and
  `snapshot_builder`, `metadata_log` (the committed metadata records),
  `metrics` (MBeans, and the request view of `request_counts`) and
  `tool_texts` (what Kafka's tools print).

Nothing here reads a clock or opens a socket: the driver (``minikafka.drivers``)
does, and hands out time, ports and listeners.

`Cluster` is imported on first use: it pulls in the whole broker stack, and the
data types of this package (snapshots, metadata entries, request counts) are
needed without it.
"""


def __getattr__(name: str):
    if name == "Cluster":
        from minikafka.cluster.facade import Cluster
        return Cluster
    raise AttributeError(f"module 'minikafka.cluster' has no attribute {name!r}")
