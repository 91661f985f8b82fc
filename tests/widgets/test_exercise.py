"""The exercises' check line (widgets/exercise.py)."""

from widgets import check_answer


def test_unanswered_correct_and_wrong():
    assert check_answer(None, 2, hint="count the brokers") == "Not answered yet"
    assert check_answer(2, 2, hint="count the brokers") == "Correct!"
    assert check_answer(3, 2, hint="count the brokers") == "Not quite: count the brokers"


def test_a_custom_placeholder_counts_as_unanswered():
    assert check_answer("not answered", None, hint="h", placeholder="not answered") == \
        "Not answered yet"
    assert check_answer(None, None, hint="h", placeholder="not answered") == "Correct!"


def test_a_wrong_type_is_explained_in_one_line_without_the_answer():
    line = check_answer("2", 2, hint="count the brokers")
    assert line == "Expected a whole number here, but the answer is a text (str): '2'"
    assert "\n" not in line
    assert check_answer([1, 2], 3, hint="h").startswith("Expected a whole number here, but the "
                                                        "answer is a list")
    assert check_answer(True, 1, hint="h").startswith("Expected a whole number here")
    assert check_answer(1, True, hint="h").startswith("Expected True or False here")


def test_numbers_compare_as_numbers_and_sets_by_elements():
    assert check_answer(2.0, 2, hint="h") == "Correct!"
    assert check_answer([3, 1], {1, 3}, hint="h") == "Correct!"
    assert check_answer((1,), {1, 3}, hint="h") == "Not quite: h"


def test_the_expected_value_is_never_revealed():
    assert "17" not in check_answer(4, 17, hint="look at the log end offset")
    assert "17" not in check_answer("x", 17, hint="look at the log end offset")
