from minikafka.storage.log_append_info import LogAppendInfo


def test_message_counts():
    assert LogAppendInfo(10, 14, 0, 1).num_messages == 5
    assert LogAppendInfo(-1, 14, 0, 1, last_offset_of_first_batch=12).first_or_last_offset_of_first_batch == 12
    assert LogAppendInfo(-1, -1, None, -1).num_messages == 0
