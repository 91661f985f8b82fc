"""The known differences take out exactly what they explain and nothing else (no JVM needed)."""

from __future__ import annotations

from tests.oracle.known_differences import (KNOWN_DIFFERENCES, as_unsupported_lines, without_documentation,
                                           without_unserved_api_keys)
from tests.oracle.normalise import compare
from tests.oracle.oracle import unexplained

def test_the_documentation_undo_explains_only_the_documentation():
    kafka = '{"name": "retention.ms", "documentation": "How long a \\"log\\" is kept"}\n'
    sandbox = '{"name": "retention.ms", "documentation": null}\n'
    assert without_documentation(kafka) == sandbox
    comparison = compare(kafka, sandbox)
    assert comparison.result == "different" and unexplained(comparison, without_documentation) == ""
    assert unexplained(compare(kafka, sandbox.replace("retention", "segment")), without_documentation) != ""


def api_entry(key: int, low: int, high: int) -> str:
    return f' {{\n  "api_key": {key},\n  "min_version": {low},\n  "max_version": {high}\n }}'


def test_the_api_versions_undo_takes_out_only_the_unserved_apis():
    def answer(*entries):
        return "== api_keys\n[\n" + ",\n".join(api_entry(*e) for e in entries) + "\n]\n== throttle_time_ms\n0\n"
    kafka = answer((0, 0, 13), (24, 0, 5), (75, 0, 0), (92, 0, 0))
    assert without_unserved_api_keys(kafka) == answer((0, 0, 13), (75, 0, 0))
    assert unexplained(compare(kafka, answer((0, 0, 13), (75, 0, 0))), without_unserved_api_keys) == ""
    # a served API with another range is still a difference
    assert unexplained(compare(kafka, answer((0, 0, 12), (75, 0, 0))), without_unserved_api_keys) != ""


def test_the_tool_undo_marks_only_the_unserved_apis_unsupported():
    kafka = ("\tProduce(0): 0 to 13 [usable: 13],\n\tEndTxn(26): 0 to 5 [usable: 5],\n"
             "\tDeleteShareGroupOffsets(92): 0 [usable: 0]\n)\n")
    sandbox = ("\tProduce(0): 0 to 13 [usable: 13],\n\tEndTxn(26): UNSUPPORTED,\n"
               "\tDeleteShareGroupOffsets(92): UNSUPPORTED\n)\n")
    assert as_unsupported_lines(kafka) == sandbox
    assert unexplained(compare(kafka, sandbox.replace("0 to 13 [usable: 13]", "0 to 12 [usable: 12]")),
                       as_unsupported_lines) != ""


def test_every_reason_is_one_sentence_on_one_line():
    for name, known in KNOWN_DIFFERENCES.items():
        assert known.reason and "\n" not in known.reason, name
