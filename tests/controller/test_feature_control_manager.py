from minikafka.controller.feature_control_manager import FeatureControlManager
from minikafka.metadata.delta import replay_all
from minikafka.metadata.records import BeginTransactionRecord, ConfigRecord, EndTransactionRecord

NO_ELR = {"eligible.leader.replicas.version": 0, "group.version": 1, "transaction.version": 2}


def test_bootstrap_records_for_4_3_in_kafkas_order():
    records = FeatureControlManager().bootstrap_records()
    assert records[0] == BeginTransactionRecord(name="Bootstrap records")
    assert records[-1] == EndTransactionRecord()
    levels = [(r.name, r.feature_level) for r in records[1:-2]]
    # metadata.version first, then the other features sorted by name, only levels above 0 (as a real
    # Kafka 4.3.1 controller wrote them); with ELR the cluster-level min.insync.replicas closes the
    # transaction.
    assert levels == [("metadata.version", 30), ("eligible.leader.replicas.version", 1),
                      ("group.version", 1), ("share.version", 1), ("streams.version", 1),
                      ("transaction.version", 2)]
    assert records[-2] == ConfigRecord(resource_type=4, resource_name="", name="min.insync.replicas", value="1")


def test_bootstrap_records_without_elr():
    records = FeatureControlManager(features=NO_ELR).bootstrap_records()
    assert [(r.name, r.feature_level) for r in records[1:-1]] == [
        ("metadata.version", 30), ("group.version", 1), ("transaction.version", 2)]


def test_custom_levels_and_names():
    control = FeatureControlManager(26, {"transaction.version": 2, "group.version": 0})
    assert [(r.name, r.feature_level) for r in control.bootstrap_records()[1:-1]] == [
        ("metadata.version", 26), ("transaction.version", 2)]
    assert control.metadata_version_name(26) == "4.1-IV0"
    assert FeatureControlManager.metadata_version_name(27) == "4.1-IV1"
    assert [FeatureControlManager.metadata_version_name(level) for level in (28, 29, 30)] == [
        "4.2-IV0", "4.2-IV1", "4.3-IV0"]


def test_finalized_levels_read_from_the_image():
    image = replay_all(FeatureControlManager().bootstrap_records())
    assert FeatureControlManager.finalized_levels(image) == {
        "metadata.version": 30, "eligible.leader.replicas.version": 1, "group.version": 1,
        "share.version": 1, "streams.version": 1, "transaction.version": 2}
    assert FeatureControlManager.finalized_levels(replay_all(FeatureControlManager(
        features=NO_ELR).bootstrap_records())) == {"metadata.version": 30, "group.version": 1,
                                                   "transaction.version": 2}
    assert FeatureControlManager.metadata_version(image) == 30
