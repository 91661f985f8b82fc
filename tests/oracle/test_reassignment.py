"""Differential scenarios on three brokers: replica placement given explicitly, then
``kafka-reassign-partitions`` generate, execute, verify, list and cancel, and a preferred leader election."""

from __future__ import annotations

import json
import time

import pytest

from tests.client_batches import client_batch
from tests.oracle.test_protocol import T0, produce_written

pytestmark = pytest.mark.slow


def create(side, topic: str, assignment: str, *configs: str) -> None:
    args = [arg for config in configs for arg in ("--config", config)]
    result = side.tool("kafka-topics", "--create", "--topic", topic, "--replica-assignment", assignment, *args)
    assert result.returncode == 0, result.text()


def plan_file(side, name: str, partitions: list[tuple[str, int, list[int]]]) -> str:
    path = side.data_root / name
    path.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": r, "log_dirs": ["any"] * len(r)} for t, p, r in partitions]}))
    return str(path)


def reassign(side, *args: str):
    return side.tool("kafka-reassign-partitions", *args)


def described(side, topic: str, partitions: int):
    """``kafka-topics --describe`` of a topic just created, once it shows every partition: the create
    tool returns when the controller has the topic, and the broker the describe asks may not yet."""
    def attempt():
        result = side.tool("kafka-topics", "--describe", "--topic", topic)
        return result if result.stdout.count("\tPartition: ") == partitions else None
    return side.wait_until(attempt, what=f"{topic} described with {partitions} partitions")


def test_explicit_assignment_and_describe(multi):
    def scenario(side):
        create(side, "placed", "1:2:3,2:3:1,3:1:2")
        create(side, "placed-rf2", "1:2,3:1")
        return {"placed": described(side, "placed", 3), "rf2": described(side, "placed-rf2", 2),
                "bad assignment": side.tool("kafka-topics", "--create", "--topic", "bad-placed",
                                            "--replica-assignment", "1:7"),
                "uneven assignment": side.tool("kafka-topics", "--create", "--topic", "uneven",
                                               "--replica-assignment", "1:2,3")}
    multi.play("reassignment: explicit replica assignments and describe", scenario, area="reassignment")


def test_generate(multi):
    def scenario(side):
        create(side, "gen", "1,2")
        topics = side.data_root / "move.json"
        topics.write_text('{"topics":[{"topic":"gen"}],"version":1}')
        return {"one broker": reassign(side, "--generate", "--topics-to-move-json-file", str(topics),
                                       "--broker-list", "3"),
                "unknown topic": reassign(side, "--generate", "--topics-to-move-json-file",
                                          str(_write(side, "nope.json", '{"topics":[{"topic":"nope"}],"version":1}')),
                                          "--broker-list", "1,2"),
                "unknown broker": reassign(side, "--generate", "--topics-to-move-json-file", str(topics),
                                           "--broker-list", "1,9")}
    multi.play("reassignment: --generate (one target broker, so Kafka's random start does not matter)",
               scenario, area="reassignment")


def _write(side, name: str, text: str):
    path = side.data_root / name
    path.write_text(text)
    return path


def test_execute_verify_list(multi):
    def scenario(side):
        create(side, "moving", "1:2,2:3")
        produce_written(side, "moving", 0, client_batch(5, timestamp=T0))
        plan = plan_file(side, "plan.json", [("moving", 0, [2, 3]), ("moving", 1, [3, 1])])
        executed = reassign(side, "--execute", "--reassignment-json-file", plan)
        side.wait_until(lambda: "No partition reassignments found." in reassign(side, "--list").stdout,
                        what="reassignment done")
        return {"execute": executed, "verify": reassign(side, "--verify", "--reassignment-json-file", plan),
                "list": reassign(side, "--list"),
                "describe": side.tool("kafka-topics", "--describe", "--topic", "moving")}
    multi.play("reassignment: --execute, --verify and --list", scenario, area="reassignment")


MOVED_MB = 4      # the throttled partition's size: four 1 MiB fetches, so the move lasts over 33 s


def start_throttled_move(side, topic: str):
    """``topic`` (4 MB on broker 1) starts moving to broker 2 with a 1 B/s throttle: the plan's path and
    what ``--execute`` printed.  Each fetch takes replica.fetch.max.bytes (1 MiB); the quota then holds
    the partition back for its 11 s window, so the move lasts over 33 s on both sides, far longer than
    the tools the scenario runs meanwhile, even on a busy machine.

    Three things once let a move finish early.  Records stamped with a fixed date older than
    log.retention.ms (7 days) were deleted by whichever retention check (every 5 minutes) fell during the
    scenario, so broker 2 caught up with an empty log at once: records are stamped today (``T0``).  Produces that met the moment a new leader had not yet
    heard of its topic were ignored, so the partition held less: every produce must be written now.
    And a broker applies a metadata batch's partition changes before its config changes (Kafka's
    ``BrokerMetadataPublisher``), so when ``--execute``'s throttles and its move reached broker 2
    together, its first fetches ran unthrottled.  So the same throttles are set first, and the move
    starts only once broker 2 reports its rate (it reads its own configs, written after the topic's)."""
    create(side, topic, "1")
    for _ in range(10 * MOVED_MB):
        produce_written(side, topic, 0, client_batch(100, value_size=1000, timestamp=T0))
    throttle_first(side, topic)
    plan = plan_file(side, f"{topic}.json", [(topic, 0, [2])])
    executed = reassign(side, "--execute", "--reassignment-json-file", plan, "--throttle", "1")
    return plan, executed


