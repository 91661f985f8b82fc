"""The import graph between minikafka's packages follows the layers of docs/architecture.md.

Theory of operation
-------------------
Every ``import`` and ``from ... import`` statement of ``minikafka/`` and
``widgets/`` is read with `ast`, wherever it stands: at the top of a module,
inside a function (a lazy import is still a dependency), under
``TYPE_CHECKING``, in an ``__init__.py`` that re-exports names.  Each
statement becomes edges between modules, which are folded into edges between
packages (``minikafka.server``, ``minikafka.common``, ``widgets``...; the
modules at the root of ``minikafka/`` -- ``__init__``, ``__main__`` and the
deprecated ``snapshot`` alias -- form the package ``minikafka``, the public
API at the top).

`LAYERS` is the one place that orders the packages, lowest first: a package
may import itself and the packages listed before it, nothing after it.  The
test fails when

* a package imports a package above it;
* packages import each other, directly or around a longer loop;
* inside one package, a module that the package's ``__init__.py`` imports
  (directly or not) imports back from that ``__init__.py``: ``from
  minikafka.metadata import json_converters`` reads the half-initialised
  ``__init__``, so a sibling is imported as ``import
  minikafka.metadata.json_converters as json_converters`` or ``from
  minikafka.metadata.json_converters import name``;
* docs/architecture.md's "What each layer may import" names the layers in
  another order than `LAYERS`;
* a package exists that `LAYERS` does not place.

`TEMPORARY_ALLOWED` lists known violations, each saying why and what removes
it; it is empty today.

Imports spelled as strings (``importlib.import_module``) are not seen; the
project uses them only where a table of plug-in modules is loaded by name
(``minikafka.commands.tool_commands``), inside one package.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_ROOTS = ("minikafka", "widgets")
TOP = "minikafka"  # the package of minikafka/__init__.py, __main__.py and snapshot.py

# The layers, lowest first.  A package may import the packages before it in this tuple
# (and itself), never one after it.  docs/architecture.md, "What each layer may import",
# describes each one in the same order.
LAYERS: tuple[str, ...] = (
    "minikafka.common",       # Kafka's vocabulary: errors, Uuid, TopicPartition, configs, timing profiles
    "minikafka.record",       # record batches: the bytes of a log
    "minikafka.metrics",      # Yammer-style meters and the per-node registry
    "minikafka.runtime",      # Node: outbox, timers, request bookkeeping, events
    "minikafka.storage",      # the log on disk: segments, indexes, checkpoints
    "minikafka.metadata",     # metadata records, MetadataDelta -> MetadataImage
    "minikafka.raft",         # KRaft's replicated log of __cluster_metadata
    "minikafka.controller",   # QuorumController: decides by writing records
    "minikafka.coordinator",  # GroupCoordinator over __consumer_offsets
    "minikafka.transaction_coordinator",  # TransactionCoordinator over __transaction_state (sans-IO core)
    "minikafka.network",      # wire protocol: frames, codec, channels, request metadata
    "minikafka.server",       # KafkaNode, BrokerServer, ReplicaManager: the process that hosts it all
    "minikafka.tools",        # text outputs of Kafka's shell tools
    "minikafka.commands",     # the tool look-alikes over the wire (Kafka's tools module: TopicCommand & co.)
    "minikafka.drivers",      # the only code with clocks, threads, sockets: live and simulated
    "minikafka.jvm",          # Java beside the sandbox: jars and Java processes
    "minikafka.cluster",      # the facade `Cluster`
    "minikafka.cli",          # the command line: `minikafka up`, `minikafka <tool>`, `minikafka kafka-tool`
    "minikafka.testing",      # simulation tools for tests and learners: the quorum stepper, Raft's invariants
    TOP,                      # the public API: `import minikafka`
    "minikafka.spark",        # a Spark session over the sandbox
    "minikafka.classroom",    # the class's score service on a JupyterHub (teaching layer; imports no other layer)
    "minikafka.drills",       # classroom drills
    "minikafka.course",       # what makes the learner act in a lesson
    "widgets",                # the views
)

# Known violations, each with what removes it.  Keys are
# (importing package, imported package).  An entry that no longer matches any import
# fails the test, so it is deleted as soon as its reason is gone.
TEMPORARY_ALLOWED: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def all_modules() -> dict[str, Path]:
    return {module_name(p): p for root in PACKAGE_ROOTS for p in sorted((ROOT / root).rglob("*.py"))}


def package_of(module: str, modules: dict[str, Path]) -> str:
    parts = module.split(".")
    if parts[0] != "minikafka":
        return parts[0]
    if len(parts) == 1 or (len(parts) == 2 and modules[module].name != "__init__.py"):
        return TOP
    return ".".join(parts[:2])


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of `name` that is one of our modules, or None (a third-party import)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imported_modules(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Our modules that `module` imports.  ``from P import x`` imports P itself (it reads P's
    namespace, i.e. P's __init__) and P.x when x is a submodule; ``import P.Q`` imports P.Q."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names
                                if f"{base}.{alias.name}" in modules]
        else:
            continue
        found.update(t for t in (_known(name, modules) for name in targets) if t and t != module)
    return found


@functools.cache  # read once per test session; the tests only read it
def module_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {m: imported_modules(m, p, modules) for m, p in modules.items()}


def package_edges(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    """(importer package, imported package) -> the module imports behind it."""
    modules = all_modules()
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for importer, targets in graph.items():
        for target in targets:
            a, b = package_of(importer, modules), package_of(target, modules)
            if a != b:
                edges[a, b].append(f"{importer} imports {target}")
    return edges


def strongly_connected(nodes: set[str], succ: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components with more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(succ.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        result.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(succ.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return result


def test_every_package_has_a_layer():
    modules = all_modules()
    packages = {package_of(m, modules) for m in modules}
    assert sorted(packages - set(LAYERS)) == [], "add the new package to LAYERS and to docs/architecture.md"
    assert sorted(set(LAYERS) - packages) == [], "a package in LAYERS no longer exists"
    assert len(set(LAYERS)) == len(LAYERS)


def test_no_package_imports_a_package_above_it():
    rank = {package: i for i, package in enumerate(LAYERS)}
    upward = [f"{a} (layer {rank[a]}) imports {b} (layer {rank[b]}): {uses[0]}"
              + (f" and {len(uses) - 1} more" if len(uses) > 1 else "")
              for (a, b), uses in sorted(package_edges(module_graph()).items())
              if rank[b] > rank[a] and (a, b) not in TEMPORARY_ALLOWED]
    assert upward == []


def test_no_cycle_between_packages():
    edges = package_edges(module_graph())
    succ: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        if (a, b) not in TEMPORARY_ALLOWED:
            succ[a].add(b)
    cycles = strongly_connected(set(LAYERS), succ)
    details = [f"{component}: " + "; ".join(edges[a, b][0] for a in component for b in component
                                            if b in succ[a])
               for component in cycles]
    assert details == []


def test_no_cycle_through_an_init_inside_a_package():
    graph = module_graph()
    modules = all_modules()
    bad = []
    for package in sorted({package_of(m, modules) for m in modules}):
        inside = {m for m in graph if package_of(m, modules) == package}
        succ = {m: graph[m] & inside for m in inside}
        for component in strongly_connected(inside, succ):
            inits = [m for m in component if modules[m].name == "__init__.py"]
            if inits:
                bad.append(f"{package}: {component} (through {inits})")
    assert bad == []


def test_temporary_allowances_are_still_needed():
    edges = package_edges(module_graph())
    assert [pair for pair in TEMPORARY_ALLOWED if pair not in edges] == [], \
        "the violation is gone: delete its TEMPORARY_ALLOWED entry"


def test_architecture_doc_lists_the_layers_in_this_order():
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## What each layer may import", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^### \d+\. `([^`]+)`", section, flags=re.MULTILINE)
    assert documented == [p if p == TOP else p.removeprefix("minikafka.") for p in LAYERS]


def test_the_graph_sees_lazy_imports_and_reexports():
    """A test that can fail: the walker finds an import inside a function and a
    re-export in an __init__.py (both exist in the code base today)."""
    graph = module_graph()
    assert "minikafka.cluster" in graph["minikafka.cli.up"]  # inside run()
    assert "minikafka.metadata.delta" in graph["minikafka.metadata"]  # __init__ re-export
    rank = {package: i for i, package in enumerate(LAYERS)}
    assert rank["minikafka.common"] < rank["minikafka.record"] < rank["minikafka.server"]
