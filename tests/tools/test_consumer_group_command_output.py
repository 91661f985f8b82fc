"""Tests for minikafka/tools/consumer_group_command_output.py."""

from minikafka.common.topic_partition import TopicPartition as TP
from minikafka.tools import consumer_group_command_output as cg
from minikafka.tools.consumer_group_command_output import ConsumerGroupDescription as Group, GroupListing
from minikafka.tools.consumer_group_command_output import MemberDescription as Member

HEADER = ("GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             "
          "CONSUMER-ID     HOST            CLIENT-ID")


def test_golden_empty_group_with_committed_offsets():
    # Observed (public Korean notes): stderr line first, then the table with '-' columns.
    group = Group("hello-group", "Empty", committed_offsets={TP("hello.kafka", 0): 11},
                  log_end_offsets={TP("hello.kafka", 0): 16})
    out = cg.describe_offsets([group])
    assert out.stderr == "\nConsumer group 'hello-group' has no active members.\n"
    assert out.stdout == ("\n" + HEADER + "\n"
                          "hello-group     hello.kafka     0          11              16              5               "
                          "-               -               -\n")
    assert out.text == out.stderr + out.stdout and out.exit_code == 0


def test_rows_of_one_topic_are_sorted_by_partition_as_in_kafka_4_3():
    # Kafka 4.1 printed a HashMap's order (a public tutorial showed 4, 2, 3, 0, 1); 4.3.1's
    # ConsumerGroupService.describePartitions sorts the rows by topic, then partition (read with javap).
    committed = {TP("hello", p): 2 if p in (1, 3) else 0 for p in range(5)}
    group = Group("con-1", "Empty", committed_offsets=committed, log_end_offsets=dict(committed))
    rows = cg.describe_offsets([group]).stdout.splitlines()[2:]
    assert [row.split()[2] for row in rows] == ["0", "1", "2", "3", "4"]
    assert rows[4] == "con-1           hello           4          0               0               0               -               -               -"


def test_members_first_biggest_first_then_unassigned_and_wide_columns():
    long_id = "consumer-a_group-1-c40d5ee8-5d05-4e29-9245-a527a5144ba9"
    members = (Member("m-small", "c2", "/10.0.0.2", (TP("t", 2),)),
               Member(long_id, "consumer-a_group-1", "/172.18.0.3", (TP("t", 0), TP("t", 1))),
               Member("m-idle", "c3", "/10.0.0.3"))
    group = Group("a_group", "Stable", members, committed_offsets={TP("t", 0): 1, TP("other", 0): 3},
                  log_end_offsets={TP("t", 0): 1, TP("t", 1): 7, TP("t", 2): 0})
    out = cg.describe_offsets([group])
    assert out.stderr == ""
    lines = out.stdout.split("\n")
    assert lines[0] == "" and lines[-1] == ""
    assert lines[1] == ("GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             "
                        "CONSUMER-ID" + " " * (len(long_id) - 11) + " HOST            CLIENT-ID")
    # Observed row shape (public tutorial): consumer id as wide as its column, host padded to 15, client id last.
    # Within a member, sorted by topic then partition (Kafka 4.3).
    assert lines[2] == (f"a_group         t               0          1               1               0               "
                        f"{long_id} /172.18.0.3     consumer-a_group-1")
    assert [line.split()[1:3] for line in lines[2:6]] == [["t", "0"], ["t", "1"], ["t", "2"], ["other", "0"]]
    assert lines[3].split()[3:6] == ["-", "7", "-"]                   # no commit: no current offset, no lag
    assert lines[5].split()[3:9] == ["3", "-", "-", "-", "-", "-"]    # unknown log end offset


def test_verbose_offsets_add_the_leader_epoch_column():
    group = Group("g", "Stable", (Member("m", "c", "/h", (TP("t", 0),)),), committed_offsets={TP("t", 0): 4},
                  log_end_offsets={TP("t", 0): 4}, leader_epochs={TP("t", 0): 2})
    lines = cg.describe_offsets([group], verbose=True).stdout.splitlines()
    assert lines[1].startswith("GROUP           TOPIC           PARTITION  LEADER-EPOCH    CURRENT-OFFSET  ")
    assert lines[2].split() == ["g", "t", "0", "2", "4", "4", "0", "m", "/h", "c"]


