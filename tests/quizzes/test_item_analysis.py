"""Item analysis (quizzes/item_analysis.py) against figures computed independently: Python's
``statistics`` module for correlations and (co)variances, and Cronbach's alpha by its
inter-item-covariance form instead of the variance-sum form the code uses."""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest

from quizzes.item_analysis import (
    DOUBTFUL_EFFICIENCY_BELOW,
    AttemptMarks,
    attempt_version,
    bank_version,
    exam_figures,
    item_figures,
)

TOLERANCE = 1e-9

# Eight learners, five items, every learner saw every item in this order (rows: learners).
FULL = [
    [1, 1, 1, 1, 0],
    [1, 1, 1, 0, 1],
    [1, 1, 0, 1, 0],
    [1, 0, 1, 0, 0],
    [1, 1, 0, 0, 1],
    [0, 1, 0, 0, 0],
    [1, 0, 0, 0, 1],
    [0, 0, 0, 0, 1],  # item 5 is miskeyed: the weakest learners get it right
]


def full_attempts() -> list[AttemptMarks]:
    return [AttemptMarks(items=(1, 2, 3, 4, 5), marks=tuple(float(m) for m in row)) for row in FULL]


def independent_item(marks: list[float], rests: list[float]) -> dict[str, float]:
    return {
        "facility": 100 * statistics.fmean(marks),
        "sd": 100 * statistics.stdev(marks),
        "index": 100 * statistics.correlation(marks, rests),
        "efficiency": 100
        * statistics.covariance(marks, rests)
        / statistics.covariance(sorted(marks), sorted(rests)),
    }


def assert_item_matches(figures, expected) -> None:
    assert figures.facility == pytest.approx(expected["facility"], abs=TOLERANCE)
    assert figures.standard_deviation == pytest.approx(expected["sd"], abs=TOLERANCE)
    assert figures.discrimination_index == pytest.approx(expected["index"], abs=TOLERANCE)
    assert figures.discriminative_efficiency == pytest.approx(expected["efficiency"], abs=TOLERANCE)


def test_item_figures_match_an_independent_computation_on_a_full_matrix():
    figures = item_figures(full_attempts())
    for column, item in enumerate((1, 2, 3, 4, 5)):
        marks = [float(row[column]) for row in FULL]
        rests = [float(sum(row) - row[column]) for row in FULL]
        assert figures[item].answered == len(FULL)
        assert_item_matches(figures[item], independent_item(marks, rests))
    # The miskeyed item separates the wrong way round and is flagged.
    assert figures[5].discrimination_index < 0
    assert figures[5].doubtful
    assert not figures[1].doubtful


def test_exam_figures_match_cronbachs_alpha_in_its_covariance_form():
    exam = exam_figures(full_attempts())
    k = 5
    columns = [[float(row[c]) for row in FULL] for c in range(k)]
    totals = [float(sum(row)) for row in FULL]
    mean_variance = statistics.fmean(statistics.variance(c) for c in columns)
    mean_covariance = statistics.fmean(
        statistics.covariance(a, b) for a, b in itertools.combinations(columns, 2)
    )
    alpha = k * mean_covariance / (mean_variance + (k - 1) * mean_covariance)
    percents = [100 * t / k for t in totals]
    sd = statistics.stdev(percents)
    assert exam.attempts == len(FULL) and exam.items_per_attempt == k
    assert exam.mean_percent == pytest.approx(statistics.fmean(percents), abs=TOLERANCE)
    assert exam.standard_deviation_percent == pytest.approx(sd, abs=TOLERANCE)
    assert exam.internal_consistency == pytest.approx(100 * alpha, abs=TOLERANCE)
    assert exam.error_ratio == pytest.approx(100 * math.sqrt(1 - alpha), abs=TOLERANCE)
    assert exam.standard_error_percent == pytest.approx(sd * math.sqrt(1 - alpha), abs=TOLERANCE)


def random_draws(seed: int) -> list[AttemptMarks]:
    """Thirty learners each drawing 4 of 9 items in a random order, with a latent ability."""
    rng = random.Random(seed)
    attempts = []
    for _ in range(30):
        ability = rng.random()
        items = tuple(rng.sample(range(1, 10), 4))
        marks = tuple(1.0 if rng.random() < (ability + item / 20) else 0.0 for item in items)
        attempts.append(AttemptMarks(items=items, marks=marks))
    return attempts


