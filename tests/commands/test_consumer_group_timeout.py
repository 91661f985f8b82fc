"""``minikafka consumer-groups --timeout``: retriable coordinator answers are retried until it runs out.

A stand-in coordinator (`Coordinator`) answers one request type with an error,
for a few requests or for ever, in place of the cluster; the lookups and every
other request reach the live cluster.  Each test asserts what the tool prints,
never how long it took.
"""

import re
import socket
import time

import pytest
from kafka import KafkaConsumer, TopicPartition
from kafka.errors import RequestTimedOutError
from kafka.protocol.admin import DeleteGroupsResponse, DescribeGroupsResponse
from kafka.protocol.consumer.group import OffsetCommitResponse, OffsetDeleteResponse
from kafka.protocol.metadata import FindCoordinatorResponse
from kafka.structs import OffsetAndMetadata

from minikafka import Cluster
from minikafka.commands.admin_client import AdminConnection
from minikafka.commands.coordinator_call import backoff_ms
from minikafka.common.errors import Errors

FAILED = "\nError: Executing consumer group command failed due to "
TIMEOUT = "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: "
HEADER = "\nTOPIC           PARTITION  STATUS         "
LOADING = Errors.COORDINATOR_LOAD_IN_PROGRESS.code
NOT_AVAILABLE = Errors.COORDINATOR_NOT_AVAILABLE.code
NOT_COORDINATOR = Errors.NOT_COORDINATOR.code
CLUSTER_SEND = AdminConnection.send              # the real thing, whatever a test put in its place


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=1, controllers=1, seed=61).start()
    c.create_topic("clicks", 1, 1)
    yield c
    c.stop()


def commit(cluster, group: str, offset: int) -> None:
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, group_id=group, enable_auto_commit=False)
    try:
        consumer.commit({TopicPartition("clicks", 0): OffsetAndMetadata(offset, "", -1)})
    finally:
        consumer.close()


class Coordinator:
    """Answers requests of ``api_key`` with ``answer(request, error)``: the errors in turn, then the cluster's
    own answers (the last error for ever if ``forever``)."""

    def __init__(self, monkeypatch, api_key: int, answer, *errors: int, forever: bool = False):
        self.api_key, self.answer, self.errors, self.forever = api_key, answer, list(errors), forever
        self.asked = 0
        self.lookups = 0

        def send(connection, request, call_name, node_id=None, request_timeout_ms=None):
            self.lookups += request.API_KEY == 10
            if request.API_KEY == self.api_key and (self.forever or self.asked < len(self.errors)):
                self.asked += 1
                return self.answer(request, self.errors[min(self.asked, len(self.errors)) - 1])
            return CLUSTER_SEND(connection, request, call_name, node_id=node_id,
                                request_timeout_ms=request_timeout_ms)
        monkeypatch.setattr(AdminConnection, "send", send)


def offset_delete(request, error: int):
    return OffsetDeleteResponse(version=0, error_code=error, throttle_time_ms=0, topics=[])


def find_coordinator(request, error: int):
    return FindCoordinatorResponse(version=4, throttle_time_ms=0, coordinators=[
        FindCoordinatorResponse.Coordinator(key=k, node_id=-1, host="", port=-1, error_code=error, error_message=None)
        for k in request.coordinator_keys])


def describe_groups(request, error: int):
    return DescribeGroupsResponse(version=5, throttle_time_ms=0, groups=[DescribeGroupsResponse.DescribedGroup(
        error_code=error, group_id=g, group_state="", protocol_type="", protocol_data="", members=[],
        authorized_operations=-2147483648) for g in request.groups])


def delete_groups(request, error: int):
    return DeleteGroupsResponse(version=2, throttle_time_ms=0, results=[
        DeleteGroupsResponse.DeletableGroupResult(group_id=g, error_code=error) for g in request.groups_names])


def offset_commit(request, error: int):
    Topic = OffsetCommitResponse.OffsetCommitResponseTopic
    return OffsetCommitResponse(version=request.API_VERSION, throttle_time_ms=0, topics=[
        Topic(name=t.name, partitions=[Topic.OffsetCommitResponsePartition(partition_index=p.partition_index,
                                                                           error_code=error)
                                       for p in t.partitions]) for t in request.topics])


