"""`AnswerKind`: the stored form of an answer, and one line for an answer of the wrong kind."""

from __future__ import annotations

import pytest

from minikafka.course.answer_kinds import AnswerKind, AnswerRefused


def refusal(kind: AnswerKind, value) -> str:
    with pytest.raises(AnswerRefused) as caught:
        kind.normalise(value)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_broker_id_is_one_of_the_choices():
    kind = AnswerKind("broker", [1, 2, 3])
    assert kind.normalise(2) == 2
    assert refusal(kind, 2.0) == "Expected a broker id (1, 2 or 3), but the answer is a number: 2.0"
    assert refusal(kind, "3") == "Expected a broker id (1, 2 or 3), but the answer is a text (str): '3'"
    assert refusal(kind, 7) == "Expected a broker id (1, 2 or 3); there is no broker 7"
    assert refusal(kind, True) == "Expected a broker id (1, 2 or 3), but the answer is True or False: True"
    assert refusal(kind, None).startswith("Expected a broker id (1, 2 or 3), but the answer is None")


def test_none_is_an_answer_only_when_offered():
    kind = AnswerKind("broker", [1, 2, 3, None])
    assert kind.normalise(None) is None
    assert kind.describe() == "a broker id (1, 2, 3 or none)"


def test_sets_of_brokers_and_numbers_are_stored_sorted():
    brokers = AnswerKind("brokers", [1, 2, 3])
    assert brokers.normalise({3, 1}) == [1, 3]
    assert brokers.normalise(set()) == []
    assert brokers.normalise((2, 2)) == [2]
    assert refusal(brokers, 2).startswith("Expected a set of broker ids among 1, 2 and 3")
    assert refusal(brokers, {1, 9}) == ("Expected a set of broker ids among 1, 2 and 3 (e.g. {1, 3}, "
                                        "or set() for none); there is no broker 9")
    numbers = AnswerKind("numbers")
    assert numbers.normalise([2, 0]) == [0, 2]
    assert refusal(numbers, ["0"]).startswith("Expected a set of whole numbers")


def test_numbers_bools_and_choices():
    number = AnswerKind("number")
    assert number.normalise(3.0) == 3 and isinstance(number.normalise(3.0), int)
    assert refusal(number, 2.5) == "Expected a whole number, but the answer is a number: 2.5"
    assert refusal(number, True) == "Expected a whole number, but the answer is True or False: True"
    flag = AnswerKind("bool")
    assert flag.normalise(False) is False
    assert refusal(flag, 0) == "Expected True or False, but the answer is a whole number: 0"
    choice = AnswerKind("choice", ["NONE", "NOT_ENOUGH_REPLICAS"])
    assert choice.normalise("NONE") == "NONE"
    assert refusal(choice, "none") == ("Expected one of 'NONE' or 'NOT_ENOUGH_REPLICAS'; 'none' is not one "
                                       "of the choices: answer with a letter (a or b), a number (1 to 2) "
                                       "or the text exactly")
    assert refusal(choice, 1.5).startswith("Expected one of 'NONE' or 'NOT_ENOUGH_REPLICAS', but the answer is a number")


def test_a_choice_is_named_by_its_letter_or_number_too():
    choice = AnswerKind("choice", ["NONE", "NOT_ENOUGH_REPLICAS", "NOT_LEADER_OR_FOLLOWER"])
    assert choice.normalise("b") == choice.normalise(2) == choice.normalise("2") == "NOT_ENOUGH_REPLICAS"
    assert refusal(choice, "d") == ("Expected one of 'NONE', 'NOT_ENOUGH_REPLICAS' or "
                                    "'NOT_LEADER_OR_FOLLOWER'; 'd' is not a letter offered: the letters "
                                    "are a to c")
    assert refusal(choice, 4).endswith("4 is not offered: the choices are numbered 1 to 3 (or lettered a to c)")
    # the cluster's value is compared as a text: never read as a letter or a number
    assert choice.same("NONE", "NONE") and not choice.same("NONE", 1) and not choice.same("NONE", "a")


def test_kinds_that_need_choices_say_so():
    with pytest.raises(ValueError, match=r"choices=cluster.broker_ids"):
        AnswerKind("broker")
    with pytest.raises(ValueError, match="kind must be one of"):
        AnswerKind("colour")


def test_same_compares_with_the_clusters_value_normalised():
    brokers = AnswerKind("brokers", [1, 2, 3])
    assert brokers.same([1, 3], (3, 1))
    assert not brokers.same([1], [1, 3])
    broker = AnswerKind("broker", [1, 2, 3])
    assert not broker.same(1, None)          # no leader, where none is not a choice: nobody is right
    assert not AnswerKind("number").same(1, True)
