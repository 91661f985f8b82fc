import pytest

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller.requests import (BrokerHeartbeatRequest, BrokerRegistrationRequest,
                                           ControllerRegistrationRequest, Feature, Listener,
                                           UnregisterBrokerRequest)
from minikafka.metadata.partition_registration import DirectoryId
from minikafka.metadata.records import BrokerRegistrationChangeRecord, RegisterControllerRecord

from tests.controller.harness import BROKER_FEATURES, CLUSTER_ID, ControllerHarness


@pytest.fixture
def h():
    harness = ControllerHarness()
    harness.activate()
    return harness


def registration(broker_id=1, incarnation=Uuid(1, 7), cluster_id=CLUSTER_ID, features=BROKER_FEATURES,
                 log_dirs=(Uuid(1, 1001),)):
    return BrokerRegistrationRequest(broker_id, cluster_id, incarnation, (Listener("PLAINTEXT", "localhost", 9092),),
                                     features, None, log_dirs=log_dirs)


def test_new_broker_is_registered_fenced_and_unfenced_once_caught_up(h):
    response = h.register(1)
    broker = h.controller.committed_image.cluster.broker(1)
    assert broker.fenced and broker.epoch == response.broker_epoch
    behind = h.heartbeat(1, offset=response.broker_epoch - 1)
    assert (behind.is_caught_up, behind.is_fenced) == (False, True)
    caught_up = h.heartbeat(1, offset=response.broker_epoch)
    assert (caught_up.is_caught_up, caught_up.is_fenced) == (True, False)
    assert not h.controller.committed_image.cluster.broker(1).fenced
    assert [e.kind for e in h.events() if e.kind.startswith("broker")] == ["broker_registered", "broker_unfenced"]


def test_cordoned_log_dirs_are_recorded_at_the_first_heartbeat_of_each_registration(h):
    # KIP-1066, as a real Kafka 4.3.1 controller logs it: RegisterBrokerRecord (cordoned dirs null),
    # then the first heartbeat's empty list as a BrokerRegistrationChangeRecord v3, then the unfence.
    def heartbeat(offset, cordoned=()):
        return h.request(BrokerHeartbeatRequest(1, h.epochs[1], offset, cordoned_log_dirs=cordoned))

    def written(since):
        return h.raft.all_records()[since:]
    first = h.register(1)
    assert h.controller.committed_image.cluster.broker(1).cordoned_directories is None
    start = len(h.raft.all_records())
    heartbeat(first.broker_epoch - 1)                              # still catching up: stays fenced
    heartbeat(first.broker_epoch)                                  # caught up: unfenced, same dirs
    heartbeat(first.broker_epoch, cordoned=None)                   # no report: nothing to compare
    assert written(start) == [BrokerRegistrationChangeRecord(1, first.broker_epoch, cordoned_log_dirs=()),
                              BrokerRegistrationChangeRecord(1, first.broker_epoch, fenced=-1)]
    assert h.controller.committed_image.cluster.broker(1).cordoned_directories == ()
    h.tick(2000)                                                   # the session expires: fenced
    again = h.register(1, incarnation=Uuid(1, 8))
    start = len(h.raft.all_records())
    heartbeat(again.broker_epoch - 1)
    assert written(start) == [BrokerRegistrationChangeRecord(1, again.broker_epoch, cordoned_log_dirs=())]


def test_same_incarnation_keeps_epoch_and_state_new_incarnation_gets_a_new_epoch(h):
    first = h.register(1)
    h.heartbeat(1)
    again = h.register(1)
    assert again.broker_epoch == first.broker_epoch
    assert not h.controller.committed_image.cluster.broker(1).fenced
    h.tick(2000)                                     # the old session expires: broker 1 is fenced
    restarted = h.register(1, incarnation=Uuid(1, 8))
    assert restarted.broker_epoch > first.broker_epoch
    assert h.controller.committed_image.cluster.broker(1).fenced


def test_another_live_process_with_the_same_id_is_refused(h):
    h.register(1)
    h.heartbeat(1)
    response = h.request(registration(incarnation=Uuid(9, 9)))
    assert response.error_code is Errors.DUPLICATE_BROKER_REGISTRATION


@pytest.mark.parametrize("request_, error", [
    (registration(cluster_id="other"), Errors.INCONSISTENT_CLUSTER_ID),
    (registration(log_dirs=()), Errors.INVALID_REGISTRATION),
    (registration(log_dirs=(DirectoryId.UNASSIGNED,)), Errors.INVALID_REGISTRATION),
    (registration(log_dirs=(Uuid(1, 1001), Uuid(1, 1001))), Errors.INVALID_REGISTRATION),
    (registration(features=(Feature("metadata.version", 7, 26),)), Errors.UNSUPPORTED_VERSION),
    (registration(features=(Feature("metadata.version", 7, 27),)), Errors.UNSUPPORTED_VERSION),
])
def test_registration_errors(h, request_, error):
    assert h.request(request_).error_code is error
    assert h.controller.committed_image.cluster.broker(1) is None


def test_directory_owned_by_another_broker_is_refused(h):
    h.register(1)
    response = h.request(registration(broker_id=2, incarnation=Uuid(2, 7), log_dirs=(Uuid(1, 1001),)))
    assert response.error_code is Errors.INVALID_REGISTRATION


def test_registration_error_messages():
    from minikafka.controller.cluster_control_manager import ClusterControlManager
    from minikafka.common.errors import KafkaException
    h = ControllerHarness()
    h.activate()
    cases = {
        registration(cluster_id="other"): f"Expected cluster ID {CLUSTER_ID}, but got cluster ID other",
        registration(log_dirs=()): "No directories specified in request",
        registration(features=(Feature("metadata.version", 7, 27),)):
            "Unable to register because the broker does not support finalized version 30 of metadata.version. "
            "The broker wants a version between 7 and 27, inclusive.",
        registration(features=(Feature("metadata.version", 7, 30),)):
            "Unable to register because the broker does not support finalized version 1 of group.version. "
            "The broker wants a version between 0 and 0, inclusive.",
    }
    control: ClusterControlManager = h.controller.cluster_control
    for request, message in cases.items():
        with pytest.raises(KafkaException) as info:
            control.register_broker(h.controller.image, request, 99, h.now)
        assert info.value.message == message


def test_heartbeat_before_registration_and_with_stale_epoch(h):
    early = h.request(BrokerHeartbeatRequest(5, 3, 0))
    assert early.error_code is Errors.STALE_BROKER_EPOCH
    h.register(1)
    stale = h.request(BrokerHeartbeatRequest(1, h.epochs[1] - 1, 100))
    assert stale.error_code is Errors.STALE_BROKER_EPOCH


def test_unregister_broker(h):
    h.start_brokers(1, 2)
    assert h.request(UnregisterBrokerRequest(2)).error_code is Errors.NONE
    assert h.controller.committed_image.cluster.broker(2) is None
    missing = h.request(UnregisterBrokerRequest(2))
    assert (missing.error_code, missing.error_message) == (Errors.BROKER_ID_NOT_REGISTERED,
                                                          "Broker ID 2 is not currently registered")


def test_controller_registration_writes_register_controller_record(h):
    request = ControllerRegistrationRequest(1001, Uuid(3, 3), False, (Listener("CONTROLLER", "localhost", 9093),),
                                            (Feature("metadata.version", 7, 27),))
    assert h.request(request).error_code is Errors.NONE
    record = [r for r in h.raft.all_records() if isinstance(r, RegisterControllerRecord)][0]
    assert (record.controller_id, record.end_points[0].port) == (1001, 9093)
    assert 1001 in h.controller.committed_image.cluster.controllers
