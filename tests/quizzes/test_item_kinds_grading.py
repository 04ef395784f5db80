"""Grading of the typed item kinds (quizzes/answers.py): short answer, numerical, matching.
Plain Python, no database."""

from __future__ import annotations

import dataclasses
import datetime
from decimal import Decimal

import pytest

from quizzes.answers import (
    NumberFormatError,
    accepted_answers,
    answer_key_errors,
    item_is_answered,
    item_is_correct,
    matching_attempt_copy,
    matching_matches,
    number_parse,
    numerical_matches,
    short_answer_matches,
    short_answer_normalise,
)
from quizzes.attempt_rules import GradedItem, attempt_grade

# --- short answer -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [
        ("cuda toolkit", "CUDA Toolkit"),
        ("  CUDA   Toolkit  ", "CUDA Toolkit"),
        ("CUDA\tToolkit\n", "CUDA Toolkit"),
        ("CUDA Toolkit.", "CUDA Toolkit"),
        ("CUDA Toolkit!?", "CUDA Toolkit"),
        ("Größe", "Groesse"),
        ("groesse", "Größe"),
        ("GRÖSSE", "größe"),
        ("Schlüssel", "Schluessel"),
        ("Oelkuehler", "Ölkühler"),
        ("Maß", "Mass"),
        ("MASS", "Maß"),
        ("Straẞe", "strasse"),
        # Decomposed umlaut (u + combining diaeresis) is the same text after NFC.
        ("Schlu\u0308ssel", "Schlüssel"),
        ("Übergröße", "uebergroesse"),
    ],
)
def test_short_answer_accepts_spellings_of_the_same_answer(typed, accepted):
    assert short_answer_matches(accepted=[accepted], text=typed)


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [
        ("CUDA", "CUDA Toolkit"),
        ("CUDAToolkit", "CUDA Toolkit"),
        ("Bar", "Bär"),  # an umlaut is spelled out (ae), never dropped (a)
        ("Schussel", "Schüssel"),
        ("", "CUDA"),
        ("   ", "CUDA"),
        ("...", "CUDA"),
        (None, "CUDA"),
        ("Gröse", "Größe"),
    ],
)
def test_short_answer_refuses_other_answers(typed, accepted):
    assert not short_answer_matches(accepted=[accepted], text=typed)


def test_short_answer_with_several_accepted_answers():
    accepted = ["VAE-Offloading", "VAE Offloading", "Offloading des VAE"]
    assert short_answer_matches(accepted=accepted, text="vae offloading")
    assert short_answer_matches(accepted=accepted, text="Offloading des VAE.")
    assert not short_answer_matches(accepted=accepted, text="Offloading")


def test_normalised_form():
    assert short_answer_normalise("  Die  GRÖßE. ") == "die groesse"


# --- numerical ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("7,5", "7.5"),
        ("7.5", "7.5"),
        (" 14 ", "14"),
        ("14", "14"),
        ("-3,25", "-3.25"),
        ("\u22123,25", "-3.25"),  # the typographic minus
        ("+2", "2"),
        (",5", "0.5"),
        ("7,", "7"),
        ("1.000", "1"),  # a single mark is always the decimal mark
        ("1,000", "1"),
        ("1.000.000", "1000000"),
        ("1,000,000", "1000000"),
        ("1.234,5", "1234.5"),
        ("1,234.5", "1234.5"),
        ("1 234,5", "1234.5"),
        ("1\u00a0234", "1234"),
        ("1\u202f234.75", "1234.75"),
        ("1'234", "1234"),
        ("0,125", "0.125"),
    ],
)
def test_number_parse_accepts_comma_point_and_unambiguous_grouping(typed, value):
    assert number_parse(typed) == Decimal(value)


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("abc", "not_a_number"),
        ("7,5 GB", "not_a_number"),
        ("14GB", "not_a_number"),
        ("1e5", "not_a_number"),
        ("NaN", "not_a_number"),
        ("Infinity", "not_a_number"),
        ("1,2,3", "not_a_number"),
        ("1.2.3", "not_a_number"),
        ("1.23,4.5", "not_a_number"),
        ("12,34.5", "not_a_number"),
        ("1.2,5", "not_a_number"),
        ("1 23", "not_a_number"),
        ("7 ,5", "not_a_number"),
        ("--3", "not_a_number"),
        ("-", "not_a_number"),
        ("0x10", "not_a_number"),
        ("7.5.", "not_a_number"),
        ("9" * 41, "too_long"),
    ],
)
def test_number_parse_refuses_garbage(typed, reason):
    with pytest.raises(NumberFormatError) as error:
        number_parse(typed)
    assert error.value.code == reason