def throttle_first(side, topic: str) -> None:
    """The throttles ``--execute --throttle 1`` will set for moving partition 0 from broker 1 to 2."""
    def alter(entity_type: str, name: str, configs: str) -> None:
        result = side.tool("kafka-configs", "--alter", "--entity-type", entity_type, "--entity-name", name,
                           "--add-config", configs)
        assert result.returncode == 0, result.text()
    alter("topics", topic, "leader.replication.throttled.replicas=[0:1],"
                           "follower.replication.throttled.replicas=[0:2]")
    for broker in (1, 2):
        alter("brokers", str(broker), "leader.replication.throttled.rate=1,follower.replication.throttled.rate=1")
    side.wait_until(lambda: "follower.replication.throttled.rate=" in side.tool(   # shown as sensitive: null
        "kafka-configs", "--describe", "--entity-type", "brokers", "--entity-name", "2").stdout,
        what="broker 2 throttled")


def moved_bytes(side, topic: str) -> int:
    """Bytes of ``topic``-0 in broker 2's log files (printed along the scenario: a failure shows them)."""
    directory = side.node_dir(2) / f"{topic}-0"
    return sum(path.stat().st_size for path in directory.glob("*.log")) if directory.exists() else 0


def throttles(side, topic: str, brokers=(1, 2)) -> dict:
    """The throttle configs the tool set: on the topic and on ``brokers``."""
    return {"topic": side.tool("kafka-configs", "--describe", "--entity-type", "topics", "--entity-name", topic),
            **{f"broker {b}": side.tool("kafka-configs", "--describe", "--entity-type", "brokers",
                                        "--entity-name", str(b)) for b in brokers}}


def test_cancel(multi):
    def scenario(side):
        plan, executed = start_throttled_move(side, "stuck")
        started = time.monotonic()

        def step(name: str, result):
            print(f"{side.name}: {name} after {time.monotonic() - started:.1f} s; broker 2 holds "
                  f"{moved_bytes(side, 'stuck')} bytes of stuck-0")
            return result
        listed = step("--list", reassign(side, "--list"))
        verify = step("--verify", reassign(side, "--verify", "--reassignment-json-file", plan))
        set_throttles = throttles(side, "stuck", brokers=())
        cancelled = step("--cancel", reassign(side, "--cancel", "--reassignment-json-file", plan))
        side.wait_until(lambda: "No partition reassignments found." in reassign(side, "--list").stdout,
                        what="no reassignment")
        return {"execute": executed, "list": listed, "verify while moving": verify,
                "throttles while moving": set_throttles,
                "cancel": cancelled, "throttles after cancel": throttles(side, "stuck"),
                "cancel again": reassign(side, "--cancel", "--reassignment-json-file", plan),
                "describe": side.tool("kafka-topics", "--describe", "--topic", "stuck")}
    multi.play("reassignment: a throttled move listed, verified and cancelled", scenario, area="reassignment")


def test_bad_plans(multi):
    def scenario(side):
        create(side, "plans", "1:2")
        cases = {"unknown broker": [("plans", 0, [1, 9])], "broker twice": [("plans", 0, [1, 1])],
                 "no replicas": [("plans", 0, [])], "unknown partition": [("plans", 5, [1, 2])],
                 "unknown topic": [("nowhere", 0, [1])]}
        return {name: reassign(side, "--execute", "--reassignment-json-file", plan_file(side, "bad.json", parts))
                for name, parts in cases.items()}
    multi.play("reassignment: bad plans", scenario, area="reassignment")


def test_preferred_leader_election(multi):
    def scenario(side):
        create(side, "elect", "2:3")
        plan = plan_file(side, "elect.json", [("elect", 0, [3, 2])])
        reassign(side, "--execute", "--reassignment-json-file", plan)
        side.wait_until(lambda: "No partition reassignments found." in reassign(side, "--list").stdout,
                        what="reordered")
        before = side.tool("kafka-topics", "--describe", "--topic", "elect")
        elected = side.tool("kafka-leader-election", "--election-type", "PREFERRED", "--topic", "elect",
                            "--partition", "0")
        again = side.tool("kafka-leader-election", "--election-type", "PREFERRED", "--topic", "elect",
                          "--partition", "0")
        return {"before": before, "elect": elected, "again": again,
                "after": side.tool("kafka-topics", "--describe", "--topic", "elect")}
    multi.play("reassignment: replicas reordered, then a preferred leader election", scenario,
               area="reassignment")


def test_execute_to_a_stopped_broker(multi):
    def scenario(side):
        create(side, "not-there", "1")
        side.stop_broker(3)
        try:
            return reassign(side, "--execute", "--reassignment-json-file",
                            plan_file(side, "not-there.json", [("not-there", 0, [3])]))
        finally:
            side.start_broker(3)
    multi.play("reassignment: --execute to a stopped broker", scenario, area="reassignment")
