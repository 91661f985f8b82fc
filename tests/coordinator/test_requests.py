from minikafka.common.errors import Errors
from minikafka.coordinator.requests import (
    LeaveGroupRequest, LeaveGroupResponse, MemberResponse, OffsetCommitRequest,
    OffsetCommitRequestPartition, OffsetCommitRequestTopic, OffsetCommitResponse, OffsetFetchRequest,
    client_host_of,
)


def test_leave_group_v0_to_v2_error_is_the_top_level_one_or_the_first_member_error():
    assert LeaveGroupResponse(Errors.COORDINATOR_NOT_AVAILABLE).legacy_error_code() \
        is Errors.COORDINATOR_NOT_AVAILABLE
    mixed = LeaveGroupResponse(members=(MemberResponse("a", None), MemberResponse("b", None,
                                                                                  Errors.UNKNOWN_MEMBER_ID)))
    assert mixed.legacy_error_code() is Errors.UNKNOWN_MEMBER_ID
    assert LeaveGroupResponse(members=(MemberResponse("a", None),)).legacy_error_code() is Errors.NONE


def test_single_forms_of_old_versions():
    assert LeaveGroupRequest.single("g", "m").members[0].member_id == "m"
    assert OffsetFetchRequest.single("g", None).groups[0].topics is None


def test_offset_commit_error_response_covers_every_partition():
    request = OffsetCommitRequest("g", (OffsetCommitRequestTopic("t", (
        OffsetCommitRequestPartition(0, 1), OffsetCommitRequestPartition(3, 1))),))
    response = OffsetCommitResponse.all_failed(request, Errors.NOT_COORDINATOR)
    assert [(p.partition_index, p.error_code) for p in response.topics[0].partitions] == [
        (0, Errors.NOT_COORDINATOR), (3, Errors.NOT_COORDINATOR)]


def test_client_host_is_printed_like_java_inet_address():
    assert client_host_of("127.0.0.1") == "/127.0.0.1"
    assert client_host_of("/10.0.0.2") == "/10.0.0.2"
