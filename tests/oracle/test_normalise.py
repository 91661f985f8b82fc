"""The normaliser replaces ids, ports, paths and timestamps, and hides no real difference."""

from __future__ import annotations

from tests.oracle.normalise import compare, normalise
from tests.oracle.oracle import render, summary_line
from tests.oracle.sides import ToolRun, tool_stderr

KAFKA = {"127.0.0.1:40001": "<broker 1 address>", "40001": "<broker 1 port>", "/tmp/a/kafka": "<data root>",
         "q_xgsAn4SkSWy3mLMHFt9w": "<cluster id>"}
SANDBOX = {"127.0.0.1:51234": "<broker 1 address>", "51234": "<broker 1 port>", "/tmp/b/sandbox": "<data root>",
           "hIfJ7OuKdetPv1Wv25HQCQ": "<cluster id>"}

DESCRIBE = ("Topic: orders\tTopicId: {id}\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: \n"
            "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n")


def test_identical_texts_are_identical():
    assert compare("exit 0\n", "exit 0\n").result == "identical"


def test_generated_ids_ports_paths_and_timestamps_are_normalised():
    kafka = ("ClusterId: q_xgsAn4SkSWy3mLMHFt9w\nbroker 127.0.0.1:40001 port 40001 dir /tmp/a/kafka/node-1\n"
             "TopicId: sEs8e7wTQM-gDsgd_QXBnw LastFetchTimestamp 1795476916834 at 2026-11-23 23:36:46,952\n"
             "member consumer-g-1-0b8e3c1a-5f1e-4d2b-9a7c-1234567890ab\n")
    sandbox = ("ClusterId: hIfJ7OuKdetPv1Wv25HQCQ\nbroker 127.0.0.1:51234 port 51234 dir /tmp/b/sandbox/node-1\n"
               "TopicId: Vj6-PFLJsshXh2MfpdaKuw LastFetchTimestamp 1767225600000 at 2026-01-01T00:00:00Z\n"
               "member consumer-g-1-77777777-5f1e-4d2b-9a7c-0000000000ab\n")
    comparison = compare(kafka, sandbox, KAFKA, SANDBOX)
    assert comparison.result == "normalised"
    assert comparison.kafka_normalised.splitlines() == [
        "ClusterId: <cluster id>", "broker <broker 1 address> port <broker 1 port> dir <data root>/node-1",
        "TopicId: <id 1> LastFetchTimestamp <timestamp> at <date-time>", "member consumer-g-1-<uuid 1>"]


def test_a_value_that_matters_still_differs():
    kafka = DESCRIBE.format(id="sEs8e7wTQM-gDsgd_QXBnw")
    sandbox = kafka.replace("Leader: 1", "Leader: 2").replace("sEs8e7wTQM-gDsgd_QXBnw", "Vj6-PFLJsshXh2MfpdaKuw")
    comparison = compare(kafka, sandbox, KAFKA, SANDBOX)
    assert comparison.result == "different"
    assert "-\tTopic: orders\tPartition: 0\tLeader: 1" in comparison.diff()
    assert "+\tTopic: orders\tPartition: 0\tLeader: 2" in comparison.diff()


def test_offsets_counts_error_codes_and_messages_are_never_touched():
    for kafka, sandbox in [("offset 1795476916", "offset 1795476917"),          # 10 digits: not a timestamp
                           ("error_code 38", "error_code 37"),
                           ("only 1 broker(s) are registered.", "only 1 broker(s) are registered or cordoned."),
                           ("PartitionCount: 3", "PartitionCount: 30"),
                           ("dir AAAAAAAAAAAAAAAAAAAAAA", "dir sEs8e7wTQM-gDsgd_QXBnw")]:   # the zero id means "none"
        assert compare(kafka, sandbox, KAFKA, SANDBOX).result == "different", (kafka, sandbox)


def test_one_id_where_the_other_side_has_two_differs():
    kafka = "leader epoch of sEs8e7wTQM-gDsgd_QXBnw then sEs8e7wTQM-gDsgd_QXBnw"
    sandbox = "leader epoch of Vj6-PFLJsshXh2MfpdaKuw then hIfJ7OuKdetPv1Wv25HQCA"
    assert compare(kafka, sandbox).result == "different"


def test_a_port_inside_a_longer_number_and_a_lowercase_name_stay():
    assert normalise("offset 1400012 port 40001", KAFKA) == "offset 1400012 port <broker 1 port>"
    assert normalise("topic abcdefghijklmnopqrstuv") == "topic abcdefghijklmnopqrstuv"   # 22 letters, one case
    assert normalise("AlterShareGroupOffsets(91)") == "AlterShareGroupOffsets(91)"   # 22 letters, an API name
    assert normalise('"eligibleLeaderReplicas": [2]') == '"eligibleLeaderReplicas": [2]'      # a field name


def test_a_mask_replaces_only_its_group_and_is_named():
    masks = [(r"HighWatermark:\s+(\d+)", "metadata log end offset")]
    kafka, sandbox = "HighWatermark:          30\nLeaderId: 1", "HighWatermark:          20\nLeaderId: 1"
    comparison = compare(kafka, sandbox, masks=masks)
    assert comparison.result == "normalised"
    assert comparison.kafka_normalised == "HighWatermark:          <varies: metadata log end offset>\nLeaderId: 1"
    assert compare(kafka, sandbox.replace("LeaderId: 1", "LeaderId: 2"), masks=masks).result == "different"
    row = [(r"^1001\t(\d+\s*)\t(\d+)$", "offsets")]
    assert normalise("1001\t31   \t0", masks=row) == "1001\t<varies: offsets>\t<varies: offsets>"


def test_tool_runs_keep_errors_and_drop_warnings_and_stack_frames():
    stderr = ("[2026-11-23 23:36:46,952] WARN [AdminClient clientId=a] Connection to node -1 could not be "
              "established. (org.apache.kafka.clients.NetworkClient)\n"
              "[2026-11-23 23:36:47,001] ERROR org.apache.kafka.common.errors.TopicExistsException: Topic 'x' "
              "already exists.\n\tat org.apache.kafka.tools.TopicCommand.main(TopicCommand.java:1)\n"
              " (org.apache.kafka.tools.TopicCommand)\n")
    assert tool_stderr(stderr) == ("ERROR org.apache.kafka.common.errors.TopicExistsException: Topic 'x' already "
                                   "exists.\n (org.apache.kafka.tools.TopicCommand)\n")
    assert ToolRun(1, "Error\n", "").text() == "exit 1\nError\n"


def test_render_sections_and_summary_line():
    assert render({"a": ToolRun(0, "x\n", ""), "b": [{"error_code": 0}]}) == (
        '== a\nexit 0\nx\n== b\n[\n {\n  "error_code": 0\n }\n]\n')
    results = [{"result": "identical"}, {"result": "normalised"}, {"result": "normalised"}, {"result": "different"}]
    assert summary_line(results) == "4 scenarios: 1 identical, 2 normalised, 1 different"
