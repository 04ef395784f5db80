"""Grading arithmetic, final grade, review visibility, item statistics, eligibility, an
attempt's rules: no database."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from quizzes.attempt_rules import (
    ANSWER_GRACE,
    AttemptResult,
    GradedItem,
    LearnerAttempt,
    attempt_grade,
    attempts_with_result,
    result_reason,
)
from quizzes.eligibility import AttemptState, StepState, exam_eligibility, step_gate
from quizzes.grading import (
    answer_is_correct,
    attempt_score,
    final_grade,
    passes,
    review_level,
)

NOW = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("correct", "selected", "expected"),
    [
        (["a"], ["a"], True),
        (["a"], ["b"], False),
        (["a"], None, False),
        (["a"], [], False),
        (["a", "c"], ["c", "a"], True),
        (["a", "c"], ["a"], False),  # multiple choice is all or nothing
        (["a", "c"], ["a", "b", "c"], False),
    ],
)
def test_answer_is_correct(correct, selected, expected):
    assert answer_is_correct(correct_keys=correct, selected_keys=selected) is expected


def test_attempt_score_rounds_half_up_to_cents():
    assert attempt_score([True, True, False]).score_percent == Decimal("66.67")
    assert attempt_score([True, False, False]).score_percent == Decimal("33.33")
    score = attempt_score([True] * 7 + [False])
    assert (score.correct_count, score.item_count, score.score_percent) == (7, 8, Decimal("87.50"))
    assert attempt_score([]).score_percent == Decimal("0.00")


def test_pass_mark_is_inclusive():
    assert passes(score_percent=Decimal("80.00"), pass_mark_percent=Decimal("80"))
    assert not passes(score_percent=Decimal("79.99"), pass_mark_percent=Decimal("80"))


@pytest.mark.parametrize(
    ("method", "expected"),
    [("highest", "90"), ("last", "60"), ("first", "50"), ("average", "66.67")],
)
def test_final_grade_methods(method, expected):
    scores = [Decimal(50), Decimal(90), Decimal(60)]
    assert final_grade(method=method, scores=scores) == Decimal(expected)
    assert final_grade(method=method, scores=[]) is None


def test_unknown_grading_method_raises():
    with pytest.raises(ValueError):
        final_grade(method="median", scores=[Decimal(1)])


@pytest.mark.parametrize(
    ("timing", "final_passed", "attempts_left", "shows"),
    [
        ("immediately", False, 2, "correct_answers"),
        ("after_passing", False, 0, "score_only"),
        ("after_passing", True, 2, "correct_answers"),
        ("after_last_attempt", False, 1, "score_only"),
        ("after_last_attempt", False, 0, "correct_answers"),
        ("after_last_attempt", True, 2, "correct_answers"),
    ],
)
def test_review_level(timing, final_passed, attempts_left, shows):
    assert (
        review_level(
            content="correct_answers",
            timing=timing,
            final_passed=final_passed,
            attempts_left=attempts_left,
        )
        == shows
    )
    # "score only" never shows more, whenever.
    assert (
        review_level(content="score_only", timing=timing, final_passed=True, attempts_left=0)
        == "score_only"
    )


def test_after_last_attempt_waits_for_the_running_attempt():
    # Attempts used up but the last one still being answered: earlier reviews stay closed.
    arguments = {
        "content": "correct_answers",
        "timing": "after_last_attempt",
        "final_passed": False,
    }
    assert review_level(**arguments, attempts_left=0, attempt_in_progress=True) == "score_only"
    assert review_level(**arguments, attempts_left=0, attempt_in_progress=False) == (
        "correct_answers"
    )


def eligibility(**overrides):
    arguments = {
        "now": NOW,
        "enrolled": True,
        "steps": step_gate(required_share=0, steps=[]),
        "attempts": [],
        "certifying": True,
        "max_attempts": 3,
        "wait": datetime.timedelta(0),
        "final_passed": False,
        "full_name_given": True,
    }
    arguments.update(overrides)
    return exam_eligibility(**arguments)


def codes(result):
    return [reason.code for reason in result.reasons]


def test_eligibility_reasons():
    assert eligibility().can_start
    assert codes(eligibility(enrolled=False)) == ["not_enrolled"]
    unfinished = [StepState(number=1, slug="a", term="A", completed=False)]
    finished = [StepState(number=1, slug="a", term="A", completed=True)]
    gate = step_gate(required_share=100, steps=unfinished)
    assert codes(eligibility(steps=gate)) == ["steps_incomplete"]
    assert eligibility(steps=step_gate(required_share=100, steps=finished)).can_start
    assert codes(eligibility(final_passed=True)) == ["already_passed"]
    running = [AttemptState(number=1, finalized_at=None)]
    assert codes(eligibility(attempts=running)) == ["attempt_in_progress"]
    done = [AttemptState(number=n, finalized_at=NOW) for n in (1, 2, 3)]
    result = eligibility(attempts=done)
    assert codes(result) == ["no_attempts_left"] and result.attempts_left == 0


def test_a_certifying_exam_needs_the_full_name_first():
    assert codes(eligibility(full_name_given=False)) == ["full_name_missing"]
    # Every reason at once, the name after enrollment and steps.
    both = eligibility(
        enrolled=False,
        steps=step_gate(required_share=100, steps=[StepState(1, "s", "S", completed=False)]),
        full_name_given=False,
    )
    assert codes(both) == ["not_enrolled", "steps_incomplete", "full_name_missing"]
    # A practice exam certifies nothing and needs no name; one already passed asks for nothing
    # more.
    assert eligibility(full_name_given=False, certifying=False).can_start
    assert codes(eligibility(full_name_given=False, final_passed=True)) == ["already_passed"]


def test_eligibility_waiting_time():
    finished = [AttemptState(number=1, finalized_at=NOW - datetime.timedelta(minutes=30))]
    waiting = eligibility(attempts=finished, wait=datetime.timedelta(hours=1))
    assert codes(waiting) == ["waiting"]
    assert waiting.available_at == NOW + datetime.timedelta(minutes=30)
    assert eligibility(attempts=finished, wait=datetime.timedelta(minutes=30)).can_start


def test_attempt_grade_grades_every_item_and_the_attempt():
    items = [
        GradedItem(
            id=n, position=n, correct_keys=["a"], selected_keys=sel, explanation="", is_correct=None
        )
        for n, sel in enumerate([["a"], ["b"], None, ["a"]], start=1)
    ]
    graded = attempt_grade(items=items, pass_mark_percent=Decimal("75"), reason="submitted", at=NOW)
    assert [item.is_correct for item in graded.items] == [True, False, False, True]
    assert [item.id for item in graded.items] == [1, 2, 3, 4]
    assert graded.result == AttemptResult(
        score_percent=Decimal("50.00"),
        passed=False,
        correct_count=2,
        item_count=4,
        reason="submitted",
        finalized_at=NOW,
    )
    assert items[0].is_correct is None  # the items given are left as they were


def test_result_reason_follows_the_grace_period():
    deadline = NOW - ANSWER_GRACE
    assert result_reason(deadline_at=deadline, now=NOW) == "submitted"
    later = NOW + datetime.timedelta(microseconds=1)
    assert result_reason(deadline_at=deadline, now=later) == "expired"


def test_attempts_with_result_replaces_only_that_attempts_result():
    result = AttemptResult(
        score_percent=Decimal(90),
        passed=True,
        correct_count=9,
        item_count=10,
        reason="expired",
        finalized_at=NOW,
    )
    attempts = [LearnerAttempt(id=7, number=1, result=None), LearnerAttempt(8, 2, None)]
    assert attempts_with_result(attempts, attempt_id=8, result=result) == [
        attempts[0],
        LearnerAttempt(id=8, number=2, result=result),
    ]