TOLERANCE = [{"value": "7.5", "tolerance": "0.5"}]


@pytest.mark.parametrize(
    ("typed", "right"),
    [
        ("7,5", True),
        ("7.0", True),  # exactly at -tolerance: edges are included
        ("7", True),
        ("8,0", True),  # exactly at +tolerance
        ("8", True),
        ("6,9999", False),  # just outside
        ("8,0001", False),
        ("8.00000000001", False),
        ("6.99999999999", False),
        ("0", False),
        ("abc", False),  # no number is wrong (saving refuses it before)
        ("", False),
        (None, False),
    ],
)
def test_numerical_tolerance_edges_are_inclusive(typed, right):
    assert numerical_matches(answers=TOLERANCE, text=typed) is right


@pytest.mark.parametrize(
    ("typed", "right"),
    [("13", True), ("15", True), ("14,2", True), ("12,99", False), ("15,01", False)],
)
def test_numerical_range(typed, right):
    assert numerical_matches(answers=[{"min": "13", "max": "15"}], text=typed) is right


def test_numerical_tolerance_is_exact_in_decimal():
    """0.1 + 0.2 is no problem: 0.3 ± 0 accepts "0,3" (a float comparison would not)."""
    assert numerical_matches(answers=[{"value": "0.3", "tolerance": "0"}], text="0,3")
    assert numerical_matches(answers=[{"value": 0.3, "tolerance": 0}], text="0.3")
    assert not numerical_matches(answers=[{"value": "0.3", "tolerance": "0"}], text="0,30001")


def test_numerical_zero_tolerance_and_several_answers():
    answers = [{"value": "14", "tolerance": "0"}, {"value": "-14", "tolerance": "0.5"}]
    assert numerical_matches(answers=answers, text="14")
    assert numerical_matches(answers=answers, text="14,0")
    assert not numerical_matches(answers=answers, text="14,01")
    assert numerical_matches(answers=answers, text="-13,5")
    assert not numerical_matches(answers=answers, text="13,5")


def test_vram_question_of_the_issue():
    """7 billion parameters x 2 bytes (FP16) = 14 GB; "14", "14,0" and " 14 " are right."""
    answers = [{"value": "14", "tolerance": "0.5"}]
    for typed in ("14", "14,0", " 14 ", "14.5", "13,5"):
        assert numerical_matches(answers=answers, text=typed), typed
    assert not numerical_matches(answers=answers, text="28")


# --- matching -----------------------------------------------------------------------------------

PAIRS = [
    {"left": "FP32", "right": "4 Byte"},
    {"left": "FP16", "right": "2 Byte"},
    {"left": "BF16", "right": "2 Byte"},
    {"left": "", "right": "8 Byte"},  # a distractor: never right
]


def test_matching_attempt_copy_relabels_and_shares_a_right_side():
    options, choices, key = matching_attempt_copy(
        pairs=PAIRS, option_order=(2, 0, 1), choice_order=(1, 2, 0), option_labels="abc"
    )
    assert options == [
        {"key": "a", "text": "BF16"},
        {"key": "b", "text": "FP32"},
        {"key": "c", "text": "FP16"},
    ]
    # Distinct right sides (2 Byte once), in the drawn order, labelled 1, 2, 3 as shown.
    assert choices == [
        {"key": "1", "text": "2 Byte"},
        {"key": "2", "text": "8 Byte"},
        {"key": "3", "text": "4 Byte"},
    ]
    assert key == {"pairs": {"a": "1", "b": "3", "c": "1"}}


def test_matching_is_all_or_nothing():
    pairs = {"a": "1", "b": "3", "c": "1"}
    assert matching_matches(pairs=pairs, given={"a": "1", "b": "3", "c": "1"})
    assert not matching_matches(pairs=pairs, given={"a": "1", "b": "3"})  # one missing
    assert not matching_matches(pairs=pairs, given={"a": "1", "b": "3", "c": "2"})
    assert not matching_matches(pairs=pairs, given=None)
    assert not matching_matches(pairs=pairs, given={})


def test_answered_means_every_option_paired():
    def answered(pairs):
        return item_is_answered(
            kind="matching",
            option_count=3,
            selected_keys=None,
            answer_text=None,
            answer_pairs=pairs,
        )

    assert answered({"a": "1", "b": "2", "c": "3"})
    assert not answered({"a": "1"})
    assert not answered(None)


# --- an attempt of mixed kinds ------------------------------------------------------------------


def _item(position, kind, **fields):
    return GradedItem(
        id=position,
        position=position,
        correct_keys=fields.pop("correct_keys", []),
        selected_keys=fields.pop("selected_keys", None),
        explanation="",
        is_correct=None,
        kind=kind,
        **fields,
    )


