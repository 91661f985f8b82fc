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


# ----------------------------------------------------------------------------- --reset-offsets
T0 = 1_700_000_000_000                 # 2023-11-14T22:13:20.000Z
HEADER = "\nGROUP           TOPIC           PARTITION  NEW-OFFSET"
COMMITTED = {0: 3, 1: 2, 2: 4}         # of group "rewind" on topic "views" (4 records a partition)


@pytest.fixture(scope="module")
def views(cluster):
    """Topic views: 3 partitions of 4 records, record i at T0 + i s in partition i % 3."""
    cluster.create_topic("views", 3, 2)
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all")
    for i in range(12):
        producer.send("views", value=f"v{i}".encode(), partition=i % 3, timestamp_ms=T0 + 1000 * i)
    producer.flush()
    producer.close()
    return cluster


def commit(cluster, group: str, offsets: dict[int, int]) -> None:
    from kafka import TopicPartition
    from kafka.structs import OffsetAndMetadata
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, group_id=group, enable_auto_commit=False)
    try:
        consumer.commit({TopicPartition("views", p): OffsetAndMetadata(o, "", -1) for p, o in offsets.items()})
    finally:
        consumer.close()


def committed(cluster, group: str) -> dict[int, int]:
    from kafka import KafkaAdminClient
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers)
    try:
        found = admin.list_group_offsets({group: None})[group]
    finally:
        admin.close()
    return {tp.partition: meta.offset for tp, meta in found.items() if tp.topic == "views"}


@pytest.fixture
def rewind(views):
    """Group rewind (offsets only, no member: Empty) with offsets COMMITTED, set again before each test."""
    commit(views, "rewind", COMMITTED)
    return views


def reset(cli, cluster, *args: str):
    return cli("consumer-groups", "--bootstrap-server", cluster.bootstrap_servers, "--reset-offsets", *args)


def table(group: str, offsets: dict[int, int], topic: str = "views") -> str:
    """Kafka's plan table; partitions in the HashMap order of TopicPartition(views, 0..2): 2, 1, 0."""
    rows = "".join(f"\n{group:<15} {topic:<15} {p:<10} {offsets[p]}" for p in (2, 1, 0) if p in offsets)
    return HEADER + rows + "\n"


@pytest.mark.live
def test_a_dry_run_prints_the_plan_and_commits_nothing(rewind, cli):
    result = reset(cli, rewind, "--group", "rewind", "--topic", "views", "--to-earliest", "--dry-run")
    assert (result.code, result.out, result.err) == (0, table("rewind", {0: 0, 1: 0, 2: 0}), "")
    assert committed(rewind, "rewind") == COMMITTED


@pytest.mark.live
def test_no_action_is_a_dry_run_with_kafkas_warning(rewind, cli):
    result = reset(cli, rewind, "--group", "rewind", "--topic", "views", "--to-latest")
    assert result.out == table("rewind", {0: 4, 1: 4, 2: 4})
    assert result.err == ("WARN: No action will be performed as the --execute option is missing. In version 5.0, this "
                          "command will require either --dry-run or --execute to be specified. You should add the "
                          "--dry-run option explicitly if you are scripting this command and want to keep the "
                          "current default behavior without prompting.\n")
    assert committed(rewind, "rewind") == COMMITTED


@pytest.mark.live
def test_execute_commits_the_plan(rewind, cli):
    result = reset(cli, rewind, "--group", "rewind", "--topic", "views:0,1", "--shift-by", "-2", "--execute")
    assert (result.out, result.err) == (table("rewind", {0: 1, 1: 0}), "")
    assert committed(rewind, "rewind") == {0: 1, 1: 0, 2: 4}


@pytest.mark.live
@pytest.mark.parametrize("args, offsets", [
    (["--topic", "views", "--to-latest"], {0: 4, 1: 4, 2: 4}),
    (["--topic", "views:2,0", "--to-offset", "1"], {0: 1, 2: 1}),
    (["--topic", "views", "--to-current"], COMMITTED),
    (["--all-topics", "--shift-by", "1"], {0: 4, 1: 3, 2: 4}),          # partition 2 is clamped to the end
    (["--topic", "views", "--to-datetime", "2023-11-14T22:13:24.000"], {0: 2, 1: 1, 2: 1}),
    (["--topic", "views", "--to-datetime", "2023-11-14T23:13:24.000+01:00"], {0: 2, 1: 1, 2: 1})])
