from __future__ import annotations

from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.errors import KafkaIllegalStateException, data_loss, format_topic_partitions


def test_data_loss_message_is_the_condition_template_filled_in():
    error = data_loss("PARTITIONS_DELETED", partitions=format_topic_partitions([TopicPartition("t", 1),
                                                                                 TopicPartition("t", 0)]))
    assert isinstance(error, KafkaIllegalStateException)
    assert error.condition == "KAFKA_DATA_LOSS.PARTITIONS_DELETED"
    assert error.sql_state == "22000"
    assert str(error) == (
        "Some data may have been lost because they are not available in Kafka any more;\n"
        "either the data was aged out by Kafka or the topic may have been deleted before all the data in the\n"
        "topic was processed.\n"
        "If you don't want your streaming query to fail on such cases, set the source option failOnDataLoss "
        "to false.\n"
        "Reason: Partitions Set(t-0, t-1) have been deleted."
    )


def test_multi_line_sub_condition_keeps_its_line_breaks():
    error = data_loss("COULD_NOT_READ_OFFSET_RANGE", startOffset=3, endOffset=9,
                      topicPartition=TopicPartition("t", 2), groupId="g-executor")
    assert str(error).endswith(
        "Reason: Could not read records in offset [3, 9) for topic partition t-2\nwith consumer group g-executor."
    )


def test_start_offset_mismatch_condition_names_both_sets():
    error = KafkaIllegalStateException("KAFKA_START_OFFSET_DOES_NOT_MATCH_ASSIGNED",
                                       {"specifiedPartitions": "Set(t-0)", "assignedPartitions": "Set(t-0, t-1)"})
    assert str(error).endswith("Specified: Set(t-0) Assigned: Set(t-0, t-1)")
    assert error.sql_state is None
