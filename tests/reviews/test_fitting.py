"""Fitting FSRS parameters (reviews.fitting, pure): local days as FSRS counts them, fits judged
on held-out reviews, and the exam-date rule (reviews.scheduling)."""

from __future__ import annotations

import datetime
import itertools
import random
import zoneinfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.fsrs_truth import POPULATIONS, TrueMemory
from reviews import fitting
from reviews.scheduling import (
    DEFAULT_PARAMETERS,
    CardState,
    card_review,
    exam_interval_shorten,
    exam_recall,
)

UTC = datetime.UTC
START = datetime.datetime(2030, 3, 1, 8, 0, tzinfo=UTC)


def simulated_log(
    *, parameters, reviews: int, seed: int, new_per_day: int = 12
) -> list[fitting.LoggedReview]:
    """A learner with true ``parameters`` reviewing every due card each morning, scheduled by
    Lernpfad's FSRS with the defaults (pure: no database). The same ``seed`` gives the same log
    in every process: FSRS's fuzz draws from the ``random`` module's own generator, which is
    seeded here for the length of the call (and given back as it was)."""
    outer = random.getstate()
    random.seed(seed)
    try:
        return _simulated_log(
            parameters=parameters, reviews=reviews, seed=seed, new_per_day=new_per_day
        )
    finally:
        random.setstate(outer)


def _simulated_log(*, parameters, reviews: int, seed: int, new_per_day: int):
    rng = random.Random(seed)
    memory = TrueMemory(parameters=parameters, rng=rng)
    states: dict[int, CardState] = {}
    log: list[fitting.LoggedReview] = []
    day = 0
    while len(log) < reviews:
        at = START + datetime.timedelta(days=day, minutes=rng.randint(0, 120))
        for _ in range(new_per_day):
            states[len(states)] = CardState.new(at=at)
        for _step in range(4):  # the day's session and its learning steps
            due = [card_id for card_id, state in states.items() if state.due <= at]
            for card_id in due:
                rating = memory.answer(card_id, at)
                states[card_id] = card_review(
                    state=states[card_id], rating=rating, at=at, desired_retention=0.9
                )
                log.append(fitting.LoggedReview(card_id, rating, at))
            at += datetime.timedelta(minutes=11)
        day += 1
    return log[:reviews]


def fsrs_recipe_days(times: list[datetime.datetime], offset_hours: int) -> list[int]:
    """FSRS's own conversion of review times to days (fsrs-rs-python's examples/train_csv.py
    and the fsrs-optimizer): move the UTC timestamp by the zone's offset, cut it to its date,
    take the difference in days to the card's review before."""
    dates = [(time + datetime.timedelta(hours=offset_hours)).date() for time in times]
    return [0] + [(later - earlier).days for earlier, later in itertools.pairwise(dates)]


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.integers(min_value=0, max_value=60 * 24 * 40), min_size=1, max_size=12),
    start_minute=st.integers(min_value=0, max_value=60 * 24 - 1),
)
def test_review_days_are_the_learners_local_days_as_fsrs_counts_them(gaps, start_minute):
    # Asia/Shanghai has had no daylight saving since 1991: one fixed offset, as FSRS's recipe
    # assumes.
    at = datetime.datetime(2030, 1, 1, tzinfo=UTC) + datetime.timedelta(minutes=start_minute)
    times = [at]
    for gap in gaps:
        times.append(times[-1] + datetime.timedelta(minutes=gap))
    reviews = [fitting.LoggedReview(1, 3, time) for time in times]
    days = [delta for _rating, delta in fitting.review_days(reviews, time_zone="Asia/Shanghai")[1]]
    assert days == fsrs_recipe_days(times, offset_hours=8)


