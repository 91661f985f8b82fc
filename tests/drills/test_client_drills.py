"""The live client drills (minikafka/drills/client_drills.py), played headless with kafka-python."""

import pytest
from kafka.admin import KafkaAdminClient
from kafka.errors import KafkaError

from tests.drills.drill_harness import learn, play

pytestmark = pytest.mark.live


def advertised_ports(drill):
    """What a learner would do: ask the brokers what every broker advertises.  The admin client
    sends DescribeCluster to a broker it picks at random among those it is not connected to, which
    may be the unreachable one: retry (the chance of 20 picks of the one broker of three is 3**-20)."""
    errors = []
    for attempt in range(20):
        admin = KafkaAdminClient(bootstrap_servers=drill.cluster.bootstrap_servers)
        try:
            return {b["broker_id"]: b["port"] for b in admin.describe_cluster()["brokers"]}
        except KafkaError as error:
            errors.append(type(error).__name__)
        finally:
            admin.close()
    raise AssertionError(f"no broker answered DescribeCluster in 20 tries: {errors}")


def test_wrong_advertised_listener_is_diagnosed_from_the_clients_view():
    questions, expected, unanswered = learn("wrong-advertised-listener", 1)
    assert unanswered["score"] == 0 < unanswered["max"]
    assert expected["failing-partitions"]                      # the victim leads at least one

    def diagnose(drill):
        ports = advertised_ports(drill)
        real = {b: drill.cluster.layout.broker_ports[b] for b in drill.cluster.broker_ids}
        broken = next(b for b in ports if ports[b] != real[b])
        failing = [p for p in range(3) if drill.cluster.leader("orders", p) == broken]
        return {"broken-broker": broken, "failing-partitions": failing,
                "advertised-port": ports[broken]}
    result, asked = play("wrong-advertised-listener", 1, {}, diagnose=diagnose)
    assert asked == questions
    assert result["answers"]["broken-broker"]["expected"] == expected["broken-broker"]
    assert result["answers"]["failing-partitions"]["expected"] == expected["failing-partitions"]
    assert result["answers"]["advertised-port"]["expected"] == expected["advertised-port"]  # seeded
    assert result["score"] == result["max"]


def test_wrong_advertised_listener_grades_wrong_diagnoses_and_varies_with_the_seed():
    def mistaken(drill):                    # the entry broker, a partition it does not break, its real port
        entry = drill.scenario.entry
        return {"broken-broker": entry, "failing-partitions": [p for p in range(3)
                                                              if drill.cluster.leader("orders", p) == entry],
                "advertised-port": drill.cluster.layout.broker_ports[entry]}
    result, _ = play("wrong-advertised-listener", 1, {}, diagnose=mistaken)
    assert result["score"] == 0 < result["max"]
    assert all(not entry["correct"] for entry in result["answers"].values())
    _, first, _ = learn("wrong-advertised-listener", 1)
    _, second, _ = learn("wrong-advertised-listener", 2)
    assert (first["broken-broker"], first["advertised-port"]) != (second["broken-broker"],
                                                                  second["advertised-port"])


def test_consumers_exceed_partitions_same_seed_same_answers_other_seed_other_counts():
    questions, expected, unanswered = learn("consumers-exceed-partitions", 2)
    assert unanswered["score"] == 0
    assert expected == {"idle": 1, "busiest": 1, "assigned": 2}      # seed 2: 3 consumers, 2 partitions
    result, asked = play("consumers-exceed-partitions", 2, expected)
    assert asked == questions
    assert result["score"] == result["max"]
    wrong, _ = play("consumers-exceed-partitions", 2, {"idle": 0, "busiest": 2, "assigned": 3})
    assert wrong["score"] == 0
    other_questions, other, _ = learn("consumers-exceed-partitions", 1)
    assert other == {"idle": 2, "busiest": 1, "assigned": 4}          # seed 1: 6 consumers, 4 partitions
    assert other_questions != questions
