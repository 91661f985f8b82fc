"""Tests for minikafka/tools/reassign_partitions_command_output.py."""

import random

from minikafka.common.topic_partition import TopicPartition as TP
from minikafka.controller.striped_replica_placer import PlacementSpec, StripedReplicaPlacer, UsableBroker
from minikafka.tools import reassign_partitions_command_output as rp
from minikafka.tools.reassign_partitions_command_output import BrokerMetadata, PartitionReassignment
from tests.tools._snapshots import cluster, node, partition, topic

CURRENT = {TP("my-topic", 0): [0, 1, 2], TP("my-topic", 1): [1, 2, 0], TP("my-topic", 2): [2, 1, 0]}
PLAN = ('{"version":1,"partitions":[{"topic":"my-topic","partition":0,"replicas":[5,4,6]},'
        '{"topic":"my-topic","partition":1,"replicas":[6,5,4]},{"topic":"my-topic","partition":2,"replicas":[4,6,5]}]}')
BROKERS = [0, 1, 2, 3, 4, 5, 6]


def test_golden_execute():
    # Observed (public blog, KRaft-era tool; same text in 4.1.1; 4.3 names live replicas' log directories):
    expected = ('Current partition replica assignment\n\n'
                '{"version":1,"partitions":[{"topic":"my-topic","partition":0,"replicas":[0,1,2],"log_dirs":["any","any","any"]},'
                '{"topic":"my-topic","partition":1,"replicas":[1,2,0],"log_dirs":["any","any","any"]},'
                '{"topic":"my-topic","partition":2,"replicas":[2,1,0],"log_dirs":["any","any","any"]}]}\n\n'
                'Save this to use as the --reassignment-json-file option during rollback\n'
                'Successfully started partition reassignments for my-topic-0,my-topic-1,my-topic-2\n')
    altered = []
    out = rp.execute(PLAN, current=CURRENT, broker_ids=BROKERS, ongoing={}, alter=lambda p: altered.append(p) or {})
    assert (out.text, out.exit_code) == (expected, 0)
    assert altered == [{TP("my-topic", 0): [5, 4, 6], TP("my-topic", 1): [6, 5, 4], TP("my-topic", 2): [4, 6, 5]}]


def test_current_assignment_text_matches_kafkas_unit_test():
    # ReassignPartitionsUnitTest.testCurrentPartitionReplicaAssignmentToString (apache/kafka)
    assert rp.current_assignment_text({TP("foo", 1): [1, 2, 3], TP("bar", 0): [7, 8, 9]},
                                      {TP("foo", 0): [1, 2, 3], TP("foo", 1): [4, 5, 6], TP("bar", 0): [7, 8],
                                       TP("baz", 0): [10, 11, 12]}) == (
        'Current partition replica assignment\n\n'
        '{"version":1,"partitions":[{"topic":"bar","partition":0,"replicas":[7,8],"log_dirs":["any","any"]},'
        '{"topic":"foo","partition":1,"replicas":[4,5,6],"log_dirs":["any","any","any"]}]}\n\n'
        'Save this to use as the --reassignment-json-file option during rollback')


def test_the_current_assignment_names_the_log_dirs_of_live_replicas():
    # Kafka 4.3: replicas on live brokers get their directory (here broker 2 is down: "any"), and
    # only the printed partitions are asked about; proposed replicas stay "any".
    asked = []

    def dirs(assignment):
        asked.append(dict(assignment))
        return {(tp.topic, tp.partition, b): f"/data/broker-{b}" for tp, rs in assignment.items() for b in rs if b != 2}
    out = rp.execute('{"version":1,"partitions":[{"topic":"my-topic","partition":1,"replicas":[4,5]}]}',
                     current=CURRENT, broker_ids=BROKERS, ongoing={}, replica_log_dirs=dirs)
    assert asked == [{TP("my-topic", 1): [1, 2, 0]}]
    assert out.text.startswith(
        'Current partition replica assignment\n\n{"version":1,"partitions":[{"topic":"my-topic","partition":1,'
        '"replicas":[1,2,0],"log_dirs":["/data/broker-1","any","/data/broker-0"]}]}\n\n')
    generated = rp.generate('{"topics":[{"topic":"my-topic"}],"version":1}', "4,5,6", current=CURRENT,
                            brokers=[BrokerMetadata(b) for b in BROKERS], rng=random.Random(1), replica_log_dirs=dirs)
    current, proposed = generated.text.split("\n")[1], generated.text.split("\n")[4]
    assert '"replicas":[0,1,2],"log_dirs":["/data/broker-0","/data/broker-1","any"]' in current
    assert proposed.count('"any"') == 9