def test_each_scenario_plans_kafkas_offsets(rewind, cli, args, offsets):
    result = reset(cli, rewind, "--group", "rewind", *args, "--dry-run")
    assert result.out == table("rewind", offsets)
    assert committed(rewind, "rewind") == COMMITTED


@pytest.mark.live
def test_offsets_are_clamped_to_the_log_with_a_warning(rewind, cli):
    high = reset(cli, rewind, "--group", "rewind", "--topic", "views:1", "--to-offset", "99", "--execute")
    assert high.out == table("rewind", {1: 4})
    assert re.fullmatch(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] WARN New offset \(99\) is higher than latest offset "
                        r"for topic partition views-1\. Value will be set to 4 "
                        r"\(org\.apache\.kafka\.tools\.OffsetsUtils\)\n",
                        high.err)
    low = reset(cli, rewind, "--group", "rewind", "--topic", "views:0", "--shift-by", "-10", "--execute")
    assert low.out == table("rewind", {0: 0})
    assert "WARN New offset (-7) is lower than earliest offset for topic partition views-0. Value will be set to 0 (" \
        in low.err
    assert committed(rewind, "rewind") == {0: 0, 1: 4, 2: 4}


@pytest.mark.live
def test_an_instant_after_the_last_record_falls_back_to_the_log_end(rewind, cli):
    result = reset(cli, rewind, "--group", "rewind", "--topic", "views:0", "--to-datetime", "2030-01-01T00:00:00.000",
                   "--dry-run")
    assert result.out == ("\nWarn: Partition 0 from topic views is empty. Falling back to latest known offset.\n"
                          + table("rewind", {0: 4}))


@pytest.mark.live
def test_by_duration_looks_back_from_now(rewind, cli):
    """A minute ago is after every record (written at T0, in 2023): each partition falls back to its log end."""
    result = reset(cli, rewind, "--group", "rewind", "--topic", "views", "--by-duration", "PT1M", "--dry-run")
    warnings = "".join(f"\nWarn: Partition {p} from topic views is empty. Falling back to latest known offset.\n"
                       for p in (2, 1, 0))
    assert result.out == warnings + table("rewind", {0: 4, 1: 4, 2: 4})


@pytest.mark.live
def test_export_and_reset_from_the_exported_file(rewind, cli, tmp_path):
    exported = reset(cli, rewind, "--group", "rewind", "--topic", "views", "--to-earliest", "--export", "--dry-run")
    assert exported.out == "views,2,0\nviews,1,0\nviews,0,0\n\n"
    two = reset(cli, rewind, "--group", "rewind", "--group", "nobody", "--topic", "views:0", "--to-offset", "1",
                "--export", "--dry-run")
    assert sorted(two.out.split()) == ["nobody,views,0,1", "rewind,views,0,1"]
    plan = tmp_path / "plan.csv"
    plan.write_text("views,0,1\nviews,2,2\n")
    result = reset(cli, rewind, "--group", "rewind", "--from-file", str(plan), "--execute")
    assert result.out == table("rewind", {0: 1, 2: 2})
    assert committed(rewind, "rewind") == {0: 1, 1: 2, 2: 2}
    plan.write_text("rewind,views,1,3\n")            # with two groups, lines name their group
    two = reset(cli, rewind, "--group", "rewind", "--group", "nobody", "--from-file", str(plan), "--dry-run")
    assert two.out == "\nError: No reset plan for group nobody found\n" + table("rewind", {1: 3})


@pytest.mark.live
def test_an_active_group_is_refused_and_keeps_its_offsets(views, cli):
    """A member that joined, read and committed stays in the group (kafka-python heartbeats in the background)."""
    consumer = KafkaConsumer("views", bootstrap_servers=views.bootstrap_servers, group_id="busy",
                             auto_offset_reset="earliest", enable_auto_commit=False, heartbeat_interval_ms=200)
    try:
        seen = 0
        while seen < 12:
            seen += sum(len(b) for b in consumer.poll(timeout_ms=200).values())
        consumer.commit()
        result = reset(cli, views, "--group", "busy", "--topic", "views", "--to-earliest", "--execute")
        assert (result.code, result.err) == (0, "")
        assert result.out == ("\nError: Assignments can only be reset if the group 'busy' is inactive, but the "
                              "current state is Stable.\n" + HEADER + "\n")
        assert committed(views, "busy") == {0: 4, 1: 4, 2: 4}
    finally:
        consumer.close()