def test_state_messages_and_dead_groups():
    rebalancing = cg.describe_offsets([Group("r", "PreparingRebalance",
                                             committed_offsets={TP("t", 0): 0}, log_end_offsets={TP("t", 0): 0})])
    assert rebalancing.stderr == "\nWarning: Consumer group 'r' is rebalancing.\n"
    dead = cg.describe_offsets([Group("gone", "Dead")])
    assert (dead.stdout, dead.stderr) == ("\nError: Consumer group 'gone' does not exist.\n", "")
    nothing = cg.describe_offsets([Group("idle", "Empty")])
    assert (nothing.stdout, nothing.stderr) == ("", "\nConsumer group 'idle' has no active members.\n")
    odd = cg.describe_offsets([Group("x", "Unknown")])
    assert odd.stdout == ("\nError: Executing consumer group command failed due to Expected a valid consumer group "
                          "state, but found 'Unknown'.\n") and odd.exit_code == 0


def test_groups_are_described_in_id_order():
    groups = [Group(g, "Empty", committed_offsets={TP("t", 0): 0}) for g in ("b", "a")]
    assert cg.describe_offsets(groups).stderr.index("'a'") < cg.describe_offsets(groups).stderr.index("'b'")


def test_members_view():
    members = (Member("rdkafka-a4c0a09c-8c6e-457e-bf9e-354a8e2f4bb8", "rdkafka", "/151.62.82.140"),
               Member("rdkafka-39404560-f8f2-4b0b-9518-811e2eb20074", "rdkafka", "/151.62.82.140", (TP("t", 0),)))
    out = cg.describe_members([Group("my-group", "Stable", members)])
    # Observed (Aiven docs, trailing spaces trimmed there): each line ends with #PARTITIONS padded to 15 and a space.
    assert out.stdout == (
        "\nGROUP           CONSUMER-ID                                  HOST            CLIENT-ID       #PARTITIONS     \n"
        "my-group        rdkafka-a4c0a09c-8c6e-457e-bf9e-354a8e2f4bb8 /151.62.82.140  rdkafka         0               \n"
        "my-group        rdkafka-39404560-f8f2-4b0b-9518-811e2eb20074 /151.62.82.140  rdkafka         1               \n")
    idle = cg.describe_members([Group("idle", "Empty")])
    assert idle.stdout == "\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n"
    assert idle.stderr == "\nConsumer group 'idle' has no active members.\n"


def test_members_verbose_and_instance_ids():
    member = Member("m1", "cli-1", "/10.0.0.1", (TP("orders", 0),), group_instance_id="i-1",
                    target_assignment=(TP("orders", 1), TP("orders", 0)), member_epoch=5)
    group = Group("orders-app", "Stable", (member,), target_assignment_epoch=7)
    lines = cg.describe_members([group], verbose=True).stdout.splitlines()
    assert lines[1] == ("GROUP           CONSUMER-ID     GROUP-INSTANCE-ID HOST            CLIENT-ID       "
                        "#PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   ")
    assert lines[2] == ("orders-app      m1              i-1               /10.0.0.1       cli-1           "
                        "1               5               orders:0             7               orders:0,1          ")
    migrating = Group("g", "Stable", (Member("a", "c", "/h", upgraded=True), Member("b", "c", "/h", upgraded=False)))
    assert cg.describe_members([migrating], verbose=True).stdout.splitlines()[1].endswith("TARGET-ASSIGNMENT    UPGRADED")
    assert cg.assignment_text([TP("b", 2), TP("a", 10), TP("b", 0), TP("a", 9)]) == "a:9,10;b:0,2"


def test_state_view():
    group = Group("my-group", "Stable", (Member("m", "c", "/h"),), coordinator=(2, "kafka-2", 9092),
                  partition_assignor="range")
    assert cg.describe_state([group]).stdout == (
        "\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS"
        "\nmy-group        kafka-2:9092  (2)         range                Stable               1\n")
    empty = cg.describe_state([Group("coord-team", "Empty", coordinator=(2, "kafka-2", 9092))])
    assert empty.stdout.endswith("\ncoord-team      kafka-2:9092  (2)         -                    Empty                0\n")
    verbose = cg.describe_state([group], verbose=True).stdout.splitlines()
    assert verbose[1].endswith("STATE                GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS")
    assert verbose[2].endswith("Stable               -               -                         1")