def test_execute_with_throttle_and_singular_wording():
    plan = '{"version":1,"partitions":[{"topic":"my-topic","partition":0,"replicas":[1,2,3]}]}'
    applied = []
    out = rp.execute(plan, current=CURRENT, broker_ids=BROKERS, ongoing={}, throttle=5000000,
                     replica_alter_log_dirs_throttle=100, set_throttles=lambda t, b: applied.append((t, b)))
    assert out.text.endswith(
        "Save this to use as the --reassignment-json-file option during rollback\n"
        "Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is "
        "removed.\nThe inter-broker throttle limit was set to 5000000 B/s\n"
        "The replica-alter-dir throttle limit was set to 100 B/s\n"
        "Successfully started partition reassignment for my-topic-0\n")
    ((topics, brokers),) = applied
    assert topics == {"my-topic": {"leader.replication.throttled.replicas": "0:0,0:1,0:2",
                                   "follower.replication.throttled.replicas": "0:3"}}
    assert sorted(brokers) == [0, 1, 2, 3]
    assert brokers[3] == {"leader.replication.throttled.rate": "5000000",
                          "follower.replication.throttled.rate": "5000000"}


def test_throttle_lists_sort_as_strings_and_keep_ongoing_sources():
    ongoing = {TP("t", 10): PartitionReassignment((1, 2, 4), adding_replicas=(4,), removing_replicas=(2,))}
    topics, _ = rp.throttle_configs(ongoing, {TP("t", 2): [3]}, {TP("t", 2): [1]}, 10)
    assert topics["t"] == {"leader.replication.throttled.replicas": "10:1,10:2,2:1",
                           "follower.replication.throttled.replicas": "10:4,2:3"}


def test_execute_errors():
    ongoing = {TP("x", 0): PartitionReassignment((1, 2), (2,))}
    out = rp.execute(PLAN, current=CURRENT, broker_ids=BROKERS, ongoing=ongoing)
    assert out.text == rp.CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE + "\n" and out.exit_code == 1
    assert rp.execute(PLAN, current=CURRENT, broker_ids=[4, 5], ongoing={}).text == "Error: Unknown broker id 6\n"
    missing = PLAN.replace('"partition":2', '"partition":7')
    assert rp.execute(missing, current=CURRENT, broker_ids=BROKERS, ongoing={}).text == (
        "Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Unable to find partition: my-topic-7\n")
    unknown = PLAN.replace("my-topic", "nope")
    assert rp.execute(unknown, current=CURRENT, broker_ids=BROKERS, ongoing={}).text == (
        "Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic nope not found.\n")
    failed = rp.execute(PLAN, current=CURRENT, broker_ids=BROKERS, ongoing={},
                        alter=lambda p: {TP("my-topic", 2): "Replica assignment has brokers that are not alive.",
                                         TP("my-topic", 0): "boom"})
    assert failed.text.endswith("rollback\nError reassigning partition(s):\nmy-topic-0: boom\n"
                                "my-topic-2: Replica assignment has brokers that are not alive.\n")
    assert failed.exit_code == 1


def test_verify_states_and_throttle_clearing():
    current = {TP("my-topic", 0): [5, 4, 6], TP("my-topic", 1): [1, 2, 0], TP("my-topic", 2): [4, 6, 5]}
    cleared = []
    out = rp.verify(PLAN, current=current, ongoing={}, broker_ids=[17, 1, 2, 3, 4, 5, 6],
                    clear_throttles=lambda b, t: cleared.append((b, t)))
    assert out.text == ("Status of partition reassignment:\n"
                        "Reassignment of partition my-topic-0 is completed.\n"
                        "There is no active reassignment of partition my-topic-1, but replica set is 1,2,0 rather "
                        "than 6,5,4.\n"
                        "Reassignment of partition my-topic-2 is completed.\n"
                        "\n"
                        "Clearing broker-level throttles on brokers 17,1,2,3,4,5,6\n"     # Java HashSet<Integer> order
                        "Clearing topic-level throttles on topic my-topic\n")
    assert cleared == [([17, 1, 2, 3, 4, 5, 6], ["my-topic"])]
    ongoing = {TP("my-topic", 1): PartitionReassignment((1, 2, 0, 6, 5, 4), (6, 5, 4), (1, 2, 0))}
    busy = rp.verify(PLAN, current=current, ongoing=ongoing, broker_ids=BROKERS).text
    assert "\nReassignment of partition my-topic-1 is still in progress.\n" in busy and "Clearing" not in busy
    assert busy.endswith("completed.\n\n")
    quiet = rp.verify(PLAN, current=current, ongoing={}, broker_ids=[1], preserve_throttles=True).text
    assert "Clearing" not in quiet
    one = rp.verify('{"partitions":[{"topic":"gone","partition":0,"replicas":[1]}]}', current={}, ongoing={},
                    broker_ids=[1]).text
    assert one == ("Status of partition reassignment:\nThere is no active reassignment of partition gone-0, but "
                   "replica set is  rather than 1.\n\nClearing broker-level throttles on broker 1\n"
                   "Clearing topic-level throttles on topic gone\n")


