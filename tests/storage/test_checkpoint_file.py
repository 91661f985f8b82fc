import pytest

from minikafka.common.errors import KafkaStorageException
from minikafka.common.topic_partition import TopicPartition
from minikafka.storage.checkpoint_file import LeaderEpochCheckpointFile, OffsetCheckpointFile


def test_offset_checkpoint_golden_text(tmp_path):
    path = tmp_path / "recovery-point-offset-checkpoint"
    checkpoint = OffsetCheckpointFile(str(path))
    assert path.read_text() == ""                          # created empty, as Kafka does
    assert checkpoint.read() == {}
    checkpoint.write({TopicPartition("orders", 1): 99, TopicPartition("orders", 0): 1234,
                      TopicPartition("__consumer_offsets", 7): 5})
    assert path.read_text() == "0\n3\n__consumer_offsets 7 5\norders 0 1234\norders 1 99\n"
    assert checkpoint.read() == {TopicPartition("orders", 0): 1234, TopicPartition("orders", 1): 99,
                                 TopicPartition("__consumer_offsets", 7): 5}
    assert not (tmp_path / "recovery-point-offset-checkpoint.tmp").exists()


def test_empty_checkpoint_text(tmp_path):
    checkpoint = OffsetCheckpointFile(str(tmp_path / "c"))
    checkpoint.write({})
    assert (tmp_path / "c").read_text() == "0\n0\n"


def test_leader_epoch_checkpoint_golden_text(tmp_path):
    path = tmp_path / "leader-epoch-checkpoint"
    checkpoint = LeaderEpochCheckpointFile(str(path))
    checkpoint.write([(0, 0), (1, 120), (3, 455)])
    assert path.read_text() == "0\n3\n0 0\n1 120\n3 455\n"
    assert checkpoint.read() == [(0, 0), (1, 120), (3, 455)]


@pytest.mark.parametrize("text, cause", [
    ("1\n0\n", "Unrecognised version:1, expected version: 0 in checkpoint file at: "),
    ("0\n2\norders 0 5\n", "Expected [2] entries in checkpoint file ["),
    ("0\n1\norders zero 5\n", "Malformed line in checkpoint file ["),
    ("x\n", "Malformed line in checkpoint file ["),
])
def test_malformed_checkpoints_fail_in_kafkas_words(tmp_path, text, cause):
    path = tmp_path / "replication-offset-checkpoint"
    path.write_text(text)
    with pytest.raises(KafkaStorageException, match="^Error while reading checkpoint file ") as caught:
        OffsetCheckpointFile(str(path)).read()
    assert cause in caught.value.cause_message