def test_an_attempt_of_every_kind_is_graded_item_by_item():
    items = [
        _item(1, "single_choice", correct_keys=["b"], selected_keys=["b"]),
        _item(2, "multiple_choice", correct_keys=["a", "c"], selected_keys=["a"]),
        _item(3, "short_answer", answer_key={"accepted": ["Größe"]}, answer_text="groesse"),
        _item(4, "numerical", answer_key={"answers": TOLERANCE}, answer_text="8,0"),
        _item(5, "numerical", answer_key={"answers": TOLERANCE}, answer_text="8,01"),
        _item(6, "matching", answer_key={"pairs": {"a": "2", "b": "1"}}, answer_pairs={"b": "1"}),
        _item(
            7,
            "matching",
            answer_key={"pairs": {"a": "2", "b": "1"}},
            answer_pairs={"a": "2", "b": "1"},
        ),
        _item(8, "short_answer", answer_key={"accepted": ["x"]}, answer_text=None),
    ]
    graded = attempt_grade(
        items=items,
        pass_mark_percent=Decimal(50),
        reason="submitted",
        at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
    )
    assert [item.is_correct for item in graded.items] == [
        True,
        False,
        True,
        True,
        False,
        False,
        True,
        False,
    ]
    assert graded.result.correct_count == 4 and graded.result.score_percent == Decimal("50.00")
    assert graded.result.passed
    # Grading keeps everything else of the item as it was.
    assert dataclasses.replace(graded.items[2], is_correct=None) == items[2]


def test_choice_kinds_grade_as_before():
    assert item_is_correct(
        kind="true_false",
        correct_keys=["true"],
        answer_key=None,
        selected_keys=["true"],
        answer_text=None,
        answer_pairs=None,
    )
    assert not item_is_correct(
        kind="single_choice",
        correct_keys=["a"],
        answer_key=None,
        selected_keys=[],
        answer_text="a",
        answer_pairs=None,
    )


# --- answer keys --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "key", "problem"),
    [
        ("short_answer", {"accepted": []}, "needs"),
        ("short_answer", {"accepted": ["  ", "x"]}, "non-empty"),
        ("short_answer", {"accepted": ["a -> b"]}, "->"),
        ("short_answer", {"accept": ["x"]}, "needs"),
        ("numerical", {"answers": [{"value": "x", "tolerance": "1"}]}, "number"),
        ("numerical", {"answers": [{"value": "1", "tolerance": "-1"}]}, "negative"),
        ("numerical", {"answers": [{"min": "5", "max": "3"}]}, "negative"),
        ("numerical", {"answers": [{"value": "1"}]}, "Each answer"),
        ("numerical", {"answers": [{"value": True, "tolerance": "0"}]}, "number"),
        ("numerical", {"answers": [{"value": "NaN", "tolerance": "0"}]}, "number"),
        ("matching", {"pairs": [{"left": "a", "right": "b"}]}, "two pairs"),
        (
            "matching",
            {"pairs": [{"left": "a", "right": "1"}, {"left": "A", "right": "2"}]},
            "distinct",
        ),
        ("matching", {"pairs": [{"left": "a", "right": ""}, {"left": "b", "right": "c"}]}, "Each"),
        ("matching", {"pairs": [{"left": "a->", "right": "1"}, {"left": "b", "right": "2"}]}, "->"),
        ("single_choice", {"accepted": ["x"]}, "no answer key"),
        ("short_answer", ["x"], "object"),
    ],
)
def test_answer_key_errors(kind, key, problem):
    errors = answer_key_errors(kind=kind, answer_key=key)
    assert errors and problem in " ".join(errors), errors


@pytest.mark.parametrize(
    ("kind", "key"),
    [
        ("short_answer", {"accepted": ["Größe", "Groesse"]}),
        ("numerical", {"answers": [{"value": "14", "tolerance": "0.5"}, {"min": "1", "max": 2}]}),
        ("matching", {"pairs": PAIRS}),
        ("single_choice", {}),
    ],
)
def test_good_answer_keys(kind, key):
    assert answer_key_errors(kind=kind, answer_key=key) == []


def test_accepted_answers_as_a_review_shows_them():
    assert accepted_answers(kind="short_answer", answer_key={"accepted": ["A", "B"]}) == ["A", "B"]
    key = {
        "answers": [
            {"value": "14", "tolerance": "0"},
            {"value": "7.5", "tolerance": "0.5"},
            {"min": "13", "max": "15"},
        ]
    }
    assert accepted_answers(kind="numerical", answer_key=key) == ["14", "7.5 ± 0.5", "13 – 15"]
    assert accepted_answers(kind="matching", answer_key={"pairs": {"a": "1"}}) == []