def test_local_days_follow_the_learners_clock_not_utc():
    # 23:30 and 00:30 in Berlin are a day apart; in UTC they are the same day (22:30, 23:30).
    evening = datetime.datetime(2030, 1, 10, 22, 30, tzinfo=UTC)
    reviews = [
        fitting.LoggedReview(7, 3, evening),
        fitting.LoggedReview(7, 3, evening + datetime.timedelta(hours=1)),
    ]
    assert fitting.review_days(reviews, time_zone="Europe/Berlin")[7] == [(3, 0), (3, 1)]
    assert fitting.review_days(reviews, time_zone="UTC")[7] == [(3, 0), (3, 0)]
    # Across the spring-forward night a local day is 23 hours and still one day.
    before = datetime.datetime(2030, 3, 30, 12, 0, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin"))
    after = datetime.datetime(2030, 3, 31, 12, 0, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin"))
    reviews = [fitting.LoggedReview(8, 3, before), fitting.LoggedReview(8, 3, after)]
    assert fitting.review_days(reviews, time_zone="Europe/Berlin")[8] == [(3, 0), (3, 1)]


def test_the_default_parameters_are_fsrs_6s_in_both_libraries():
    import fsrs_rs_python

    assert len(DEFAULT_PARAMETERS) == 21
    assert pytest.approx(fsrs_rs_python.DEFAULT_PARAMETERS, abs=1e-6) == DEFAULT_PARAMETERS


def test_a_fit_to_a_learner_far_from_the_defaults_predicts_better_and_is_adopted():
    away = POPULATIONS[2]
    log = simulated_log(parameters=away.draw(random.Random(3)), reviews=1500, seed=3)
    outcome = fitting.parameters_fit(reviews=log, time_zone="UTC", current=DEFAULT_PARAMETERS)
    assert outcome is not None
    assert outcome.fitted.reviews > 100
    assert outcome.fitted.log_loss < outcome.current.log_loss
    assert outcome.adopted
    assert outcome.parameters != DEFAULT_PARAMETERS


def test_a_fit_that_does_not_improve_the_held_out_loss_is_not_adopted():
    log = simulated_log(parameters=POPULATIONS[0].draw(random.Random(4)), reviews=600, seed=4)
    first = fitting.parameters_fit(reviews=log, time_zone="UTC", current=DEFAULT_PARAMETERS)
    # The same log fitted again gives the same fit of the older reviews (fsrs-rs is seeded):
    # with it in use, the new fit predicts the held-out reviews exactly as well, which is not
    # better.
    fit = fitting.parameters_optimize(
        [item.item for item in fitting._items(log, time_zone="UTC")][: first.fitted.reviews * -1],
        prior=DEFAULT_PARAMETERS,
    )
    again = fitting.parameters_fit(reviews=log, time_zone="UTC", current=fit)
    assert again.fitted.log_loss == again.current.log_loss
    assert not again.adopted


def test_too_few_reviews_are_not_fitted():
    log = simulated_log(parameters=DEFAULT_PARAMETERS, reviews=99, seed=5)
    assert fitting.parameters_fit(reviews=log, time_zone="UTC", current=DEFAULT_PARAMETERS) is None


def test_pooled_parameters_are_judged_on_held_out_learners():
    away = POPULATIONS[2]
    rng = random.Random(6)
    learners = [
        fitting.LearnerLog(
            reviews=simulated_log(parameters=away.draw(rng), reviews=500, seed=seed),
            time_zone="UTC",
        )
        for seed in range(6)
    ]
    outcome = fitting.parameters_pool(learners=learners)
    assert outcome is not None
    assert outcome.current.log_loss > outcome.fitted.log_loss
    assert outcome.adopted
    assert fitting.parameters_pool(learners=learners[:4]) is None
    # Held-out learners with too few predictable reviews to judge (one of 250: about 60).
    short = [
        fitting.LearnerLog(reviews=learner.reviews[:250], time_zone="UTC") for learner in learners
    ]
    assert fitting.parameters_pool(learners=short) is None


# --- the exam-date rule ------------------------------------------------------------------------

reviewed_states = st.builds(
    lambda stability, difficulty, days, state: CardState(
        state=state,
        learning_step=None if state == 2 else 0,
        stability=stability,
        difficulty=difficulty,
        due=START + datetime.timedelta(days=days),
        last_review=START,
    ),
    stability=st.floats(min_value=0.01, max_value=3650),
    difficulty=st.floats(min_value=1, max_value=10),
    days=st.floats(min_value=0.0007, max_value=3650),
    state=st.sampled_from([1, 2, 3]),
)


@settings(max_examples=500, deadline=None)
@given(
    state=reviewed_states,
    exam_in_days=st.floats(min_value=-30, max_value=4000),
    retention=st.floats(min_value=0.8, max_value=0.97),
    population=st.sampled_from(POPULATIONS),
    seed=st.integers(min_value=0, max_value=1000),
)
def test_the_exam_rule_never_lengthens_an_interval(
    state, exam_in_days, retention, population, seed
):
    parameters = population.draw(random.Random(seed))
    exam_at = START + datetime.timedelta(days=exam_in_days)
    shortened = exam_interval_shorten(
        state=state, exam_at=exam_at, parameters=parameters, desired_retention=retention
    )
    assert shortened.due <= state.due
    assert shortened.due > state.last_review
    # Only the due date moves.
    assert shortened.stability == state.stability and shortened.state == state.state
    if shortened.due < state.due:
        # Only an interval that ends after the exam with the recall then below the target,
        # and the card comes back before the exam.
        assert state.due > exam_at
        assert exam_recall(state=state, exam_at=exam_at, parameters=parameters) < retention
        assert shortened.due < exam_at


def test_a_card_that_would_fall_below_the_target_by_the_exam_comes_back_before_it():
    state = CardState(
        state=2,
        learning_step=None,
        stability=10.0,
        difficulty=5.0,
        due=START + datetime.timedelta(days=40),
        last_review=START,
    )
    exam_at = START + datetime.timedelta(days=30)
    assert exam_recall(state=state, exam_at=exam_at, parameters=DEFAULT_PARAMETERS) < 0.9
    shortened = exam_interval_shorten(
        state=state, exam_at=exam_at, parameters=DEFAULT_PARAMETERS, desired_retention=0.9
    )
    # Back when the recall reaches 0.9: ten days (stability is the 90 % interval).
    assert abs(shortened.due - (START + datetime.timedelta(days=10))) < datetime.timedelta(
        minutes=1
    )
    # An exam after the due date, or before the last review, changes nothing.
    for later in (START + datetime.timedelta(days=41), START - datetime.timedelta(days=1)):
        same = exam_interval_shorten(
            state=state, exam_at=later, parameters=DEFAULT_PARAMETERS, desired_retention=0.9
        )
        assert same == state
