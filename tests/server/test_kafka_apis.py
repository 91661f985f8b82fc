"""`KafkaApis`: the explicit table, and the Protocols the handlers declare, checked against `BrokerServer`."""

from __future__ import annotations

import inspect

import pytest

from minikafka.network.api_keys import API_KEYS
from minikafka.network.api_versions import ADVERTISED_API_VERSIONS
from minikafka.server import apis
from minikafka.server.broker_server import BrokerServer
from minikafka.server.kafka_apis import HANDLERS, KafkaApisBroker
from tests.server.apis.dataplane_harness import start_cluster


def protocol_members(protocol: type) -> set[str]:
    """The attribute and method names a Protocol (and its bases) declare."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls in (object,) or cls.__module__ == "typing":
            continue
        names |= {n for n in vars(cls) if not n.startswith("_")}
        names |= set(getattr(cls, "__annotations__", {}))
    return names


def test_every_advertised_api_has_its_handler_in_the_table():
    assert set(HANDLERS) == set(ADVERTISED_API_VERSIONS)


def test_each_handler_lives_in_the_apis_package_and_is_named_for_its_api():
    for key, handler in HANDLERS.items():
        assert handler.__module__.startswith(apis.__name__ + "."), handler
        words = API_KEYS[key].enum_name.lower()
        assert handler.__name__ == f"handle_{words}", (key, handler.__name__)


def test_no_handler_takes_an_untyped_broker():
    for handler in HANDLERS.values():
        annotation = inspect.signature(handler).parameters["broker"].annotation
        assert annotation not in ("Any", inspect.Parameter.empty), handler


@pytest.fixture(scope="module")
def broker():
    cluster = start_cluster(seed=3, brokers=1)
    yield cluster.processes.node(1).broker
    cluster.stop()


def test_the_broker_server_offers_everything_the_handlers_declare(broker):
    assert isinstance(broker, BrokerServer)
    missing = sorted(name for name in protocol_members(KafkaApisBroker) if not hasattr(broker, name))
    assert missing == []
