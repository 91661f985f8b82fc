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