@pytest.mark.live
@pytest.mark.parametrize("args, out, usage", [
    (["--topic", "nowhere", "--to-earliest"], "\nError: Executing consumer group command failed due to This server "
                                              "does not host this topic-partition.\n", None),
    (["--topic", "nowhere:0", "--to-earliest"], "\nError: Executing consumer group command failed due to "
     "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: "
     "This server does not host this topic-partition.\n", None),
    (["--topic", "views:7", "--to-earliest"], '\nError: Executing consumer group command failed due to The '
                                              'partitions "views-7" do not exist\n', None),
    (["--topic", "views:x", "--to-earliest"], "", "Invalid partition 'x' specified in topic arg 'views:x''"),
    (["--topic", "views:0:1", "--to-earliest"], "",
     "Invalid topic arg 'views:0:1', expected topic name and partitions"),
    (["--to-earliest"], "", "One of the reset scopes should be defined: --all-topics, --topic."),
    (["--topic", "views", "--to-datetime", "2023-11-14"], "\nError: Executing consumer group command failed due to "
     "java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 "
     "format\n", None),
    (["--topic", "views", "--to-datetime", "2023-11-14T22:13"], "\nError: Executing consumer group command failed due "
     'to java.text.ParseException: Unparseable date: "2023-11-14T22:13Z"\n', None),
    (["--topic", "views", "--by-duration", "1H"], "\nError: Executing consumer group command failed due to Text cannot "
                                                  "be parsed to a Duration\n", None)])
def test_bad_input_is_refused_in_kafkas_words_and_changes_nothing(rewind, cli, args, out, usage):
    result = reset(cli, rewind, "--group", "rewind", *args, "--execute")
    assert result.out == out
    if usage is None:
        assert (result.code, result.err) == (0, "")
    else:
        assert result.code == 1 and result.err.startswith(usage + "\nOption ")
    assert committed(rewind, "rewind") == COMMITTED


@pytest.mark.live
def test_shifting_a_partition_without_a_commit_is_refused(views, cli):
    result = reset(cli, views, "--group", "never-committed", "--topic", "views", "--shift-by", "1", "--execute")
    assert result.code == 1 and result.err.startswith("Cannot shift offset for partition views-")
    assert committed(views, "never-committed") == {}


@pytest.mark.live
def test_verbose_members_and_state_of_a_consumer_protocol_group(cluster, cli):
    """A KIP-848 member: epochs, current and target assignment (``--members --verbose``), group and target
    assignment epochs (``--state --verbose``), as ConsumerGroupDescribe reports them."""
    import time
    confluent_kafka = pytest.importorskip("confluent_kafka")
    member = confluent_kafka.Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "next-gen",
                                       "client.id": "tracker", "group.protocol": "consumer"})
    try:
        member.subscribe(["clicks"])
        deadline = time.monotonic() + 30
        while len(member.assignment()) < 2:
            assert time.monotonic() < deadline, "the member got no assignment"
            member.poll(0.1)
        bs = cluster.bootstrap_servers
        members = cli("consumer-groups", "--bootstrap-server", bs, "--describe", "--group", "next-gen", "--members",
                      "--verbose").out.split("\n")
        assert members[1].split() == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "CURRENT-EPOCH",
                                      "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
        row = members[2].split()
        assert row[0] == "next-gen" and row[2:] == ["/127.0.0.1", "tracker", "2", "2", "clicks:0,1", "2", "clicks:0,1"]
        state = cli("consumer-groups", "--bootstrap-server", bs, "--describe", "--group", "next-gen", "--state",
                    "--verbose").out.split("\n")
        assert state[1].split()[-3:] == ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"]
        assert state[2].split()[-5:] == ["uniform", "Stable", "2", "2", "1"]
    finally:
        member.close()
