"""The adoption rule (a paired test on the held-out reviews), the per-review losses it reads, the
choice of the prior (the pooled parameters or the defaults) and the refit on all reviews once a
fit is adopted (reviews.fitting, pure)."""

from __future__ import annotations

import random
import statistics

import pytest

from bench.fsrs_truth import POPULATIONS
from reviews import fitting
from reviews.scheduling import DEFAULT_PARAMETERS
from tests.reviews.test_fitting import simulated_log

NEAR, FORGETS_FAST, REMEMBERS_WELL = POPULATIONS[0], POPULATIONS[2], POPULATIONS[3]


def _losses(gains: list[float]) -> tuple[list[float], list[float]]:
    """(losses in use, losses of the fit) whose paired differences are ``gains``."""
    current = [0.5 + 0.01 * (index % 7) for index in range(len(gains))]
    return current, [now - gain for now, gain in zip(current, gains, strict=True)]


def test_a_clear_gain_on_enough_held_out_reviews_is_adopted():
    rng = random.Random(1)
    gains = [0.02 + rng.gauss(0, 0.05) for _ in range(400)]
    assert statistics.fmean(gains) > 3 * statistics.stdev(gains) / 20
    assert fitting.adoption_decide(*_losses(gains))


def test_too_few_held_out_reviews_are_never_enough_however_large_the_gain():
    gains = [0.5] * (fitting.MIN_HELD_OUT_ITEMS - 2) + [0.4]
    assert not fitting.adoption_decide(*_losses(gains))
    assert fitting.adoption_decide(*_losses([*gains, 0.45]))


def test_a_gain_within_its_standard_error_is_not_adopted():
    # Mean gain 0.01, standard deviation about 0.2 over 200 reviews: 0.7 standard errors.
    rng = random.Random(2)
    gains = [rng.choice((0.21, -0.19)) for _ in range(200)]
    mean, error = statistics.fmean(gains), statistics.stdev(gains) / 200**0.5
    assert 0 < mean < fitting.ADOPTION_Z * error
    assert not fitting.adoption_decide(*_losses(gains))


def test_the_margin_is_adoption_z_standard_errors():
    # Half the reviews gain g + 0.1, half g − 0.1: standard error 0.1 / sqrt(n) (nearly).
    n = 400
    error = statistics.stdev([0.1, -0.1] * (n // 2)) / n**0.5
    below = fitting.ADOPTION_Z * error * 0.95
    above = fitting.ADOPTION_Z * error * 1.05
    assert not fitting.adoption_decide(*_losses([below + 0.1, below - 0.1] * (n // 2)))
    assert fitting.adoption_decide(*_losses([above + 0.1, above - 0.1] * (n // 2)))


def test_the_same_predictions_or_worse_ones_are_not_adopted():
    current = [0.3 + 0.001 * index for index in range(300)]
    assert not fitting.adoption_decide(current, current)
    assert not fitting.adoption_decide(current, [loss + 0.01 for loss in current])


def test_losses_of_different_reviews_are_refused():
    with pytest.raises(ValueError):
        fitting.adoption_decide([0.1] * 200, [0.1] * 199)


def test_the_per_review_losses_are_fsrs_rs_log_loss_of_each_review():
    log = simulated_log(parameters=FORGETS_FAST.draw(random.Random(3)), reviews=400, seed=3)
    items = fitting._items(log, time_zone="UTC")
    for parameters in (DEFAULT_PARAMETERS, FORGETS_FAST.draw(random.Random(4))):
        losses = fitting.log_losses(parameters, items)
        assert len(losses) == len(items) and all(loss > 0 for loss in losses)
        for item, loss in zip(items, losses, strict=True):
            expected = fitting.evaluate(parameters, [item.item]).log_loss
            assert loss == pytest.approx(expected, rel=1e-4)
    assert fitting.log_losses(DEFAULT_PARAMETERS, []) == []


def test_the_prior_is_whichever_of_pooled_and_defaults_predicts_the_learners_own_reviews():
    pooled = FORGETS_FAST.draw(random.Random(5))  # another learner of the population
    fast = fitting._items(
        simulated_log(parameters=FORGETS_FAST.draw(random.Random(6)), reviews=500, seed=6),
        time_zone="UTC",
    )
    near = fitting._items(
        simulated_log(parameters=NEAR.draw(random.Random(7)), reviews=500, seed=7),
        time_zone="UTC",
    )
    candidates = [pooled, DEFAULT_PARAMETERS]
    assert fitting.prior_choose(fast, candidates=candidates) == pooled
    # A learner near the defaults in a module of learners who forget fast: the defaults.
    assert fitting.prior_choose(near, candidates=candidates) == DEFAULT_PARAMETERS
    assert fitting.prior_choose([], candidates=candidates) == pooled


def test_a_learner_unlike_their_module_is_drawn_toward_the_defaults():
    log = simulated_log(parameters=NEAR.draw(random.Random(8)), reviews=600, seed=8)
    wrong = REMEMBERS_WELL.draw(random.Random(9))
    items = fitting._items(log, time_zone="UTC")
    train = items[: -int(len(items) * fitting.HOLDOUT_SHARE)]
    assert fitting.prior_choose(train, candidates=[wrong, DEFAULT_PARAMETERS]) == (
        DEFAULT_PARAMETERS
    )
    outcome = fitting.parameters_fit(
        reviews=log, time_zone="UTC", current=DEFAULT_PARAMETERS, prior=wrong
    )
    fitted_on = items if outcome.adopted else train
    toward_defaults = fitting.parameters_optimize(
        [item.item for item in fitted_on], prior=DEFAULT_PARAMETERS
    )
    assert outcome.parameters == toward_defaults
    assert toward_defaults != fitting.parameters_optimize(
        [item.item for item in fitted_on], prior=wrong
    )


def test_the_rule_judges_every_fold_after_the_first_the_last_the_newest_fifth():
    assert fitting._folds(100) == [(20, 40), (40, 60), (60, 80), (80, 100)]
    assert fitting._folds(103) == [(23, 43), (43, 63), (63, 83), (83, 103)]


def test_an_adopted_fit_is_refitted_on_all_reviews_the_split_only_decides():
    log = simulated_log(parameters=FORGETS_FAST.draw(random.Random(10)), reviews=1500, seed=10)
    items = fitting._items(log, time_zone="UTC")
    held = int(len(items) * fitting.HOLDOUT_SHARE)
    train, test = items[:-held], items[-held:]
    outcome = fitting.parameters_fit(reviews=log, time_zone="UTC", current=DEFAULT_PARAMETERS)
    assert outcome.adopted
    # The defaults are the only candidate prior here.
    on_train = fitting.parameters_optimize([i.item for i in train], prior=DEFAULT_PARAMETERS)
    on_all = fitting.parameters_optimize([i.item for i in items], prior=DEFAULT_PARAMETERS)
    assert outcome.parameters == on_all != on_train
    # What was judged is the fit of the older reviews, on the newest.
    judged = fitting.evaluate(on_train, [i.item for i in test])
    assert outcome.fitted.log_loss == pytest.approx(judged.log_loss, rel=1e-6)
    assert outcome.fitted.reviews == len(test)
