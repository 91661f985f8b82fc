import pytest

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller import requests as rq
from minikafka.controller.controller_apis import (error_response, resolve_delete_topics, split_config_resources,
                                                  split_create_topics)
from minikafka.controller.controller_result import ApiError
from minikafka.metadata.delta import replay_all
from minikafka.metadata.records import TopicRecord

NOT_CONTROLLER = ApiError(Errors.NOT_CONTROLLER, "No controller appears to be active.")


def test_error_response_puts_the_error_on_every_item():
    create = error_response(rq.CreateTopicsRequest((rq.CreatableTopic("a"), rq.CreatableTopic("b"))), NOT_CONTROLLER)
    assert [(t.name, t.error_code, t.error_message) for t in create.topics] == [
        ("a", Errors.NOT_CONTROLLER, NOT_CONTROLLER.message), ("b", Errors.NOT_CONTROLLER, NOT_CONTROLLER.message)]
    delete = error_response(rq.DeleteTopicsRequest(topics=(rq.DeleteTopicState(None, Uuid(1, 1)),),
                                                   topic_names=("x",)), NOT_CONTROLLER)
    assert [(r.name, r.topic_id) for r in delete.responses] == [("x", Uuid.ZERO), (None, Uuid(1, 1))]
    configs = error_response(rq.IncrementalAlterConfigsRequest((rq.AlterConfigsResource(2, "t", ()),)),
                             NOT_CONTROLLER)
    assert configs.responses[0].error_code is Errors.NOT_CONTROLLER


@pytest.mark.parametrize("request_", [
    rq.BrokerRegistrationRequest(1, "c", Uuid(1, 1)), rq.BrokerHeartbeatRequest(1),
    rq.UnregisterBrokerRequest(1), rq.AlterPartitionRequest(1, 1, ()), rq.AllocateProducerIdsRequest(1),
    rq.ListPartitionReassignmentsRequest(), rq.AlterPartitionReassignmentsRequest(()),
    rq.ElectLeadersRequest(0, None), rq.ControllerRegistrationRequest(1001, Uuid(1, 1)),
])
def test_error_response_has_a_top_level_error_where_the_api_has_one(request_):
    assert error_response(request_, NOT_CONTROLLER).error_code is Errors.NOT_CONTROLLER


def test_error_response_refuses_non_controller_requests():
    with pytest.raises(TypeError):
        error_response(object(), NOT_CONTROLLER)


def test_split_create_topics():
    request = rq.CreateTopicsRequest((rq.CreatableTopic("a"), rq.CreatableTopic("b"), rq.CreatableTopic("a"),
                                      rq.CreatableTopic("a")), validate_only=True)
    kept, refused = split_create_topics(request)
    assert [t.name for t in kept.topics] == ["b"] and kept.validate_only
    assert [(r.name, r.error_message) for r in refused] == [("a", "Duplicate topic name.")]


def test_resolve_delete_topics():
    image = replay_all([TopicRecord(name="t", topic_id=Uuid(1, 1)), TopicRecord(name="u", topic_id=Uuid(2, 2))])
    to_delete, answers = resolve_delete_topics(image, rq.DeleteTopicsRequest(
        topics=(rq.DeleteTopicState("t"), rq.DeleteTopicState(None, Uuid(2, 2)), rq.DeleteTopicState(None, Uuid(2, 2)),
                rq.DeleteTopicState("zz"))))
    assert to_delete == {Uuid(1, 1): "t"}
    assert {(a.name, a.topic_id, a.error_code, a.error_message) for a in answers} == {
        (None, Uuid(2, 2), Errors.INVALID_REQUEST, "Duplicate topic id."),
        ("zz", Uuid.ZERO, Errors.UNKNOWN_TOPIC_OR_PARTITION, None)}


def test_split_config_resources_legacy_keeps_values():
    changes, answers = split_config_resources(rq.AlterConfigsRequest((
        rq.AlterConfigsResource(2, "t", (rq.AlterableConfig("retention.ms", "1", config_operation=3),)),
        rq.AlterConfigsResource(99, "x", ()))), incremental=False)
    assert list(changes.values()) == [{"retention.ms": "1"}]
    assert [(a.error_code, a.error_message) for a in answers] == [(Errors.UNSUPPORTED_VERSION,
                                                                  "Unknown resource type 99.")]
