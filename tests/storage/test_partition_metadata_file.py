import pytest

from minikafka.common.errors import InconsistentTopicIdException, KafkaStorageException
from minikafka.common.uuid import Uuid
from minikafka.storage.partition_metadata_file import PartitionMetadataFile

TOPIC_ID = Uuid.from_string("gBtArbO9TfGFgNZiqwXJ3A")


def test_golden_file_without_trailing_newline(tmp_path):
    file = PartitionMetadataFile(str(tmp_path))
    file.record(TOPIC_ID)
    assert not file.exists()                    # written only on flush (before the first append)
    file.maybe_flush()
    assert (tmp_path / "partition.metadata").read_bytes() == b"version: 0\ntopic_id: gBtArbO9TfGFgNZiqwXJ3A"
    assert file.read() == TOPIC_ID


def test_a_different_topic_id_cannot_be_recorded(tmp_path):
    file = PartitionMetadataFile(str(tmp_path))
    file.record(TOPIC_ID)
    with pytest.raises(InconsistentTopicIdException, match="Tried to record topic ID"):
        file.record(Uuid(1, 2))


@pytest.mark.parametrize("text", ["version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", "version 0", "garbage"])
def test_bad_files_are_storage_errors(tmp_path, text):
    (tmp_path / "partition.metadata").write_text(text)
    with pytest.raises(KafkaStorageException, match="^Error while reading partition metadata file "):
        PartitionMetadataFile(str(tmp_path)).read()
