import os

from minikafka.storage.abstract_index import round_down_to_exact_multiple
from minikafka.storage.offset_index import OffsetIndex


def test_resize_reset_and_rename(tmp_path):
    path = str(tmp_path / "00000000000000000000.index")
    index = OffsetIndex(path, 0, 800)
    index.append(1, 10)
    index.append(2, 20)
    assert index.resize(16) and os.path.getsize(path) == 16 and index.is_full()
    assert not index.resize(16)
    index.reset()
    assert index.entries == 0 and os.path.getsize(path) == 800
    index.rename_to(path + ".deleted")
    assert os.path.exists(path + ".deleted") and not os.path.exists(path)
    assert index.delete_if_exists() and not index.delete_if_exists()
    assert round_down_to_exact_multiple(10485760, 12) == 10485756


def test_appends_go_through_a_mapping_that_the_file_shows_at_once_and_that_trimming_drops(tmp_path):
    path = str(tmp_path / "00000000000000000000.index")
    index = OffsetIndex(path, 100, 8 * 1024)
    for n in range(600):                                  # more than one page of entries
        index.append(100 + n, n * 40)
    with open(path, "rb") as handle:                      # another reader (a tool) sees every entry
        raw = handle.read(600 * 8)
    assert raw[-8:] == (599).to_bytes(4, "big") + (599 * 40).to_bytes(4, "big")
    assert index._map is not None and os.path.getsize(path) == 8 * 1024
    index.close_handler()                                 # a crash: the mapping goes, the entries stay
    assert OffsetIndex(path, 100, 8 * 1024).entries == 1024   # Kafka trusts every slot of a preallocated file
    index.trim_to_valid_size()
    assert index._map is None and os.path.getsize(path) == 600 * 8
    reopened = OffsetIndex(path, 100, 8 * 1024)
    assert reopened.entries == 600 and reopened.lookup(150).position == 50 * 40
