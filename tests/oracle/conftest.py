"""Fixtures of the differential suite: a real Kafka 4.3.1 and a sandbox of the same shape, side by side.

``single`` is one combined ``broker,controller`` node 1 on each side;
``multi`` is brokers 1-3 and controller 1001 on each side; ``failover`` is a
fresh ``multi`` for the scenarios that stop and kill brokers.  Scenarios of
one shape share its clusters (each uses its own topics and groups); the
scenarios are sorted by shape, and at most one pair runs at a time (the
next shape stops the previous pair), so the real JVMs are one combined node
or four nodes, plus the tool being run.

Without Java 17 or Kafka's jars (no Maven Central) every scenario is skipped
with one line; a real Kafka that fails to start fails its module with one
line (its log's last error), and no JVM is left behind.

At the end of a session that played scenarios, the summary line
``N scenarios: X identical, Y normalised, Z different`` is printed and the
verdicts are written to ``build/oracle/last_run.json`` (the source of
docs/fidelity.md's table: ``scripts/oracle_fidelity_table.py``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.oracle.oracle import RESULTS, Oracle, summary_line
from tests.oracle.real_kafka import RealKafkaCluster, RealKafkaStartError
from tests.oracle.sides import RealSide, SandboxSide

RESULTS_FILE = Path(__file__).resolve().parents[2] / "build" / "oracle" / "last_run.json"
# Both sides get the same settings.  A group's first join waits group.initial.rebalance.delay.ms
# (3 s) on each side; the scenarios join a dozen groups, so both clusters skip that wait.
NO_JOIN_DELAY = {"group.initial.rebalance.delay.ms": 0}
SINGLE_NODE_CONFIG = {"offsets.topic.replication.factor": 1, **NO_JOIN_DELAY}   # the sandbox sets the RF too
_session_started = time.monotonic()


@pytest.fixture(scope="session")
def real_kafka_available() -> None:
    from minikafka.jvm import JarFetchError, JavaNotFoundError, check_java, kafka_classpath

    try:
        check_java("Apache Kafka 4.3.1")
        kafka_classpath(quiet=True)
    except (JarFetchError, JavaNotFoundError) as error:
        pytest.skip(f"No real Kafka to compare the sandbox with: {error}")


SHAPES = {   # name: (brokers, controllers, settings, label)
    "single": ((1,), (1,), SINGLE_NODE_CONFIG, "single node"),
    "multi": ((1, 2, 3), (1001,), NO_JOIN_DELAY, "3 brokers + controller"),
    "failover": ((1, 2, 3), (1001,), NO_JOIN_DELAY, "3 brokers + controller"),   # fresh: its scenarios break it
}


class ClusterPool:
    """At most one pair of clusters at a time: asking for another shape stops the current pair."""

    def __init__(self, root: Path):
        self.root = root
        self.shape: str | None = None
        self.pair: tuple | None = None              # (real, sandbox, oracle)

    def get(self, shape: str) -> Oracle:
        if self.shape != shape:
            self.close()
            self.pair = _pair(self.root / shape, *SHAPES[shape])
            self.shape = shape
        return self.pair[2]

    def close(self) -> None:
        if self.pair is not None:
            real, sandbox, _ = self.pair
            self.pair, self.shape = None, None
            try:
                sandbox.stop()
            finally:
                real.stop()


def _pair(root: Path, brokers, controllers, config, label: str):
    from minikafka import Cluster
    from minikafka.common.timing import profile

    real = RealKafkaCluster(root / "kafka", brokers=brokers, controllers=controllers, config=config)
    try:
        real.start()
    except RealKafkaStartError as error:
        pytest.fail(str(error), pytrace=False)
    combined = list(brokers) == list(controllers)
    timing = profile("kafka").with_overrides({k: v for k, v in config.items() if k in NO_JOIN_DELAY})
    try:
        sandbox = Cluster(brokers=list(brokers), controllers=list(controllers), combined=combined, timing=timing,
                          data_dir=root / "sandbox",
                          broker_config={k: v for k, v in config.items() if k not in NO_JOIN_DELAY}).start()
    except BaseException:
        real.stop()
        raise
    return real, sandbox, Oracle(RealSide(real), SandboxSide(sandbox), label)


@pytest.fixture(scope="session")
def cluster_pool(real_kafka_available, tmp_path_factory):
    pool = ClusterPool(tmp_path_factory.mktemp("oracle"))
    yield pool
    pool.close()


@pytest.fixture
def single(cluster_pool) -> Oracle:
    """A real combined node 1 and the sandbox's, shared by every scenario that asks for it."""
    return cluster_pool.get("single")


@pytest.fixture
def multi(cluster_pool) -> Oracle:
    """Real brokers 1-3 with controller 1001 and the sandbox's, shared by the scenarios that ask for it."""
    return cluster_pool.get("multi")


@pytest.fixture
def failover(cluster_pool) -> Oracle:
    """Like ``multi``, fresh, for the scenarios that stop and kill brokers (they run last, in file order)."""
    return cluster_pool.get("failover")


def pytest_collection_modifyitems(session, config, items) -> None:
    """Scenarios of one shape run together (single, then multi, then failover), each file in its order,
    so each pair of clusters starts once."""
    rank = {"single": 1, "multi": 2, "failover": 3}

    def shape(item) -> int:
        names = getattr(item, "fixturenames", ())
        return max((rank[n] for n in names if n in rank), default=0)
    items.sort(key=shape)
    scenarios = [item for item in items if shape(item)]
    missing = _missing_java() if scenarios else ""
    for item in scenarios if missing else ():   # a skip mark: -ra reports one line per file, not per scenario
        item.add_marker(pytest.mark.skip(reason=missing))


def _missing_java() -> str:
    """Why no real Kafka can run here ('' when Java 17 is present; missing jars skip in `real_kafka_available`)."""
    from minikafka.jvm import JavaNotFoundError, check_java

    try:
        check_java("Apache Kafka 4.3.1")
    except JavaNotFoundError as error:
        return f"No real Kafka to compare the sandbox with: {error}"
    return ""


def pytest_sessionfinish(session, exitstatus) -> None:
    if not RESULTS:
        return
    RESULTS_FILE.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_FILE.write_text(json.dumps({"summary": summary_line(RESULTS),
                                        "seconds": round(time.monotonic() - _session_started),
                                        "scenarios": RESULTS}, indent=1) + "\n", encoding="utf-8")


def pytest_terminal_summary(terminalreporter) -> None:
    if RESULTS:
        terminalreporter.write_line(summary_line(RESULTS))
