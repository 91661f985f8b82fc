import pytest

from minikafka.common.errors import Errors
from minikafka.controller.configuration_control_manager import (DEFAULT_CONFIG, DYNAMIC_BROKER_CONFIG,
                                                                DYNAMIC_DEFAULT_BROKER_CONFIG, DYNAMIC_TOPIC_CONFIG,
                                                                STATIC_BROKER_CONFIG, ConfigurationControlManager)
from minikafka.controller.requests import (AlterableConfig as C, AlterConfigOpType as Op, AlterConfigsRequest,
                                           AlterConfigsResource as R, IncrementalAlterConfigsRequest)
from minikafka.metadata.delta import replay_all
from minikafka.metadata.image import EMPTY_IMAGE
from minikafka.metadata.records import ConfigRecord

from tests.controller.harness import ControllerHarness

TOPIC, BROKER = 2, 4


@pytest.fixture
def h():
    harness = ControllerHarness()
    harness.activate()
    harness.start_brokers(1, 2)
    harness.create_topic("t")
    return harness


def incremental(h, *resources, validate_only=False):
    response = h.request(IncrementalAlterConfigsRequest(tuple(resources), validate_only))
    return [(r.resource_type, r.resource_name, r.error_code, r.error_message) for r in response.responses]


def topic_configs(h, name="t"):
    return dict(h.controller.committed_image.configs.topic_config(name))


def test_set_append_subtract_delete(h):
    assert incremental(h, R(TOPIC, "t", (C("retention.ms", "1000"), C("cleanup.policy", "compact", Op.APPEND)))) \
        == [(TOPIC, "t", Errors.NONE, None)]
    assert topic_configs(h) == {"retention.ms": "1000", "cleanup.policy": "delete,compact"}
    incremental(h, R(TOPIC, "t", (C("cleanup.policy", "delete", Op.SUBTRACT), C("retention.ms", None, Op.DELETE))))
    assert topic_configs(h) == {"cleanup.policy": "compact"}


def test_unchanged_topic_value_writes_no_record_but_broker_values_always_do(h):
    incremental(h, R(TOPIC, "t", (C("retention.ms", "1000"),)))
    before = len(h.raft.all_records())
    incremental(h, R(TOPIC, "t", (C("retention.ms", "1000"),)))
    assert len(h.raft.all_records()) == before
    incremental(h, R(BROKER, "1", (C("log.retention.ms", "5"),)))
    incremental(h, R(BROKER, "1", (C("log.retention.ms", "5"),)))
    assert [r for r in h.raft.all_records()[before:] if isinstance(r, ConfigRecord)] == [
        ConfigRecord(resource_type=BROKER, resource_name="1", name="log.retention.ms", value="5")] * 2


@pytest.mark.parametrize("resource, error, message", [
    (R(TOPIC, "t", (C("retention.ms", "5", Op.APPEND),)), Errors.INVALID_CONFIG,
     "Can't APPEND to key retention.ms because its type is not LIST."),
    (R(TOPIC, "t", (C("foo", "5"),)), Errors.INVALID_CONFIG, "Unknown topic config name: foo"),
    (R(TOPIC, "t", (C("min.insync.replicas", "0"),)), Errors.INVALID_CONFIG,
     "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"),
    (R(TOPIC, "nope", (C("retention.ms", "5"),)), Errors.UNKNOWN_TOPIC_OR_PARTITION,
     "The topic 'nope' does not exist."),
    (R(TOPIC, "", (C("retention.ms", "5"),)), Errors.INVALID_REQUEST, "Default topic resources are not allowed."),
    (R(BROKER, "9", (C("log.retention.ms", "5"),)), Errors.BROKER_ID_NOT_REGISTERED, "No node with id 9 found."),
    (R(BROKER, "x", (C("log.retention.ms", "5"),)), Errors.INVALID_REQUEST,
     "Unable to parse broker name as a base 10 number."),
    (R(BROKER, "-3", (C("log.retention.ms", "5"),)), Errors.INVALID_REQUEST, "Invalid negative broker ID."),
    (R(0, "1", (C("x", "5"),)), Errors.UNSUPPORTED_VERSION, "Unknown resource type 0."),
])
def test_errors(h, resource, error, message):
    before = len(h.raft.all_records())
    assert incremental(h, resource) == [(resource.resource_type, resource.resource_name, error, message)]
    assert len(h.raft.all_records()) == before


def test_one_bad_resource_does_not_block_the_others(h):
    answers = incremental(h, R(TOPIC, "t", (C("foo", "1"),)), R(BROKER, "", (C("log.retention.ms", "7"),)))
    assert [a[2] for a in answers] == [Errors.INVALID_CONFIG, Errors.NONE]
    # beside the cluster-level min.insync.replicas that an ELR bootstrap writes
    assert dict(h.controller.committed_image.configs.broker_config("")) == {"log.retention.ms": "7",
                                                                          "min.insync.replicas": "1"}


def test_duplicate_resource_and_validate_only(h):
    answers = incremental(h, R(TOPIC, "t", (C("retention.ms", "1"),)), R(TOPIC, "t", (C("retention.ms", "2"),)))
    assert answers == [(TOPIC, "t", Errors.INVALID_REQUEST, "Duplicate resource.")]
    assert incremental(h, R(TOPIC, "t", (C("retention.ms", "3"),)), validate_only=True)[0][2] is Errors.NONE
    assert topic_configs(h) == {}


def test_legacy_alter_configs_replaces_the_whole_set(h):
    incremental(h, R(TOPIC, "t", (C("retention.ms", "1000"), C("segment.ms", "5000"))))
    response = h.request(AlterConfigsRequest((R(TOPIC, "t", (C("segment.ms", "6000"),)),)))
    assert response.responses[0].error_code is Errors.NONE
    assert topic_configs(h) == {"segment.ms": "6000"}


def test_effective_value_resolution_order():
    control = ConfigurationControlManager(1001, {"log.retention.hours": "2"})
    image = EMPTY_IMAGE
    assert control.resolve_topic_config(image, "retention.ms", {}) == (str(2 * 3600 * 1000), STATIC_BROKER_CONFIG)
    image = replay_all([ConfigRecord(resource_type=BROKER, resource_name="", name="log.retention.ms", value="7")])
    assert control.resolve_topic_config(image, "retention.ms", {}) == ("7", DYNAMIC_DEFAULT_BROKER_CONFIG)
    image = replay_all([ConfigRecord(resource_type=BROKER, resource_name="1001", name="log.retention.ms",
                                     value="8")], image)
    assert control.resolve_topic_config(image, "retention.ms", {}) == ("8", DYNAMIC_BROKER_CONFIG)
    assert control.resolve_topic_config(image, "retention.ms", {"retention.ms": "9"}) == ("9", DYNAMIC_TOPIC_CONFIG)
    assert control.resolve_topic_config(image, "segment.bytes", {}) == ("1073741824", DEFAULT_CONFIG)


def test_unclean_leader_election_enable_from_topic_or_broker():
    control = ConfigurationControlManager(1001, {"unclean.leader.election.enable": "true"})
    assert control.unclean_leader_election_enabled(EMPTY_IMAGE, "t")
    image = replay_all([ConfigRecord(resource_type=TOPIC, resource_name="t", name="unclean.leader.election.enable",
                                     value="false")])
    assert not control.unclean_leader_election_enabled(image, "t")
