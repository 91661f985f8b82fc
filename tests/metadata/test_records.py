"""Records: schema consistency, Kafka's API keys and versions, and the dump-log JSON form."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from minikafka.common.errors import UnsupportedVersionException
from minikafka.common.uuid import Uuid
from minikafka.metadata.records import (METADATA_RECORD_TYPE_NAMES, RECORD_TYPES, ApiMessageAndVersion,
                                        BeginTransactionRecord, BrokerEndpoint, BrokerFeature,
                                        BrokerRegistrationChangeRecord, ConfigRecord, EndTransactionRecord,
                                        NoOpRecord, PartitionChangeRecord, PartitionRecord,
                                        RegisterBrokerRecord, TopicRecord)
from minikafka.metadata.schema import ArrayOf, Struct

TOPIC_ID = Uuid.from_string("xOxBrcYuSRWgtFuZIBiXIA")
DIR_A = Uuid.from_string("SaZDxfHKu3NMZ7OnFP7YnA")
DIR_B = Uuid.from_string("uHY7hO6-42Q7O4k0zLMmtg")
DIR_C = Uuid.from_string("p2UpbSD99eygD2ZToiSMzg")


def _structs():
    seen, todo = [], list(RECORD_TYPES.values())
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.append(cls)
        todo += [s.type.element for s in cls.SCHEMA
                 if isinstance(s.type, ArrayOf) and isinstance(s.type.element, type)]
    return seen


@pytest.mark.parametrize("cls", _structs(), ids=lambda c: c.__name__)
def test_dataclass_fields_follow_the_schema(cls):
    assert [f.name for f in dataclasses.fields(cls)] == [s.attr for s in cls.SCHEMA]
    assert issubclass(cls, Struct)


@pytest.mark.parametrize("cls", _structs(), ids=lambda c: c.__name__)
def test_defaults_are_the_spec_defaults(cls):
    from minikafka.metadata.schema import implicit_default
    instance = cls()
    for spec in cls.SCHEMA:
        if spec.json_name == "Rack":
            assert instance.rack is None          # documented: what Kafka writes for no broker.rack
        else:
            assert getattr(instance, spec.attr) == implicit_default(spec), spec.json_name


def test_api_keys_and_versions_written_by_kafka_4_3():
    expected = {"RegisterBrokerRecord": (0, 4), "UnregisterBrokerRecord": (1, 0), "TopicRecord": (2, 0),
                "PartitionRecord": (3, 2), "ConfigRecord": (4, 0), "PartitionChangeRecord": (5, 2),
                "RemoveTopicRecord": (9, 0), "FeatureLevelRecord": (12, 0), "ProducerIdsRecord": (15, 0),
                "BrokerRegistrationChangeRecord": (17, 0), "NoOpRecord": (20, 0),
                "BeginTransactionRecord": (23, 0), "EndTransactionRecord": (24, 0),
                "AbortTransactionRecord": (25, 0), "RegisterControllerRecord": (27, 0),
                "ClearElrRecord": (28, 0)}
    assert {c.__name__: (c.API_KEY, c.VERSION) for c in RECORD_TYPES.values()} == expected
    assert TopicRecord.type_name() == "TOPIC_RECORD"
    for cls in RECORD_TYPES.values():       # MetadataRecordType names are the class names in SNAKE_CASE
        assert cls.type_name() == re.sub(r"(?<=[a-z])(?=[A-Z])", "_", cls.__name__).upper()
    assert METADATA_RECORD_TYPE_NAMES[17] == "BROKER_REGISTRATION_CHANGE_RECORD"


def test_no_change_defaults_of_partition_change_record():
    change = PartitionChangeRecord(partition_id=0, topic_id=TOPIC_ID)
    assert change.leader == -2 and change.isr is None and change.replicas is None
    assert change.leader_recovery_state == -1 and change.directories is None


def test_lists_are_stored_as_tuples():
    record = PartitionRecord(partition_id=0, topic_id=TOPIC_ID, replicas=[1, 2], isr=[1, 2])
    assert record.replicas == (1, 2) and record == PartitionRecord(0, TOPIC_ID, (1, 2), (1, 2))
    hash(record)


@pytest.mark.parametrize("record,version", [
    (BrokerRegistrationChangeRecord(1, 7, fenced=-1), 0),
    (BrokerRegistrationChangeRecord(1, 7, fenced=1), 0),
    (BrokerRegistrationChangeRecord(1, 7, in_controlled_shutdown=1), 1),
    (BrokerRegistrationChangeRecord(1, 7, log_dirs=(DIR_A,)), 2),
    (BrokerRegistrationChangeRecord(1, 7, cordoned_log_dirs=()), 3),
])
def test_broker_registration_change_version_follows_the_change(record, version):
    assert record.written_version() == version


# Lines printed by kafka-dump-log.sh --cluster-metadata-decoder on real clusters.
def test_json_topic_and_config_records():
    assert TopicRecord("my-topic", TOPIC_ID).to_json() == (
        '{"type":"TOPIC_RECORD","version":0,"data":{"name":"my-topic","topicId":"xOxBrcYuSRWgtFuZIBiXIA"}}')
    assert ConfigRecord(2, "my-topic", "retention.ms", "100000").to_json() == (
        '{"type":"CONFIG_RECORD","version":0,"data":{"resourceType":2,"resourceName":"my-topic",'
        '"name":"retention.ms","value":"100000"}}')


def test_json_config_delete_prints_null():
    assert json.loads(ConfigRecord(2, "t", "retention.ms", None).to_json())["data"]["value"] is None


def test_json_partition_record_at_v1_and_v2():
    record = PartitionRecord(0, TOPIC_ID, (5, 3, 4), (5, 3, 4), (), (), 5, 0, 0, 0, (DIR_A, DIR_B, DIR_C))
    body = ('"data":{"partitionId":0,"topicId":"xOxBrcYuSRWgtFuZIBiXIA","replicas":[5,3,4],'
            '"isr":[5,3,4],"removingReplicas":[],"addingReplicas":[],"leader":5,"leaderEpoch":0,'
            '"partitionEpoch":0,"directories":["SaZDxfHKu3NMZ7OnFP7YnA","uHY7hO6-42Q7O4k0zLMmtg",'
            '"p2UpbSD99eygD2ZToiSMzg"]}}')
    assert record.to_json(1) == '{"type":"PARTITION_RECORD","version":1,' + body
    assert record.to_json() == '{"type":"PARTITION_RECORD","version":2,' + body


def test_json_partition_record_prints_set_tagged_fields():
    record = PartitionRecord(0, TOPIC_ID, (1,), (), leader=-1, leader_recovery_state=1, leader_epoch=3,
                             partition_epoch=4, directories=(DIR_A,), eligible_leader_replicas=(1,),
                             last_known_elr=())
    data = json.loads(record.to_json())["data"]
    assert data["leaderRecoveryState"] == 1
    assert data["eligibleLeaderReplicas"] == [1] and data["lastKnownElr"] == []
    assert list(data)[7] == "leaderRecoveryState"     # spec order, not tag order


def test_json_register_broker_record_v3():
    record = RegisterBrokerRecord(
        broker_id=3, incarnation_id=Uuid.from_string("5TICkSDlQOGOHY-sn-TtDw"), broker_epoch=53,
        end_points=[BrokerEndpoint("PLAIN-9092", "h", 9092, 0)],
        features=[BrokerFeature("metadata.version", 1, 19)], log_dirs=[DIR_B])
    assert record.to_json(3) == (
        '{"type":"REGISTER_BROKER_RECORD","version":3,"data":{"brokerId":3,"isMigratingZkBroker":false,'
        '"incarnationId":"5TICkSDlQOGOHY-sn-TtDw","brokerEpoch":53,"endPoints":[{"name":"PLAIN-9092",'
        '"host":"h","port":9092,"securityProtocol":0}],"features":[{"name":"metadata.version",'
        '"minSupportedVersion":1,"maxSupportedVersion":19}],"rack":null,"fenced":true,'
        '"inControlledShutdown":false,"logDirs":["uHY7hO6-42Q7O4k0zLMmtg"]}}')


def test_json_register_broker_record_v4_leaves_out_cordoned_dirs_not_yet_reported():
    # A real Kafka 4.3.1 registration prints no cordonedLogDirs (null, the tagged default); the
    # broker's first heartbeat then writes them as a BrokerRegistrationChangeRecord v3.
    record = RegisterBrokerRecord(broker_id=1, broker_epoch=13, log_dirs=[DIR_B])
    data = json.loads(record.to_json())
    assert data["version"] == 4 and "cordonedLogDirs" not in data["data"]
    assert json.loads(RegisterBrokerRecord(broker_id=1, cordoned_log_dirs=(DIR_A,)).to_json())["data"][
        "cordonedLogDirs"] == [str(DIR_A)]
    assert BrokerRegistrationChangeRecord(1, 13, cordoned_log_dirs=()).to_json() == (
        '{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":3,"data":{"brokerId":1,"brokerEpoch":13,'
        '"cordonedLogDirs":[]}}')
    with pytest.raises(UnsupportedVersionException, match="non-default cordonedLogDirs at version 3"):
        RegisterBrokerRecord(broker_id=1, cordoned_log_dirs=()).to_json(3)


def test_json_partition_change_shows_only_what_changed():
    assert PartitionChangeRecord(0, TOPIC_ID, leader=2).to_json() == (
        '{"type":"PARTITION_CHANGE_RECORD","version":2,"data":{"partitionId":0,'
        '"topicId":"xOxBrcYuSRWgtFuZIBiXIA","leader":2}}')
    data = json.loads(PartitionChangeRecord(0, TOPIC_ID, isr=(2, 3), leader=-1).to_json())["data"]
    assert data == {"partitionId": 0, "topicId": str(TOPIC_ID), "isr": [2, 3], "leader": -1}


def test_json_unfence_and_transaction_markers():
    assert BrokerRegistrationChangeRecord(1, 7, fenced=-1).to_json() == (
        '{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":0,"data":{"brokerId":1,"brokerEpoch":7,'
        '"fenced":-1}}')
    assert BeginTransactionRecord("Bootstrap records").to_json() == (
        '{"type":"BEGIN_TRANSACTION_RECORD","version":0,"data":{"name":"Bootstrap records"}}')
    assert EndTransactionRecord().to_json() == '{"type":"END_TRANSACTION_RECORD","version":0,"data":{}}'
    assert NoOpRecord().to_json() == '{"type":"NO_OP_RECORD","version":0,"data":{}}'


def test_json_refuses_a_field_the_version_lacks():
    with pytest.raises(UnsupportedVersionException, match="non-default logDirs at version 2"):
        RegisterBrokerRecord(broker_id=1, log_dirs=(DIR_A,)).to_json(2)


def test_api_message_and_version_keeps_the_version():
    pair = ApiMessageAndVersion(PartitionRecord(0, TOPIC_ID, (1,), (1,), directories=(DIR_A,)), 1)
    assert json.loads(pair.to_json())["version"] == 1
