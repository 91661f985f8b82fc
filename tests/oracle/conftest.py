"""Fixtures of the differential suite: a real Kafka 4.3.1 and a sandbox of the same shape, side by side.

``single`` is one combined ``broker,controller`` node 1 on each side;
``multi`` is brokers 1-3 and controller 1001 on each side.  Both are module
scoped: a test module's scenarios share its clusters (each scenario uses its
own topics and groups), and the real JVMs stop when the module ends.

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
SINGLE_NODE_CONFIG = {"offsets.topic.replication.factor": 1}   # what the sandbox sets for one broker too
_session_started = time.monotonic()


@pytest.fixture(scope="session")
def real_kafka_available() -> None:
    from minikafka.jvm import JarFetchError, JavaNotFoundError, check_java, kafka_classpath

    try:
        check_java("Apache Kafka 4.3.1")
        kafka_classpath(quiet=True)
    except (JarFetchError, JavaNotFoundError) as error:
        pytest.skip(f"No real Kafka to compare the sandbox with: {error}")


def _pair(tmp_path: Path, brokers, controllers, config, shape: str):
    from minikafka import Cluster

    real = RealKafkaCluster(tmp_path / "kafka", brokers=brokers, controllers=controllers, config=config)
    try:
        real.start()
    except RealKafkaStartError as error:
        pytest.fail(str(error), pytrace=False)
    combined = list(brokers) == list(controllers)
    sandbox = Cluster(brokers=list(brokers), controllers=list(controllers), combined=combined, timing="kafka",
                      data_dir=tmp_path / "sandbox", broker_config=config)
    try:
        sandbox.start()
    except BaseException:
        real.stop()
        raise
    return real, sandbox, Oracle(RealSide(real), SandboxSide(sandbox), shape)


@pytest.fixture(scope="module")
def single(real_kafka_available, tmp_path_factory):
    real, sandbox, oracle = _pair(tmp_path_factory.mktemp("single"), (1,), (1,), SINGLE_NODE_CONFIG,
                                  "single node")
    yield oracle
    sandbox.stop()
    real.stop()


@pytest.fixture(scope="module")
def multi(real_kafka_available, tmp_path_factory):
    real, sandbox, oracle = _pair(tmp_path_factory.mktemp("multi"), (1, 2, 3), (1001,), {},
                                  "3 brokers + controller")
    yield oracle
    sandbox.stop()
    real.stop()


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
