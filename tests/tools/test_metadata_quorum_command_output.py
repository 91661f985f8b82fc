"""Tests for minikafka/tools/metadata_quorum_command_output.py."""

import pytest

from minikafka.common.uuid import Uuid
from minikafka.raft.messages import DescribeQuorumNode, DescribeQuorumResponse, Listener, ReplicaState
from minikafka.tools import metadata_quorum_command_output as mq
from minikafka.tools.metadata_quorum_command_output import QuorumInfo, QuorumReplicaState as R


def test_golden_status_from_kafka_4_1_docs():
    # apache/kafka 4.1.1 docs/ops.html ("Metadata Quorum Tool"), with the lines the docs wrap for
    # readability joined back together (the tool prints each list on one line).
    quorum = QuorumInfo(3002, 2, 10, (
        R(3000, "ILZ5MPTeRWakmJu99uBJCA", 10, 1, None), R(3001, "b-DwmhtOheTqZzPoh52kfA", 10, 1, None),
        R(3002, "g42deArWBTRM5A1yuVpMCg", 10, 5, 5)), (
        R(0, "3Db5QLSqSZieL3rJBUUegA", 10), R(1, "UegA3Db5QLSqSZieL3rJBU", 10), R(2, "L3rJBUUegA3Db5QLSqSZie", 10)),
        {3000: ("CONTROLLER://localhost:9093",), 3001: ("CONTROLLER://localhost:9094",),
         3002: ("CONTROLLER://localhost:9095",)})
    assert mq.format_status("fMCL8kv1SWm87L_Md-I2hg", quorum) == (
        "ClusterId:              fMCL8kv1SWm87L_Md-I2hg\n"
        "LeaderId:               3002\n"
        "LeaderEpoch:            2\n"
        "HighWatermark:          10\n"
        "MaxFollowerLag:         0\n"
        "MaxFollowerLagTimeMs:   -1\n"
        'CurrentVoters:          [{"id": 3000, "directoryId": "ILZ5MPTeRWakmJu99uBJCA", "endpoints": '
        '["CONTROLLER://localhost:9093"]}, {"id": 3001, "directoryId": "b-DwmhtOheTqZzPoh52kfA", "endpoints": '
        '["CONTROLLER://localhost:9094"]}, {"id": 3002, "directoryId": "g42deArWBTRM5A1yuVpMCg", "endpoints": '
        '["CONTROLLER://localhost:9095"]}]\n'
        'CurrentObservers:       [{"id": 0, "directoryId": "3Db5QLSqSZieL3rJBUUegA"}, {"id": 1, "directoryId": '
        '"UegA3Db5QLSqSZieL3rJBU"}, {"id": 2, "directoryId": "L3rJBUUegA3Db5QLSqSZie"}]\n')


def test_static_quorum_voters_omit_the_zero_directory_id():
    # Observed on a 4.x single-controller static quorum (public README):
    # CurrentVoters:          [{"id": 1, "endpoints": ["CONTROLLER://localhost:9093"]}]
    # CurrentObservers:       [{"id": 2, "directoryId": "bpVf6z5GaO5AcscYrlm68g"}]
    quorum = QuorumInfo(1, 1, 94, (R(1, log_end_offset=94),), (R(2, "bpVf6z5GaO5AcscYrlm68g", 94),),
                        {1: ("CONTROLLER://localhost:9093",)})
    status = mq.format_status("7cWf3DGGTeKhb_WttJNKag", quorum)
    assert 'CurrentVoters:          [{"id": 1, "endpoints": ["CONTROLLER://localhost:9093"]}]\n' in status
    assert 'CurrentObservers:       [{"id": 2, "directoryId": "bpVf6z5GaO5AcscYrlm68g"}]\n' in status
    assert "MaxFollowerLag:         0\nMaxFollowerLagTimeMs:   0\n" in status
    assert mq.format_replica_list(quorum, ()) == "[]"


