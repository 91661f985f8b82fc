from minikafka.common.errors import Errors
from minikafka.coordinator.find_coordinator import (
    NO_NODE, Endpoint, find_coordinator, locate_group_coordinator,
)
from minikafka.coordinator.group_coordinator import partition_for
from minikafka.coordinator.requests import FindCoordinatorRequest

BROKER_2 = Endpoint(2, "127.0.0.1", 39092)


def _leaders(p):
    return BROKER_2 if p == partition_for("demo", 50) else None


def _lookup(key_type, key):
    return locate_group_coordinator(key, 50, True, _leaders)


def test_the_leader_of_the_groups_partition_is_the_coordinator():
    assert locate_group_coordinator("demo", 50, True, _leaders) == (Errors.NONE, BROKER_2)


def test_missing_topic_or_leader_is_coordinator_not_available():
    assert locate_group_coordinator("demo", 50, False, _leaders) == \
        (Errors.COORDINATOR_NOT_AVAILABLE, NO_NODE)
    assert locate_group_coordinator("other", 50, True, _leaders)[0] is Errors.COORDINATOR_NOT_AVAILABLE


def test_v3_answers_with_top_level_fields():
    response = find_coordinator(FindCoordinatorRequest(key="demo", api_version=3), _lookup)
    assert (response.error_code, response.error_message, response.node_id, response.host, response.port) \
        == (Errors.NONE, "NONE", 2, "127.0.0.1", 39092)


def test_v3_error_carries_no_node_and_the_default_message():
    response = find_coordinator(FindCoordinatorRequest(key="other", api_version=2), _lookup)
    assert (response.error_code, response.node_id, response.host, response.port) == (
        Errors.COORDINATOR_NOT_AVAILABLE, -1, "", -1)
    assert response.error_message == "The coordinator is not available."


def test_v4_answers_per_key():
    response = find_coordinator(FindCoordinatorRequest(coordinator_keys=("demo", "other"), api_version=4),
                                _lookup)
    assert [(c.key, c.error_code, c.node_id) for c in response.coordinators] == [
        ("demo", Errors.NONE, 2), ("other", Errors.COORDINATOR_NOT_AVAILABLE, -1)]


def test_share_keys_need_v6_and_unknown_types_are_invalid():
    old = find_coordinator(FindCoordinatorRequest(key_type=2, coordinator_keys=("s",), api_version=5),
                           _lookup)
    assert old.coordinators[0].error_code is Errors.INVALID_REQUEST
    odd = find_coordinator(FindCoordinatorRequest(key="x", key_type=9, api_version=3), _lookup)
    assert odd.error_code is Errors.INVALID_REQUEST
