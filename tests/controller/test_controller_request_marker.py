"""A node hands a message to its controller role by type: every controller request is a `ControllerRequest`."""

from __future__ import annotations

import inspect

from minikafka.controller import requests
from minikafka.controller.requests import ControllerRequest
from minikafka.raft import messages as raft_messages
from minikafka.server.fetch import FetchRequest


def test_every_request_of_the_controller_module_carries_the_marker():
    classes = [c for _, c in inspect.getmembers(requests, inspect.isclass) if c.__module__ == requests.__name__]
    request_classes = {c for c in classes if c.__name__.endswith("Request") and c is not ControllerRequest}
    assert len(request_classes) == 14
    assert all(issubclass(c, ControllerRequest) for c in request_classes)
    assert not any(issubclass(c, ControllerRequest) for c in set(classes) - request_classes - {ControllerRequest})


def test_other_layers_requests_are_not_controller_requests():
    assert not issubclass(FetchRequest, ControllerRequest)
    assert not issubclass(raft_messages.DescribeQuorumRequest, ControllerRequest)


def test_the_marker_keeps_the_requests_slotted():
    request = requests.UnregisterBrokerRequest(1)
    assert not hasattr(request, "__dict__")
