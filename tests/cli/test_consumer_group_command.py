"""``minikafka consumer-groups``: option rules, and list/describe/delete against live groups."""

import re

import pytest
from kafka import KafkaConsumer, KafkaProducer

from minikafka import Cluster


@pytest.mark.parametrize("args, message", [
    (["--list"], 'Missing required argument "[bootstrap-server]"'),
    (["--bootstrap-server", "h:1", "--describe"], "Option [describe] takes one of these options: [group], "
                                                  "[all-groups]"),
    (["--bootstrap-server", "h:1", "--describe", "--group", "g", "--members", "--state"],
     "Option [describe] takes at most one of these options: [members], [offsets], [state]"),
    (["--bootstrap-server", "h:1", "--describe", "--group", "g", "--state", "Stable"],
     "Option [describe] does not take a value for [state]"),
    (["--bootstrap-server", "h:1", "--delete", "--group", "g", "--topic", "t"],
     "The consumer does not support topic-specific offset deletion from a consumer group."),
    (["--bootstrap-server", "h:1", "--list", "--group", "g"], 'Option "[group]" can\'t be used with option "[list]"'),
    (["--bootstrap-server", "h:1"], "Command must include exactly one action: --list, --describe, --delete, "
                                    "--reset-offsets, --delete-offsets, --validate-regex")])
def test_option_rules(cli, args, message):
    result = cli("consumer-groups", *args)
    assert result.code == 1 and result.out == "" and result.err.startswith(message + "\nOption ")


def test_options_unavailable_without_their_action_escape_main(cli):
    result = cli("consumer-groups", "--bootstrap-server", "h:1", "--list", "--members")
    assert (result.code, result.err) == (1, 'Exception in thread "main" joptsimple.UnavailableOptionException: '
                                            'Option(s) [members] are unavailable given other options on the command '
                                            'line\n')


def test_validate_regex_needs_no_cluster(cli):
    assert cli("consumer-groups", "--validate-regex", "orders.*").out == \
        "The regular expression `orders.*` is valid.\n"
    assert cli("consumer-groups", "--validate-regex", "(").out.startswith("The regular expression `(` is invalid: ")


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=2, controllers=1, seed=18).start()
    c.create_topic("clicks", 2, 2)
    producer = KafkaProducer(bootstrap_servers=c.bootstrap_servers, acks="all")
    for i in range(10):
        producer.send("clicks", value=f"c{i}".encode(), partition=i % 2)
    producer.flush()
    producer.close()
    yield c
    c.stop()


@pytest.fixture(scope="module")
def member(cluster):
    """A live group member that read everything and committed, then one more record each partition arrives."""
    consumer = KafkaConsumer("clicks", bootstrap_servers=cluster.bootstrap_servers, group_id="dashboard",
                             auto_offset_reset="earliest", enable_auto_commit=False, heartbeat_interval_ms=200,
                             client_id="dash-1")
    seen = 0
    while seen < 10:
        seen += sum(len(b) for b in consumer.poll(timeout_ms=200).values())
    consumer.commit()
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all")
    producer.send("clicks", value=b"late", partition=1)
    producer.flush()
    producer.close()
    yield consumer
    consumer.close()


@pytest.mark.live
def test_describe_shows_offsets_and_lag_per_partition(cluster, cli, member):
    result = cli("consumer-groups", "--bootstrap-server", cluster.bootstrap_servers, "--describe", "--group",
                 "dashboard")
    assert result.code == 0 and result.err == ""
    lines = result.out.split("\n")
    assert lines[0] == ""
    assert lines[1].split() == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
                                "CONSUMER-ID", "HOST", "CLIENT-ID"]
    rows = sorted(line.split() for line in lines[2:] if line)
    assert [row[:6] for row in rows] == [["dashboard", "clicks", "0", "5", "5", "0"],
                                         ["dashboard", "clicks", "1", "5", "6", "1"]]
    assert all(row[6].startswith("dash-1-") and row[7] == "/127.0.0.1" and row[8] == "dash-1" for row in rows)


@pytest.mark.live
def test_members_and_state_views(cluster, cli, member):
    bs = cluster.bootstrap_servers
    members = cli("consumer-groups", "--bootstrap-server", bs, "--describe", "--group", "dashboard", "--members",
                  "--verbose").out
    assert re.search(r"\ndashboard +dash-1-\S+ +/127\.0\.0\.1 +dash-1 +2 +- +clicks:0,1 ", members)
    state = cli("consumer-groups", "--bootstrap-server", bs, "--describe", "--group", "dashboard", "--state").out
    coordinator = re.search(r"127\.0\.0\.1:(\d+)  \((\d)\)", state)
    assert coordinator and int(coordinator.group(1)) == cluster.layout.broker_ports[int(coordinator.group(2))]
    assert re.search(r"\ndashboard +127\.0\.0\.1:\d+  \(\d\) +range +Stable +1\n$", state)
    assert cli("consumer-groups", "--bootstrap-server", bs, "--list").out.split() == ["dashboard"]
    listed = cli("consumer-groups", "--bootstrap-server", bs, "--list", "--state").out
    assert listed.split("\n")[1].split() == ["dashboard", "Stable"]


@pytest.mark.live
def test_an_unknown_group_and_deleting_groups(cluster, cli, member):
    bs = cluster.bootstrap_servers
    missing = cli("consumer-groups", "--bootstrap-server", bs, "--describe", "--group", "nope")
    assert (missing.code, missing.out) == (0, "\nError: Executing consumer group command failed due to "
                                              "org.apache.kafka.common.errors.GroupIdNotFoundException: Group nope "
                                              "not found.\n")
    busy = cli("consumer-groups", "--bootstrap-server", bs, "--delete", "--group", "dashboard")
    assert busy.out == ("\nError: Deletion of some consumer groups failed:\n* Group 'dashboard' could not be deleted "
                        "due to: "
                        "org.apache.kafka.common.errors.GroupNotEmptyException: The group is not empty.\n")
    unknown = cli("consumer-groups", "--bootstrap-server", bs, "--delete", "--group", "nope")
    assert unknown.out == ("\nError: Deletion of some consumer groups failed:\n* Group 'nope' could not be deleted "
                           "due to: "
                           "org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist.\n")
    member.close()
    deleted = cli("consumer-groups", "--bootstrap-server", bs, "--delete", "--group", "dashboard", "--group", "nope")
    assert deleted.out == ("\nError: Deletion of some consumer groups failed:\n* Group 'nope' could not be deleted "
                           "due to: "
                           "org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist.\n"
                           "\nThese consumer groups were deleted successfully: 'dashboard', '\n")
    assert cli("consumer-groups", "--bootstrap-server", bs, "--list").out == ""
