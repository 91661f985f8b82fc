"""``minikafka metadata-quorum``: argparse4j-style errors, and DescribeQuorum through a broker."""

import re

import pytest

from minikafka import Cluster
from minikafka.commands.metadata_quorum_command import quorum_info, usage_line

USAGE = ("usage: kafka-metadata-quorum [-h] [--command-config COMMAND_CONFIG]\n"
         "                             (--bootstrap-server BOOTSTRAP_SERVER |\n"
         "                             --bootstrap-controller BOOTSTRAP_CONTROLLER)\n"
         "                             {describe,add-controller,remove-controller}\n"
         "                             ...\n")


def test_a_connection_option_is_required(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")        # wide enough for argparse4j to print the message on one line
    result = cli("metadata-quorum", "describe", "--status")
    assert (result.code, result.out) == (1, "")
    assert result.err == (usage_line(width=120) + "\nkafka-metadata-quorum: error: one of the arguments "
                                                  "--bootstrap-server --bootstrap-controller is required\n")


@pytest.mark.parametrize("flags, message", [
    ([], "One of --status or --replication must be specified with describe sub-command"),
    (["--status", "--replication"], "Only one of --status or --replication should be specified with describe "
                                    "sub-command"),
    (["--status", "--human-readable"], "The option --human-readable is only supported along with --replication")])
def test_describe_needs_exactly_one_view(cli, flags, message):
    assert cli("metadata-quorum", "--bootstrap-server", "h:1", "describe", *flags) == \
        type(cli("topics"))(1, "", message + "\n")


def test_help_exits_0(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "75")
    result = cli("metadata-quorum", "--help")
    assert result.code == 0 and result.out.startswith(USAGE + "\nThis tool describes kraft metadata quorum status.\n")
    assert "\noptional arguments:\n" in result.out


def test_the_usage_line_wraps_at_the_text_width_as_argparse4j_does():
    assert usage_line(width=60) == (
        "usage: kafka-metadata-quorum [-h]\n" + "\n".join(" " * 29 + part for part in (
            "[--command-config COMMAND_CONFIG]", "(--bootstrap-server BOOTSTRAP_SERVER", "|",
            "--bootstrap-controller BOOTSTRAP_CONTROLLER)", "{describe,add-controller,remove-controller}", "...")))
    assert usage_line(width=120) == (
        "usage: kafka-metadata-quorum [-h] [--command-config COMMAND_CONFIG] (--bootstrap-server BOOTSTRAP_SERVER |\n"
        + " " * 29 + "--bootstrap-controller BOOTSTRAP_CONTROLLER)\n"
        + " " * 29 + "{describe,add-controller,remove-controller} ...")
    assert usage_line("remove-controller", 75) == "\n".join((
        "usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |",
        *(" " * 29 + line for line in ("--bootstrap-controller BOOTSTRAP_CONTROLLER)", "remove-controller [-h]",
                                       "--controller-id CONTROLLER_ID",
                                       "--controller-directory-id CONTROLLER_DIRECTORY_ID", "[--dry-run]"))))


def test_a_sub_commands_help_has_its_own_usage_line(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "75")
    result = cli("metadata-quorum", "--bootstrap-server", "h:1", "describe", "--help")
    assert result.code == 0 and result.out.startswith(
        "usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |\n"
        "                             --bootstrap-controller BOOTSTRAP_CONTROLLER)\n"
        "                             describe [-h] [--status] [--replication]\n"
        "                             [--human-readable]\n\n")


def test_a_missing_command_config_file_is_reported_first(cli, tmp_path):
    missing = str(tmp_path / "admin.properties")
    result = cli("metadata-quorum", "--bootstrap-controller", "h:1", "--command-config", missing, "describe")
    assert (result.code, result.out, result.err) == (1, "", f"Properties file {missing} does not exists!\n")


def test_kafka_pythons_answer_becomes_quorum_info():
    described = {"topics": [{"partitions": [{
        "leader_id": 1001, "leader_epoch": 3, "high_watermark": 40, "error": None,
        "current_voters": [{"replica_id": 1001, "replica_directory_id": None, "log_end_offset": 40,
                            "last_fetch_timestamp": 5, "last_caught_up_timestamp": 5}],
        "observers": [{"replica_id": 1, "replica_directory_id": "cb025902-d6d4-b3f7-c7ab-85863373a8dd",
                       "log_end_offset": 39, "last_fetch_timestamp": -1, "last_caught_up_timestamp": -1}]}]}],
        "nodes": [{"node_id": 1001, "listeners": [{"name": "CONTROLLER", "host": "::1", "port": 9093}]}]}
    info = quorum_info(described)
    assert info.leader().replica_directory_id == "AAAAAAAAAAAAAAAAAAAAAA"
    assert info.observers[0].replica_directory_id == "ywJZAtbUs_fHq4WGM3Oo3Q"
    assert info.observers[0].last_fetch_timestamp is None
    assert info.endpoints == {1001: ("CONTROLLER://[::1]:9093",)}


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=2, controllers=3, seed=12).start()
    yield c
    c.stop()


@pytest.mark.live
def test_status_reports_the_quorum_the_cluster_sees(cluster, cli):
    result = cli("metadata-quorum", "--bootstrap-server", cluster.bootstrap_servers, "describe", "--status")
    assert result.code == 0 and result.err == ""
    lines = dict(re.match(r"(\w+):\s+(.*)", line).groups() for line in result.out.splitlines())
    assert list(lines) == ["ClusterId", "LeaderId", "LeaderEpoch", "HighWatermark", "MaxFollowerLag",
                           "MaxFollowerLagTimeMs", "CurrentVoters", "CurrentObservers"]
    assert lines["ClusterId"] == cluster.cluster_id
    assert int(lines["LeaderId"]) == cluster.active_controller
    for voter in cluster.controller_ids:
        assert f'{{"id": {voter}, "endpoints": ["CONTROLLER://127.0.0.1:' in lines["CurrentVoters"]
    assert re.fullmatch(r'\[\{"id": 1, "directoryId": "[\w-]{22}"\}, \{"id": 2, "directoryId": "[\w-]{22}"\}\]',
                        lines["CurrentObservers"])


@pytest.mark.live
def test_replication_lists_leader_followers_then_observers(cluster, cli):
    bs = cluster.bootstrap_servers
    table = cli("metadata-quorum", "--bootstrap-server", bs, "describe", "--replication").out.splitlines()
    assert table[0].split() == ["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                                "LastCaughtUpTimestamp", "Status"]
    assert [row.split()[-1] for row in table[1:]] == ["Leader", "Follower", "Follower", "Observer", "Observer"]
    assert all(row.endswith("\t") for row in table)
    human = cli("metadata-quorum", "--bootstrap-server", bs, "describe", "--replication", "--human-readable").out
    assert re.search(r"\t\d+ ms ago\s*\t", human)


@pytest.mark.live
def test_controller_only_features_say_they_are_not_available(cluster, cli):
    result = cli("metadata-quorum", "--bootstrap-controller", "h:1", "describe", "--status")
    assert result.code == 1 and "not available" in result.err
