"""The known differences take out exactly what they explain and nothing else (no JVM needed)."""

from __future__ import annotations

from tests.oracle.known_differences import KNOWN_DIFFERENCES, as_a_41_cluster, without_documentation
from tests.oracle.normalise import compare
from tests.oracle.oracle import unexplained

def test_the_documentation_undo_explains_only_the_documentation():
    kafka = '{"name": "retention.ms", "documentation": "How long a \\"log\\" is kept"}\n'
    sandbox = '{"name": "retention.ms", "documentation": null}\n'
    assert without_documentation(kafka) == sandbox
    comparison = compare(kafka, sandbox)
    assert comparison.result == "different" and unexplained(comparison, without_documentation) == ""
    assert unexplained(compare(kafka, sandbox.replace("retention", "segment")), without_documentation) != ""


def test_the_metadata_undo_keeps_a_fence_record_that_is_not_a_repeat():
    fence = '{"type": "BROKER_REGISTRATION_CHANGE_RECORD", "version": 0, "data": {"brokerId": 1, "fenced": 1}}'
    other = fence.replace('"brokerId": 1', '"brokerId": 2')
    assert as_a_41_cluster(f"{fence}\n{fence}\n{other}\n") == f"{fence}\n{other}\n"
    change = ('{"type": "PARTITION_CHANGE_RECORD", "version": 2, "data": {"partitionId": 0, "topicId": "<id 1>", '
              '"isr": [3], "leader": 3, "eligibleLeaderReplicas": [2]}}')
    assert as_a_41_cluster(change + "\n") == change + "\n"             # the ELR is kept: both sides write it


def test_every_reason_is_one_sentence_on_one_line():
    for name, known in KNOWN_DIFFERENCES.items():
        assert known.reason and "\n" not in known.reason, name
