"""The known differences take out exactly what they explain and nothing else (no JVM needed)."""

from __future__ import annotations

from tests.oracle.known_differences import (KNOWN_DIFFERENCES, as_a_41_cluster_without_elr, without_cluster_min_isr,
                                            without_elr_members)
from tests.oracle.normalise import compare
from tests.oracle.oracle import unexplained

KAFKA_DESCRIBE = ("Topic: orders\tTopicId: <id 1>\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: "
                  "min.insync.replicas=1,retention.ms=1000\n"
                  "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n")
SANDBOX_DESCRIBE = KAFKA_DESCRIBE.replace("min.insync.replicas=1,", "")


def test_the_elr_min_isr_undo_explains_only_the_cluster_level_config():
    assert without_cluster_min_isr(KAFKA_DESCRIBE) == SANDBOX_DESCRIBE
    comparison = compare(KAFKA_DESCRIBE, SANDBOX_DESCRIBE)
    assert comparison.result == "different" and unexplained(comparison, without_cluster_min_isr) == ""
    other = compare(KAFKA_DESCRIBE, SANDBOX_DESCRIBE.replace("Leader: 1", "Leader: 2"))
    assert "-\tTopic: orders\tPartition: 0\tLeader: 1" in unexplained(other, without_cluster_min_isr)


def test_a_topic_level_min_isr_is_not_explained_away():
    kafka = KAFKA_DESCRIBE.replace("min.insync.replicas=1,", "min.insync.replicas=2,")
    assert without_cluster_min_isr(kafka) == kafka


def test_the_synonym_and_the_broker_default_line_are_undone():
    kafka = ("  min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1}\n"
             "  retention.ms=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1, "
             "DEFAULT_CONFIG:min.insync.replicas=1}\n")
    assert without_cluster_min_isr(kafka) == "  retention.ms=1 sensitive=false synonyms={DEFAULT_CONFIG:min.insync" \
                                             ".replicas=1}\n"


def test_elr_members_are_emptied_but_last_known_elr_stays():
    assert without_elr_members("Isr: 3\tElr: 2,1\tLastKnownElr: 4\n") == "Isr: 3\tElr: \tLastKnownElr: 4\n"


def test_the_metadata_undo_keeps_a_fence_record_that_is_not_a_repeat():
    fence = '{"type": "BROKER_REGISTRATION_CHANGE_RECORD", "version": 0, "data": {"brokerId": 1, "fenced": 1}}'
    other = fence.replace('"brokerId": 1', '"brokerId": 2')
    assert as_a_41_cluster_without_elr(f"{fence}\n{fence}\n{other}\n") == f"{fence}\n{other}\n"
    change = ('{"type": "PARTITION_CHANGE_RECORD", "version": 2, "data": {"partitionId": 0, "topicId": "<id 1>", '
              '"isr": [3], "leader": 3, "eligibleLeaderReplicas": [2]}}')
    assert as_a_41_cluster_without_elr(change + "\n") == change.replace(', "eligibleLeaderReplicas": [2]', "") + "\n"


def test_every_reason_is_one_sentence_on_one_line():
    for name, known in KNOWN_DIFFERENCES.items():
        assert known.reason and "\n" not in known.reason, name
