"""Tests for minikafka/tools/reassignment_json.py."""

import pytest

from minikafka.common.topic_partition import TopicPartition as TP
from minikafka.tools import reassignment_json as rj


def test_format_is_compact_sorted_and_any_log_dirs():
    text = rj.format_reassignment_json({TP("foo", 1): [4, 5, 6], TP("bar", 0): [7, 8], TP("foo", 0): [1]},
                                       {("foo", 0, 1): "/data/a"})
    assert text == ('{"version":1,"partitions":[{"topic":"bar","partition":0,"replicas":[7,8],"log_dirs":["any","any"]},'
                    '{"topic":"foo","partition":0,"replicas":[1],"log_dirs":["/data/a"]},'
                    '{"topic":"foo","partition":1,"replicas":[4,5,6],"log_dirs":["any","any","any"]}]}')
    assert rj.format_reassignment_json({}) == '{"version":1,"partitions":[]}'


def test_parse_round_trip_and_defaults():
    parts, dirs = rj.parse_reassignment('{"partitions":[{"topic":"foo","partition":1,"replicas":[2,3]},'
                                        '{"topic":"foo","partition":0,"replicas":[3,1],"log_dirs":["any","/d"]}]}')
    assert parts == [(TP("foo", 1), [2, 3]), (TP("foo", 0), [3, 1])]
    assert dirs == {("foo", 0, 1): "/d"}
    assert rj.parse_topics_to_move('{"topics":[{"topic":"foo"},{"topic":"bar"}],"version":1}') == ["foo", "bar"]


@pytest.mark.parametrize("text, message", [
    ('{"version":2,"partitions":[]}', "Not supported version field value 2"),
    ('{"partitions":[{"partition":0,"replicas":[1]}]}', "No such field exists: `topic`"),
    ('{"partitions":[{"topic":"f","partition":"0","replicas":[1]}]}', 'Expected `Integer` value, received "0"'),
    ('{"partitions":[{"topic":"f","partition":0,"replicas":1}]}', "Expected `JSON array` value, received 1"),
    ('{"partitions":[{"topic":"f","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}',
     "Size of replicas list [1, 2] is different from size of log dirs list [any] for partition f-0"),
    ('{"partitions":[]}', "Partition reassignment list cannot be empty"),
    ('{"partitions":[{"topic":"f","partition":0,"replicas":[]}]}', "Partition replica list cannot be empty"),
    ('{"partitions":[{"topic":"f","partition":0,"replicas":[1]},{"topic":"f","partition":0,"replicas":[2]}]}',
     "Partition reassignment contains duplicate topic partitions: f-0"),
    ('{"partitions":[{"topic":"f","partition":0,"replicas":[1,1,2,2]},{"topic":"f","partition":1,"replicas":[3,3]}]}',
     "Partition replica lists may not contain duplicate entries: f-0 contains multiple entries for 1,2. "
     "f-1 contains multiple entries for 3"),
])
def test_execute_file_errors(text, message):
    with pytest.raises(rj.ReassignCommandError) as info:
        rj.parse_execute_args(text)
    assert info.value.message == message
    assert not info.value.terse


def test_topics_file_and_broker_list_errors():
    with pytest.raises(rj.ReassignCommandError, match="^The input string is not a valid JSON$"):
        rj.parse_topics_to_move("{nope")
    with pytest.raises(rj.ReassignCommandError, match=r"^Broker list contains duplicate entries: \[2\]$"):
        rj.parse_broker_list("1,2,2")
    with pytest.raises(rj.ReassignCommandError, match='^For input string: "x"$'):
        rj.parse_broker_list("1,x")
    assert rj.parse_broker_list("3,1,") == [3, 1]          # Java's split drops the trailing empty string
    with pytest.raises(rj.ReassignCommandError, match=r"duplicate entries: \[foo\]$"):
        rj.check_duplicate_topics(["foo", "bar", "foo"])
