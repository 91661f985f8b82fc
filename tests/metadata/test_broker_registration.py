"""BrokerRegistration and ControllerRegistration built from their records."""

from __future__ import annotations

from minikafka.common.uuid import Uuid
from minikafka.metadata.broker_registration import BrokerRegistration, ControllerRegistration
from minikafka.metadata.records import (BrokerEndpoint, BrokerFeature, ControllerEndpoint, ControllerFeature,
                                        RegisterBrokerRecord, RegisterControllerRecord)

INCARNATION = Uuid(3, 3)
DIR = Uuid(9, 9)


def test_from_register_broker_record():
    record = RegisterBrokerRecord(
        broker_id=2, incarnation_id=INCARNATION, broker_epoch=12,
        end_points=[BrokerEndpoint("PLAINTEXT", "localhost", 9092, 0)],
        features=[BrokerFeature("metadata.version", 7, 27)], rack="r1", log_dirs=[DIR])
    broker = BrokerRegistration.from_record(record)
    assert (broker.id, broker.epoch, broker.incarnation_id, broker.rack) == (2, 12, INCARNATION, "r1")
    assert broker.fenced and not broker.in_controlled_shutdown
    assert broker.listener("PLAINTEXT").port == 9092 and broker.listener("SSL") is None
    assert broker.supported_feature("metadata.version") == (7, 27)
    assert broker.has_online_dir(DIR)


def test_clone_with_changes_only_what_is_given():
    broker = BrokerRegistration.from_record(RegisterBrokerRecord(broker_id=1, broker_epoch=4))
    unfenced = broker.clone_with(fenced=False)
    assert not unfenced.fenced and unfenced.epoch == 4 and broker.fenced
    assert unfenced.clone_with(in_controlled_shutdown=True).in_controlled_shutdown
    assert unfenced.clone_with(directories=(DIR,)).directories == (DIR,)
    assert unfenced.clone_with() == unfenced


def test_from_register_controller_record():
    record = RegisterControllerRecord(
        controller_id=1001, incarnation_id=INCARNATION,
        end_points=[ControllerEndpoint("CONTROLLER", "localhost", 9093, 0)],
        features=[ControllerFeature("kraft.version", 0, 1)])
    controller = ControllerRegistration.from_record(record)
    assert controller.id == 1001 and controller.listeners[0].name == "CONTROLLER"
    assert controller.supported_features == (("kraft.version", 0, 1),)
