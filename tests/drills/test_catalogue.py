"""The catalogue of drills (minikafka/drills/catalogue.py)."""

import sys

import pytest

from minikafka import drills
from minikafka.drills.catalogue import CATALOGUE, info


def test_at_least_twelve_drills_of_all_three_kinds_after_every_lesson_01_to_06():
    rows = drills.catalogue()
    assert len(rows) >= 12
    assert {r.kind for r in rows} == {"predict", "diagnose", "fix"}
    assert {r.lesson for r in rows} == {"01", "02", "03", "04", "05", "06"}
    assert len({r.id for r in rows}) == len(rows)
    assert {r.id for r in drills.catalogue(kind="fix")} == {"empty-new-broker", "unbalanced-leaders",
                                                            "offline-partition", "lagging-group"}
    assert [r.id for r in drills.catalogue(lesson=2)] == ["replication-factor-vs-brokers"]
    assert [r.id for r in drills.catalogue(lesson=4)] == ["controller-crash", "controller-majority-lost",
                                                          "quick-restart"]


def test_the_issues_twelve_situations_are_all_there():
    wanted = {"leader-crash", "isr-not-enough-replicas", "acks1-data-loss", "unclean-election",
              "controller-crash", "controller-majority-lost", "wrong-advertised-listener",
              "empty-new-broker", "unbalanced-leaders", "consumers-exceed-partitions",
              "keyed-partitions-added", "throttled-reassignment"}
    assert wanted <= set(CATALOGUE)


def test_every_row_names_a_scenario_class_and_only_live_drills_need_real_clients():
    for row in drills.catalogue():
        scenario = row.load()
        assert scenario.__module__ == f"minikafka.drills.{row.scenario.split(':')[0]}"
        assert row.claim and row.title
    assert [r.id for r in drills.catalogue() if r.live] == ["wrong-advertised-listener",
                                                           "consumers-exceed-partitions",
                                                           "fourth-member-joins", "lagging-group"]


def test_reading_the_catalogue_imports_no_broker_code():
    code = ("import sys; from minikafka import drills; drills.catalogue(); "
            "print('minikafka.server.kafka_node' in sys.modules)")
    import subprocess
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_ids_and_kinds_are_refused_in_one_line():
    with pytest.raises(drills.DrillError, match=r"No drill 'leader-crsh'; the catalogue has leader-crash, "):
        info("leader-crsh")
    with pytest.raises(drills.DrillError, match="kind must be one of predict, diagnose, fix"):
        drills.catalogue(kind="guess")


def test_the_catalogue_as_text_lists_every_drill():
    text = drills.catalogue_text()
    assert text.splitlines()[0].split() == ["ID", "KIND", "LESSON", "CLUSTER", "TITLE"]
    assert len(text.splitlines()) == len(drills.catalogue()) + 1
    assert "wrong-advertised-listener" in text and "live" in text


def test_a_protocol_member_with_an_unknown_protocol_is_refused_before_any_client_starts():
    from minikafka.drills.group_protocol_drills import OwnershipLog, ProtocolMember
    with pytest.raises(ValueError, match="protocol must be classic or consumer, not 'eager'"):
        ProtocolMember(None, "m-1", "g", "t", "eager", OwnershipLog())