def test_golden_replication_table():
    # Observed `describe --replication` of a 3-controller static quorum (reference notes, [OBSERVED]):
    expected = ("NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t\n"
                "1     \tAAAAAAAAAAAAAAAAAAAAAA\t5635        \t0  \t1791139754760     \t1791139754760        \tLeader  \t\n"
                "2     \tAAAAAAAAAAAAAAAAAAAAAA\t5635        \t0  \t1791139754363     \t1791139754363        \tFollower\t\n"
                "3     \tAAAAAAAAAAAAAAAAAAAAAA\t5610        \t25 \t1791139742819     \t1791139742425        \tFollower\t\n")
    quorum = QuorumInfo(1, 3, 5635, (R(2, log_end_offset=5635, last_fetch_timestamp=1791139754363,
                                       last_caught_up_timestamp=1791139754363),
                                     R(1, log_end_offset=5635, last_fetch_timestamp=1791139754760,
                                       last_caught_up_timestamp=1791139754760),
                                     R(3, log_end_offset=5610, last_fetch_timestamp=1791139742819,
                                       last_caught_up_timestamp=1791139742425)))
    assert mq.format_replication(quorum) == expected        # leader first, whatever the voters' order
    assert mq.max_follower_lag(quorum) == (25, 1791139754760 - 1791139742425)


def test_human_readable_and_clock_drift():
    quorum = QuorumInfo(1, 3, 7, (R(1, log_end_offset=7, last_fetch_timestamp=900, last_caught_up_timestamp=900),
                                  R(2, log_end_offset=5)), (R(5, "Hw2L-tv6Xs9Ho7qENmW71g", 6, 990, 400),))
    table = mq.format_replication(quorum, human_readable=True, now_ms=1000)
    assert table.splitlines()[1].split("\t")[4:6] == ["100 ms ago        ", "100 ms ago           "]
    assert table.splitlines()[2].split("\t")[3:7] == ["2  ", "-1                ", "-1                   ", "Follower"]
    assert table.splitlines()[3].split("\t")[-2] == "Observer"
    drift = mq.describe("c", quorum, replication=True, human_readable=True, now_ms=899)
    assert drift.exit_code == 1 and drift.stdout == ""
    assert drift.stderr == ("Error while computing relative time, possible drift in system clock.\n"
                            "Current timestamp is 899, last fetch timestamp is 900\n")


def test_laggard_is_the_first_voter_with_the_smallest_log_end_offset():
    ahead = R(1, log_end_offset=10, last_caught_up_timestamp=500)
    assert mq.max_follower_lag(QuorumInfo(1, 1, 10, (ahead, R(2, log_end_offset=10, last_caught_up_timestamp=300)))) \
        == (0, 0)
    tied_first = QuorumInfo(1, 1, 10, (R(2, log_end_offset=10, last_caught_up_timestamp=300), ahead))
    assert mq.max_follower_lag(tied_first) == (0, 200)       # a tied follower listed first wins
    unknown = QuorumInfo(1, 1, 10, (ahead, R(2, log_end_offset=4)))
    assert mq.max_follower_lag(unknown) == (6, -1)


@pytest.mark.parametrize("kwargs, message", [
    ({"status": True, "replication": True},
     "Only one of --status or --replication should be specified with describe sub-command"),
    ({}, "One of --status or --replication must be specified with describe sub-command"),
    ({"status": True, "human_readable": True},
     "The option --human-readable is only supported along with --replication"),
])
def test_option_errors_go_to_stderr(kwargs, message):
    out = mq.describe("c", QuorumInfo(1, 1, 0, (R(1, log_end_offset=0),)), **kwargs)
    assert (out.stdout, out.stderr, out.exit_code) == ("", message + "\n", 1)


def test_no_leader_fails_like_optional_get():
    out = mq.describe("c", QuorumInfo(-1, 4, -1, (R(1),)), status=True)
    assert (out.stderr, out.exit_code) == ("No value present\n", 1)


def test_adapter_from_the_sandbox_describe_quorum_response():
    response = DescribeQuorumResponse(0, None, 1001, 2, 40,
                                      (ReplicaState(1001, Uuid.ZERO, 40, 1000, 1000), ReplicaState(1002, Uuid.ZERO, 30, -1, -1)),
                                      (ReplicaState(1, Uuid(0, 5), 40, 999, 999),),
                                      (DescribeQuorumNode(1001, (Listener("CONTROLLER", "localhost", 9093),)),
                                       DescribeQuorumNode(1002, (Listener("CONTROLLER", "::1", 9094),))))
    quorum = mq.from_describe_quorum_response(response)
    assert quorum.voters[1] == R(1002, "AAAAAAAAAAAAAAAAAAAAAA", 30, None, None)
    assert mq.format_status("c", quorum).splitlines()[6:] == [
        'CurrentVoters:          [{"id": 1001, "endpoints": ["CONTROLLER://localhost:9093"]}, '
        '{"id": 1002, "endpoints": ["CONTROLLER://[::1]:9094"]}]',
        f'CurrentObservers:       [{{"id": 1, "directoryId": "{Uuid(0, 5)}"}}]']