@pytest.mark.parametrize("seed", [1, 7, 2026])
def test_drawn_items_use_only_the_attempts_that_drew_them(seed):
    attempts = random_draws(seed)
    figures = item_figures(attempts)
    for item in range(1, 10):
        pairs = [
            (mark, attempt.total - mark)
            for attempt in attempts
            for drawn, mark in zip(attempt.items, attempt.marks, strict=True)
            if drawn == item
        ]
        marks, rests = [p[0] for p in pairs], [p[1] for p in pairs]
        assert figures[item].answered == len(pairs)
        if len(set(marks)) > 1 and len(set(rests)) > 1:
            assert_item_matches(figures[item], independent_item(marks, rests))


@pytest.mark.parametrize("seed", [1, 7, 2026])
def test_exam_figures_use_draw_positions_as_slots(seed):
    attempts = random_draws(seed)
    exam = exam_figures(attempts)
    k = 4
    slots = [[a.marks[s] for a in attempts] for s in range(k)]
    totals = [a.total for a in attempts]
    alpha = (
        k / (k - 1) * (1 - sum(statistics.variance(s) for s in slots) / statistics.variance(totals))
    )
    assert exam.internal_consistency == pytest.approx(100 * alpha, abs=TOLERANCE)


def test_figures_that_cannot_be_computed_are_none_not_zero():
    one = item_figures([AttemptMarks(items=(1, 2), marks=(1.0, 0.0))])
    assert one[1].facility == 100.0
    assert one[1].standard_deviation is None
    assert one[1].discrimination_index is None and one[1].discriminative_efficiency is None
    assert not one[1].doubtful
    everyone_right = item_figures(
        [AttemptMarks(items=(1, 2), marks=(1.0, m)) for m in (0.0, 1.0, 1.0)]
    )
    assert everyone_right[1].standard_deviation == 0.0
    assert everyone_right[1].discrimination_index is None
    assert exam_figures([]).internal_consistency is None


def test_a_perfectly_ordered_item_is_fully_efficient():
    attempts = [
        AttemptMarks(items=(1, 2, 3), marks=(float(m1), float(m2), float(m3)))
        for m1, m2, m3 in [(0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 1, 1)]
    ]
    assert item_figures(attempts)[1].discriminative_efficiency == pytest.approx(100.0)
    assert DOUBTFUL_EFFICIENCY_BELOW == 15.0


def test_exam_figures_keep_the_usual_attempt_length():
    attempts = [*full_attempts(), AttemptMarks(items=(1, 2), marks=(1.0, 1.0))]
    assert exam_figures(attempts).attempts == len(FULL)


def test_a_version_is_the_same_whatever_order_an_attempt_showed():
    bank = bank_version(
        kind="single_choice",
        prompt="Welche Karte?",
        options=[{"key": "a", "text": "A100"}, {"key": "b", "text": "T4"}],
        correct_keys=["b"],
        answer_key={},
    )
    shown = attempt_version(
        kind="single_choice",
        prompt="Welche Karte?",
        options=[{"key": "a", "text": "T4"}, {"key": "b", "text": "A100"}],
        correct_keys=["a"],
        choices=None,
        answer_key=None,
    )
    assert bank == shown
    rekeyed = attempt_version(
        kind="single_choice",
        prompt="Welche Karte?",
        options=[{"key": "a", "text": "T4"}, {"key": "b", "text": "A100"}],
        correct_keys=["b"],
        choices=None,
        answer_key=None,
    )
    assert bank != rekeyed


def test_a_matching_version_reads_the_attempts_relabelled_copy():
    pairs = [{"left": "OOM", "right": "Speicher"}, {"left": "Xid 79", "right": "Bus"}]
    bank = bank_version(
        kind="matching", prompt="Ordne zu", options=[], correct_keys=[], answer_key={"pairs": pairs}
    )
    shown = attempt_version(
        kind="matching",
        prompt="Ordne zu",
        options=[{"key": "a", "text": "Xid 79"}, {"key": "b", "text": "OOM"}],
        correct_keys=[],
        choices=[{"key": "1", "text": "Speicher"}, {"key": "2", "text": "Bus"}],
        answer_key={"pairs": {"a": "2", "b": "1"}},
    )
    assert bank == shown
