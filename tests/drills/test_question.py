"""Questions and what counts as an answer (minikafka/drills/question.py)."""

import pytest

from minikafka.drills.question import DrillError, Question, shown


def test_each_type_stores_its_answer_in_one_form():
    assert Question("n", "?", "number").normalise(3.0) == 3
    assert Question("b", "?", "bool").normalise(False) is False
    assert Question("c", "?", "choice", choices=("yes", "no")).normalise("no") == "no"
    assert Question("x", "?", "node", choices=(1, 2, 3)).normalise(2) == 2
    assert Question("s", "?", "nodes", choices=(1001, 1002, 1003)).normalise({1003, 1001}) == [1001, 1003]
    assert Question("s", "?", "nodes", choices=(1, 2)).normalise((2, 2, 1)) == [1, 2]
    assert Question("p", "?", "numbers").normalise([2, 0]) == [0, 2]
    assert Question("n", "?", "number").normalise(None) is None


@pytest.mark.parametrize("question, value, words", [
    (Question("lost", "?", "number"), "3", "expects a whole number, but the answer is a text (str): '3'"),
    (Question("lost", "?", "number"), True, "expects a whole number, but the answer is True or False"),
    (Question("lost", "?", "number"), 2.5, "expects a whole number, but the answer is a number: 2.5"),
    (Question("ok", "?", "bool"), "yes", "expects True or False, but the answer is a text (str)"),
    (Question("ok", "?", "bool"), 1, "expects True or False, but the answer is a whole number"),
    (Question("who", "?", "node", choices=(1, 2)), "2", "expects a node id (a whole number)"),
    (Question("who", "?", "node", choices=(1, 2)), 7, "is about nodes 1, 2; 7 is not one of them"),
    (Question("which", "?", "nodes", choices=(1, 2)), 1, "expects a set of node ids"),
    (Question("which", "?", "nodes", choices=(1, 2)), {1, "2"}, "expects a set of node ids"),
    (Question("c", "?", "choice", choices=("yes", "no")), "maybe",
     "Question 'c': 'maybe' is not one of the choices: answer with a letter (a or b), a number "
     "(1 to 2) or the text exactly"),
    (Question("c", "?", "choice", choices=("yes", "no")), 0,
     "Question 'c': 0 is not offered: the choices are numbered 1 to 2 (or lettered a or b)"),
    (Question("c", "?", "choice", choices=("yes", "no")), "c",
     "Question 'c': 'c' is not a letter offered: the letters are a or b"),
    (Question("c", "?", "choice", choices=("yes", "no")), 1.5, "expects one of its choices"),
    (Question("c", "?", "choice", choices=("yes", "no")), ["a"], "but the answer is a list"),
])
def test_a_wrong_answer_type_is_explained_in_one_line(question, value, words):
    with pytest.raises(DrillError) as refused:
        question.normalise(value)
    assert words in str(refused.value)
    assert "\n" not in str(refused.value)


def test_bool_questions_offer_both_choices_and_unknown_types_are_refused():
    assert Question("b", "?", "bool").choices == (True, False)
    with pytest.raises(ValueError, match="question type must be one of"):
        Question("q", "?", "colour")


def test_answers_as_a_report_shows_them():
    assert shown(None) == "no answer"
    assert shown([1, 3]) == "{1, 3}"
    assert shown([]) == "{} (none)"
    assert shown("NONE") == "'NONE'"
    assert shown(4) == "4"


def test_a_choice_is_named_by_its_text_its_letter_or_its_number():
    question = Question("move", "?", "choice", choices=("fast", "about 2 s", "never"))
    for value in ("about 2 s", "b", "B", "b)", " b ", 2, "2"):
        assert question.normalise(value) == "about 2 s", value
    assert question.normalise("c") == question.normalise(3) == "never"


def test_the_brief_shows_the_letters_with_the_choices():
    described = Question("move", "How long?", "choice", choices=("fast", "slow")).describe()
    assert "a) 'fast'" in described and "b) 'slow'" in described
