from minikafka.storage.clean_shutdown_file_handler import CleanShutdownFileHandler


def test_marker_golden_json_and_lifecycle(tmp_path):
    handler = CleanShutdownFileHandler(str(tmp_path))
    assert not handler.exists() and handler.read() is None
    handler.write(42)
    assert (tmp_path / ".kafka_cleanshutdown").read_text() == '{"version":0,"brokerEpoch":42}'
    assert handler.read() == 42
    handler.delete()
    assert not handler.exists()
    handler.delete()                           # deleting twice is fine


def test_unreadable_marker_reads_as_no_epoch(tmp_path):
    (tmp_path / ".kafka_cleanshutdown").write_text("{")
    assert CleanShutdownFileHandler(str(tmp_path)).read() is None