def closed_port() -> int:
    """A port nobody listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def groups_tool(cli, cluster, *args: str):
    return cli("consumer-groups", "--bootstrap-server", cluster.bootstrap_servers, *args)


@pytest.mark.live
def test_delete_offsets_gives_up_when_the_coordinator_stays_loading(cluster, cli, monkeypatch):
    commit(cluster, "loading", 3)
    coordinator = Coordinator(monkeypatch, 47, offset_delete, LOADING, forever=True)
    result = groups_tool(cli, cluster, "--delete-offsets", "--group", "loading", "--topic", "clicks:0",
                         "--timeout", "1500")     # room for a retry on a busy machine
    assert result.out == ("\nError: Encountered some unknown error: REQUEST_TIMED_OUT\n" + HEADER
                          + f"\nclicks          0          Error: {TIMEOUT}offsetDelete(api=OFFSET_DELETE)\n")
    assert (result.code, result.err) == (0, "") and coordinator.asked > 1


@pytest.mark.live
def test_delete_offsets_finds_a_moved_coordinator_again_and_succeeds(cluster, cli, monkeypatch):
    commit(cluster, "moved", 3)
    coordinator = Coordinator(monkeypatch, 47, offset_delete, NOT_COORDINATOR, NOT_AVAILABLE, LOADING)
    result = groups_tool(cli, cluster, "--delete-offsets", "--group", "moved", "--topic", "clicks:0")
    assert result.out == ("Request succeeded for deleting offsets from group moved.\n" + HEADER
                          + "\nclicks          0          Successful     \n")
    # NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE send the group back to FindCoordinator; LOADING does not.
    assert (coordinator.asked, coordinator.lookups) == (3, 3)


@pytest.mark.live
def test_a_lookup_that_stays_unavailable_times_out_in_the_lookup(cluster, cli, monkeypatch):
    commit(cluster, "lookup", 1)
    Coordinator(monkeypatch, 10, find_coordinator, NOT_AVAILABLE, forever=True)
    result = groups_tool(cli, cluster, "--describe", "--group", "lookup", "--timeout", "300")
    assert result.out == f"{FAILED}{TIMEOUT}describeConsumerGroups(api=FIND_COORDINATOR)\n"


@pytest.mark.live
def test_a_coordinator_still_being_created_is_waited_for(cluster, cli, monkeypatch):
    commit(cluster, "created", 1)
    coordinator = Coordinator(monkeypatch, 10, find_coordinator, NOT_AVAILABLE, NOT_AVAILABLE, LOADING)
    result = groups_tool(cli, cluster, "--describe", "--group", "created")
    assert result.err == "\nConsumer group 'created' has no active members.\n"
    assert "\ncreated         clicks          0          1               0               -1" in result.out
    assert coordinator.asked == 3


@pytest.mark.live
def test_describe_gives_up_on_a_loading_coordinator(cluster, cli, monkeypatch):
    Coordinator(monkeypatch, 15, describe_groups, LOADING, forever=True)
    result = groups_tool(cli, cluster, "--describe", "--group", "anything", "--timeout", "300")
    assert result.out == f"{FAILED}{TIMEOUT}describeConsumerGroups(api=DESCRIBE_GROUPS)\n"


@pytest.mark.live
def test_describe_gives_up_when_the_committed_offsets_stay_loading(cluster, cli, monkeypatch):
    commit(cluster, "fetching", 1)

    def send(connection, request, call_name, node_id=None, request_timeout_ms=None):
        response = CLUSTER_SEND(connection, request, call_name, node_id=node_id, request_timeout_ms=request_timeout_ms)
        if request.API_KEY == 9:                  # OffsetFetch: the coordinator's answer, made "still loading"
            for group in response.groups if response.API_VERSION >= 8 else [response]:
                group.error_code = LOADING
        return response
    monkeypatch.setattr(AdminConnection, "send", send)
    result = groups_tool(cli, cluster, "--describe", "--group", "fetching", "--timeout", "300")
    # Kafka's getCommittedOffsets wraps the ExecutionException in a RuntimeException: both classes show.
    assert result.out == f"{FAILED}java.util.concurrent.ExecutionException: {TIMEOUT}offsetFetch(api=OFFSET_FETCH)\n"


@pytest.mark.live
def test_delete_reports_the_timeout_as_the_groups_failure(cluster, cli, monkeypatch):
    Coordinator(monkeypatch, 42, delete_groups, NOT_COORDINATOR, forever=True)
    result = groups_tool(cli, cluster, "--delete", "--group", "doomed", "--timeout", "300")
    assert result.out == ("\nError: Deletion of some consumer groups failed:\n* Group 'doomed' could not be "
                          f"deleted due to: {TIMEOUT}deleteConsumerGroups(api=DELETE_GROUPS)\n")


@pytest.mark.live
def test_reset_execute_gives_up_on_a_loading_coordinator_and_recovers_from_one(cluster, cli, monkeypatch):
    commit(cluster, "rewind", 1)
    args = ("--reset-offsets", "--group", "rewind", "--topic", "clicks", "--to-offset", "0", "--execute")
    Coordinator(monkeypatch, 8, offset_commit, LOADING, forever=True)
    result = groups_tool(cli, cluster, *args, "--timeout", "300")
    assert result.out == f"{FAILED}Timed out waiting for a node assignment. Call: offsetCommit(api=OFFSET_COMMIT)\n"
    Coordinator(monkeypatch, 8, offset_commit, LOADING, NOT_COORDINATOR)
    result = groups_tool(cli, cluster, *args)
    assert result.out.endswith("\nrewind          clicks          0          0\n")


@pytest.mark.live
def test_a_request_sent_and_never_answered_times_out_with_the_calls_own_text(cluster, cli, monkeypatch):
    commit(cluster, "silent", 1)

    def send(connection, request, call_name, node_id=None, request_timeout_ms=None):
        if request.API_KEY != 47:
            return CLUSTER_SEND(connection, request, call_name, node_id=node_id,
                                request_timeout_ms=request_timeout_ms)
        time.sleep(request_timeout_ms / 1000)     # no answer: kafka-python gives up after the request's timeout
        raise RequestTimedOutError(f"Request timed out after {request_timeout_ms} ms")
    monkeypatch.setattr(AdminConnection, "send", send)
    result = groups_tool(cli, cluster, "--delete-offsets", "--group", "silent", "--topic", "clicks:0",
                         "--timeout", "300")
    row = re.search(r"\nclicks {10}0 {10}Error: org\.apache\.kafka\.common\.errors\.TimeoutException: "
                    r"Call\(callName=offsetDelete\(api=OFFSET_DELETE\), deadlineMs=\d+, tries=1, "
                    r"nextAllowedTryMs=\d+\) timed out at \d+ after 1 attempt\(s\)\n$", result.out)
    assert result.out.startswith("\nError: Encountered some unknown error: REQUEST_TIMED_OUT\n" + HEADER) and row


@pytest.mark.parametrize("action, call", [(["--describe", "--group", "g"],
                                           "describeConsumerGroups(api=FIND_COORDINATOR)"),
                                          (["--list"], "findAllBrokers")])
def test_no_broker_gives_up_after_the_timeout(cli, action, call):
    result = cli("consumer-groups", "--bootstrap-server", f"127.0.0.1:{closed_port()}", *action, "--timeout", "300")
    assert (result.code, result.out) == (0, f"{FAILED}{TIMEOUT}{call}\n")


def test_delete_offsets_with_no_broker_fails_the_topic_lookup_on_its_row(cli):
    result = cli("consumer-groups", "--bootstrap-server", f"127.0.0.1:{closed_port()}", "--delete-offsets",
                 "--group", "g", "--topic", "clicks", "--timeout", "300")
    assert result.out == ("\nError: Encountered some unknown error: REQUEST_TIMED_OUT\n" + HEADER
                          + f"\nclicks          -          Error: {TIMEOUT}describeTopicPartitions\n")


def test_the_backoff_doubles_from_retry_backoff_ms_up_to_its_maximum():
    assert 80 <= backoff_ms(0) <= 120 and 160 <= backoff_ms(1) <= 240 and 320 <= backoff_ms(2) <= 480
    assert 800 <= backoff_ms(10) <= 1000


def test_the_help_shows_kafkas_default_timeout(cli):
    result = cli("consumer-groups", "--help")
    assert "--timeout <Long: timeout (ms)> How long each admin call may take, retries included (ms). " \
           "(default: 30000)" in " ".join((result.out + result.err).split())
