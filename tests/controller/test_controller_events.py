from minikafka.common.uuid import Uuid
from minikafka.controller.controller_events import events_for_records, format_leader, format_replicas
from minikafka.metadata.delta import replay_all
from minikafka.metadata.records import (ConfigRecord, PartitionChangeRecord, PartitionRecord, RemoveTopicRecord,
                                        TopicRecord)

TID = Uuid(4, 4)


def base():
    return replay_all([TopicRecord(name="orders", topic_id=TID),
                       PartitionRecord(partition_id=1, topic_id=TID, replicas=(2, 3, 1), isr=(2, 3, 1), leader=2,
                                       leader_epoch=1, partition_epoch=3, directories=(Uuid(0, 1),) * 3)])


def events(records, before=None):
    before = base() if before is None else before
    return events_for_records(before, replay_all(records, before), records)


def test_partition_changed_text_matches_the_documented_form():
    [event] = events([PartitionChangeRecord(topic_id=TID, partition_id=1, leader=3, isr=(3, 1))])
    assert event.kind == "partition_changed"
    assert event.text == "orders-1 leader 2 -> 3, epoch 1 -> 2, ISR [2,3,1] -> [3,1]"
    assert (event.data["leader"], event.data["isr"], event.data["unclean"]) == (3, [3, 1], False)


def test_leader_none_and_unclean_flag():
    offline = events([PartitionChangeRecord(topic_id=TID, partition_id=1, leader=-1, isr=(2,))])[0]
    assert offline.text == "orders-1 leader 2 -> none, epoch 1 -> 2, ISR [2,3,1] -> [2]"
    before = replay_all([PartitionChangeRecord(topic_id=TID, partition_id=1, leader=-1, isr=(2,))], base())
    unclean = events([PartitionChangeRecord(topic_id=TID, partition_id=1, leader=3, isr=(3,),
                                            leader_recovery_state=1)], before)[0]
    assert unclean.data["unclean"] and "unclean leader election" in unclean.text


def test_topic_lifecycle_and_config_events():
    created = events([TopicRecord(name="t", topic_id=Uuid(5, 5)),
                      ConfigRecord(resource_type=2, resource_name="t", name="retention.ms", value="5"),
                      PartitionRecord(partition_id=0, topic_id=Uuid(5, 5), replicas=(1,), isr=(1,), leader=1,
                                      leader_epoch=0, partition_epoch=0, directories=(Uuid(0, 1),))])
    assert [e.kind for e in created] == ["topic_created"]
    assert created[0].text.endswith("1 partition(s), replication factor 1, configs retention.ms=5")
    added = events([PartitionRecord(partition_id=2, topic_id=TID, replicas=(1,), isr=(1,), leader=1,
                                    leader_epoch=0, partition_epoch=0, directories=(Uuid(0, 1),))])
    assert added[0].kind == "partitions_added"
    deleted = events([RemoveTopicRecord(topic_id=TID)])
    assert deleted[0].text == f"topic orders (topic ID {TID}) deleted"
    config = events([ConfigRecord(resource_type=4, resource_name="", name="log.retention.ms", value=None)])
    assert config[0].text == "cluster-wide broker default configs: log.retention.ms deleted"


def test_formatting_helpers():
    assert format_replicas((3, 1)) == "[3,1]" and format_replicas(()) == "[]"
    assert format_leader(-1) == "none" and format_leader(4) == "4"