def test_list():
    listings = [GroupListing("con-2", "Empty"), GroupListing("con-1", "Stable", "Consumer")]
    assert cg.list_groups(listings).text == "con-2\ncon-1\n"          # the brokers' order, not sorted
    assert cg.list_groups([]).text == ""
    assert cg.list_groups(listings, include_state=True).text == (
        "GROUP                     STATE               \ncon-2                     Empty               \n"
        "con-1                     Stable              \n")
    assert cg.list_groups(listings, include_state=True, include_type=True).text.splitlines()[2] == (
        "con-1                     Consumer             Stable              ")


def test_command_failed():
    out = cg.command_failed("org.apache.kafka.common.errors.GroupIdNotFoundException: Group nope not found.")
    assert out.text == ("\nError: Executing consumer group command failed due to "
                        "org.apache.kafka.common.errors.GroupIdNotFoundException: Group nope not found.\n")
    assert out.exit_code == 0          # Kafka 4.3.1 returns normally after printing it


def test_reset_plan_columns_widen_to_the_longest_group_and_topic():
    from minikafka.common.topic_partition import TopicPartition as TP
    from minikafka.tools.tool_output import Console
    plans = {"a-rather-long-group-name": {TP("t", 0): 5}, "refused": {}}
    assert cg.print_offsets_to_reset(Console(), plans).stdout == (
        "\nGROUP                    TOPIC           PARTITION  NEW-OFFSET"
        "\na-rather-long-group-name t               0          5\n")
    assert cg.print_offsets_to_reset(Console(), {}).stdout == "\n"
    assert cg.export_offsets_to_csv(Console(), plans, with_group=True).stdout == "a-rather-long-group-name,t,0,5\n\n"


def test_rows_of_several_topics_are_sorted_by_topic_name_then_partition():
    committed = {TP("zeta", 1): 0, TP("alpha", 1): 0, TP("zeta", 0): 0, TP("alpha", 0): 0, TP("Zed", 0): 0}
    group = Group("g", "Empty", committed_offsets=committed, log_end_offsets=dict(committed))
    rows = cg.describe_offsets([group]).stdout.splitlines()[2:]
    assert [tuple(row.split()[1:3]) for row in rows] == [("Zed", "0"), ("alpha", "0"), ("alpha", "1"),
                                                         ("zeta", "0"), ("zeta", "1")]   # String.compareTo


# ----------------------------------------------------------------------------- --delete-offsets
def test_delete_offsets_verdicts_follow_the_error():
    from minikafka.common.errors import Errors
    verdicts = {Errors.NONE: "Request succeeded for deleting offsets from group g.\n",
                Errors.NON_EMPTY_GROUP: "\nError: The group is not empty.\n",
                Errors.GROUP_ID_NOT_FOUND: "\nError: The group id does not exist.\n",
                Errors.UNKNOWN_TOPIC_OR_PARTITION: "\nError: Encountered some partition-level error, see the "
                                                   "follow-up details.\n",
                Errors.GROUP_SUBSCRIBED_TO_TOPIC: "\nError: Encountered some partition-level error, see the "
                                                  "follow-up details.\n",
                Errors.REQUEST_TIMED_OUT: "\nError: Encountered some unknown error: REQUEST_TIMED_OUT\n"}
    for error, verdict in verdicts.items():
        out = cg.delete_offsets_result("g", error, {})
        assert out.stdout == verdict + "\nTOPIC           PARTITION  STATUS         \n" and out.exit_code == 0


def test_delete_offsets_rows_sort_by_topic_and_partition_glued_and_widen_for_long_topics():
    from minikafka.common.errors import Errors
    outcomes = {TP("t", 2): None, TP("t", 10): "boom", TP("a-much-longer-topic", -1): "gone"}
    out = cg.delete_offsets_result("g", Errors.NONE, outcomes)
    # "t10" sorts before "t2": Kafka compares the strings, not the numbers.
    assert out.stdout == ("Request succeeded for deleting offsets from group g.\n"
                          "\nTOPIC               PARTITION  STATUS         "
                          "\na-much-longer-topic -          Error: gone    "      # padded to 15 like the rest
                          "\nt                   10         Error: boom    "
                          "\nt                   2          Successful     \n")
