"""The controller's parts are collaborators given what they use, not mixins."""

from minikafka.controller.leader_and_isr import LeaderAndIsrControl
from minikafka.controller.partition_reassignment import PartitionReassignmentControl
from minikafka.controller.quorum_controller import QuorumController
from minikafka.controller.quorum_controller_requests import QuorumControllerRequests
from minikafka.controller.replication_control_manager import ReplicationControlManager

from tests.controller.harness import ControllerHarness


def test_no_controller_class_is_assembled_from_mixins():
    for cls in (QuorumController, QuorumControllerRequests, ReplicationControlManager, LeaderAndIsrControl,
                PartitionReassignmentControl):
        assert cls.__bases__ == (object,), cls


def test_the_collaborators_share_the_controllers_managers():
    h = ControllerHarness()
    controller = h.controller
    rcm = controller.replication_control
    assert rcm.leader_and_isr.cluster_control is controller.cluster_control
    assert rcm.leader_and_isr.configuration_control is controller.configuration_control
    assert rcm.reassignment.leader_and_isr is rcm.leader_and_isr
    requests = controller.requests
    assert requests.controller is controller
    assert requests.replication_control is rcm and requests.cluster_control is controller.cluster_control