def test_list():
    # Observed (4.x lab): "Current partition reassignments:\nl07.move.test-0: replicas: 1,2,3. adding: 3."
    ongoing = {TP("l07.move.test", 1): PartitionReassignment((2, 3, 1), (3,)),
               TP("l07.move.test", 0): PartitionReassignment((1, 2, 3), (3,), (1,))}
    assert rp.list_reassignments(ongoing).text == ("Current partition reassignments:\n"
                                                   "l07.move.test-0: replicas: 1,2,3. adding: 3. removing: 1.\n"
                                                   "l07.move.test-1: replicas: 2,3,1. adding: 3.\n")
    assert rp.list_reassignments({}).text == "No partition reassignments found.\n"


def test_cancel_prints_the_moves_line_without_a_line_break():
    ongoing = {TP("my-topic", 1): PartitionReassignment((1, 2, 0, 6), (6,), (0,))}
    cancelled = []
    out = rp.cancel(PLAN, ongoing=ongoing, broker_ids=[1], cancel=lambda parts: cancelled.append(parts) or {})
    assert out.text == ("Successfully cancelled partition reassignment for: my-topic-1\n"
                        "None of the specified partition moves are active.Clearing broker-level throttles on "
                        "brokers 1,4,5,6\nClearing topic-level throttles on topic my-topic\n")
    assert cancelled == [[TP("my-topic", 1)]]
    idle = rp.cancel(PLAN, ongoing={}, broker_ids=[1], preserve_throttles=True)
    assert idle.text == ("None of the specified partition reassignments are active.\n"
                         "None of the specified partition moves are active.")


def test_generate_uses_the_striped_placer_once_per_topic():
    current = {TP("foo", p): [1, 2] for p in range(4)} | {TP("bar", 0): [3, 1, 2], TP("other", 0): [1]}
    brokers = [BrokerMetadata(b) for b in (1, 2, 3, 4)]
    out = rp.generate('{"topics":[{"topic":"foo"},{"topic":"bar"}],"version":1}', "2,3,4", current=current,
                      brokers=brokers, rng=random.Random(7))
    lines = out.text.split("\n")
    assert lines[0] == "Current partition replica assignment"
    assert lines[1].startswith('{"version":1,"partitions":[{"topic":"bar","partition":0,"replicas":[3,1,2]')
    assert '"other"' not in out.text
    assert (lines[2], lines[3], lines[5]) == ("", "Proposed partition reassignment configuration", "")
    # Same seed, same calls in the tool's topic order (HashMap order: "bar" then "foo").
    placer, usable = StripedReplicaPlacer(random.Random(7)), [UsableBroker(b, None, False) for b in (2, 3, 4)]
    bar = placer.place(PlacementSpec(0, 1, 3), usable)
    foo = placer.place(PlacementSpec(0, 4, 2), usable)
    proposed = {TP("bar", 0): bar[0]} | {TP("foo", i): r for i, r in enumerate(foo)}
    assert lines[4] == rp.format_reassignment_json(proposed)
    again = rp.generate('{"topics":[{"topic":"foo"},{"topic":"bar"}],"version":1}', "2,3,4", current=current,
                        brokers=brokers, rng=random.Random(7))
    assert again == out                                  # deterministic for a seed


def test_generate_errors():
    brokers = [BrokerMetadata(1, "a"), BrokerMetadata(2)]
    assert rp.generate('{"topics":[{"topic":"foo"}]}', "1,2", current=CURRENT, brokers=brokers,
                       rng=random.Random(1)).text == (
        "Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic foo not found.\n")
    racks = rp.generate('{"topics":[{"topic":"my-topic"}]}', "1,2", current=CURRENT, brokers=brokers,
                        rng=random.Random(1))
    assert racks.text == ("Error: Not all brokers have rack information. Add --disable-rack-aware in command line "
                          "to make replica assignment without rack information.\n")
    too_few = rp.generate('{"topics":[{"topic":"my-topic"}]}', "1,2", current=CURRENT, brokers=brokers,
                          rng=random.Random(1), disable_rack_aware=True)
    assert too_few.text == ("Error: The target replication factor of 3 cannot be reached because only 2 broker(s) "
                            "are registered or some brokers have all their log directories cordoned.\n")
    assert too_few.exit_code == 1


def test_snapshot_adapters():
    snapshot = cluster([topic("t", "AAAAAAAAAAAAAAAAAAAAAQ", [partition("t", 0, [1, 2, 3], adding=[3], removing=[1]),
                                                            partition("t", 1, [2, 1])])],
                       [node(1), node(2), node(3, registration="fenced")])
    assert rp.assignment_from_snapshot(snapshot) == {TP("t", 0): [1, 2, 3], TP("t", 1): [2, 1]}
    assert rp.reassignments_from_snapshot(snapshot) == {TP("t", 0): PartitionReassignment((1, 2, 3), (3,), (1,))}
    assert rp.brokers_from_snapshot(snapshot) == [BrokerMetadata(1), BrokerMetadata(2)]
