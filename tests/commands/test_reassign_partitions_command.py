"""``minikafka reassign-partitions``: option rules, and generate/execute/verify/list/cancel on a live cluster."""

import json

import pytest

from minikafka import Cluster


@pytest.mark.parametrize("args, message", [
    (["--bootstrap-server", "h:1"], "Command must include exactly one action: --generate, --execute, --verify, "
                                    "--cancel, --list"),
    (["--list"], "Please specify either --bootstrap-server or --bootstrap-controller"),
    (["--list", "--bootstrap-server", "h:1", "--bootstrap-controller", "c:1"],
     "Please don't specify both --bootstrap-server and --bootstrap-controller"),
    (["--execute", "--bootstrap-server", "h:1"], 'Missing required argument "[reassignment-json-file]"'),
    (["--verify", "--bootstrap-server", "h:1", "--reassignment-json-file", "f", "--throttle", "5"],
     'Option "[throttle]" can\'t be used with action "[verify]"')])
def test_option_rules(cli, args, message):
    result = cli("reassign-partitions", *args)
    assert result.code == 1 and result.out == "" and result.err.startswith(message + "\nOption ")


def test_an_unknown_option_escapes_like_a_jvm_exception(cli):
    result = cli("reassign-partitions", "--lists")
    assert (result.code, result.err) == (1, 'Exception in thread "main" joptsimple.UnrecognizedOptionException: '
                                            'lists is not a recognized option\n')


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=14).start()
    c.create_topic("orders", 2, 2)
    yield c
    c.stop()


def write(tmp_path, name, document) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


@pytest.mark.live
def test_generate_proposes_an_assignment_over_the_given_brokers(cluster, cli, tmp_path):
    topics = write(tmp_path, "topics.json", {"topics": [{"topic": "orders"}], "version": 1})
    result = cli("reassign-partitions", "--bootstrap-server", cluster.bootstrap_servers, "--generate",
                 "--topics-to-move-json-file", topics, "--broker-list", "2,3")
    assert result.code == 0
    current_title, current, blank, proposed_title, proposed = result.out.rstrip("\n").split("\n")
    assert (current_title, blank, proposed_title) == ("Current partition replica assignment", "",
                                                      "Proposed partition reassignment configuration")
    assert json.loads(current)["partitions"][0]["replicas"] == cluster.replicas("orders", 0)
    assert json.loads(current)["partitions"][0]["log_dirs"] == [
        str(cluster.broker_data_dir(b)) for b in cluster.replicas("orders", 0)]
    assert all(p["log_dirs"] == ["any", "any"] for p in json.loads(proposed)["partitions"])
    assert all(sorted(p["replicas"]) == [2, 3] for p in json.loads(proposed)["partitions"])
    missing = cli("reassign-partitions", "--bootstrap-server", cluster.bootstrap_servers, "--generate",
                  "--topics-to-move-json-file", str(tmp_path / "none.json"), "--broker-list", "1")
    assert (missing.code, missing.out) == (1, f"Error: {tmp_path / 'none.json'}\n")


@pytest.mark.live
def test_execute_with_a_throttle_then_verify_clears_it(cluster, cli, tmp_path, eventually):
    bs = cluster.bootstrap_servers
    before = cluster.replicas("orders", 0)
    target = [b for b in (1, 2, 3) if b not in before][:1] + before[:1]
    plan = write(tmp_path, "plan.json", {"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": target}]})
    result = cli("reassign-partitions", "--bootstrap-server", bs, "--execute", "--reassignment-json-file", plan,
                 "--throttle", "10000000")
    # Kafka 4.3 names each current replica's log directory (DescribeLogDirs to its broker).
    dirs = [str(cluster.broker_data_dir(b)) for b in before]
    rollback = json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": before,
                                                         "log_dirs": dirs}]}, separators=(",", ":"))
    assert result.out == (f"Current partition replica assignment\n\n{rollback}\n\n"
                          "Save this to use as the --reassignment-json-file option during rollback\n"
                          "Warning: You must run --verify periodically, until the reassignment completes, to "
                          "ensure the throttle is removed.\n"
                          "The inter-broker throttle limit was set to 10000000 B/s\n"
                          "Successfully started partition reassignment for orders-0\n")
    configs = cli("configs", "--bootstrap-server", bs, "--entity-type", "topics", "--entity-name", "orders",
                  "--describe").out
    assert "leader.replication.throttled.replicas=0:" in configs
    eventually(lambda: cluster.replicas("orders", 0) == target, what="reassignment completed")
    verify = cli("reassign-partitions", "--bootstrap-server", bs, "--verify", "--reassignment-json-file", plan)
    assert verify.out == ("Status of partition reassignment:\nReassignment of partition orders-0 is completed.\n\n"
                          "Clearing broker-level throttles on brokers 1,2,3\n"
                          "Clearing topic-level throttles on topic orders\n")
    assert cli("configs", "--bootstrap-server", bs, "--entity-type", "topics", "--entity-name", "orders",
               "--describe").out == "Dynamic configs for topic orders are:\n"
    assert cli("reassign-partitions", "--bootstrap-server", bs, "--list").out == "No partition reassignments found.\n"


def fenced(cluster, broker_id: int) -> bool:
    return next(n for n in cluster.snapshot().brokers if n.node_id == broker_id).registration == "fenced"


@pytest.mark.live
def test_list_and_cancel_an_ongoing_reassignment(cluster, cli, tmp_path, eventually):
    before = cluster.replicas("orders", 1)
    spare = next(b for b in (1, 2, 3) if b not in before)
    # Talk only to the other brokers: the paused one would leave a client waiting.
    bs = ",".join(f"127.0.0.1:{cluster.layout.broker_ports[b]}" for b in before)
    plan = write(tmp_path, "stuck.json", {"version": 1, "partitions": [
        {"topic": "orders", "partition": 1, "replicas": [spare]}]})
    cluster.pause_broker(spare)                  # the new replica cannot catch up: the move stays ongoing
    try:
        cluster.reassign_partitions({("orders", 1): [spare]})
        eventually(lambda: fenced(cluster, spare), what="paused broker fenced")
        listed = cli("reassign-partitions", "--bootstrap-server", bs, "--list").out
        removing = ",".join(map(str, sorted(before)))          # Kafka's controller keeps them in a TreeSet
        assert listed == (f"Current partition reassignments:\norders-1: replicas: {spare},{removing}. "
                          f"adding: {spare}. removing: {removing}.\n")
        again = cli("reassign-partitions", "--bootstrap-server", bs, "--execute", "--reassignment-json-file", plan)
        assert (again.code, again.out) == (1, "Cannot execute because there is an existing partition assignment.  "
                                              "Use --additional to override this and create a new partition "
                                              "assignment in addition to the existing one. The --additional flag "
                                              "can also be used to change the throttle by resubmitting the current "
                                              "reassignment.\n")
        cancel = cli("reassign-partitions", "--bootstrap-server", bs, "--cancel", "--reassignment-json-file", plan,
                     "--preserve-throttles")
        assert (cancel.code, cancel.out) == (0, "Successfully cancelled partition reassignment for: orders-1\n"
                                                "None of the specified partition moves are active.")
        assert cli("reassign-partitions", "--bootstrap-server", bs, "--list").out == \
            "No partition reassignments found.\n"
    finally:
        cluster.resume_broker(spare)
    # Cancelling drops the adding replicas from the merged list, so the order is the TreeSet's, as in Kafka.
    assert cluster.replicas("orders", 1) == sorted(before)
