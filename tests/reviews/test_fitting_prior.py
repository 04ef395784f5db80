"""A learner's fit drawn toward their module's pooled parameters (reviews.fitting.
parameters_optimize): where it lies, that the adoption rule still judges it on held-out reviews,
and that the refit service draws toward the module's adopted pooled parameters."""

from __future__ import annotations

import datetime
import random

import pytest

from bench.fsrs_truth import POPULATIONS
from reviews import fitting
from reviews.models import ModuleParameters, ParameterFit
from reviews.scheduling import DEFAULT_PARAMETERS
from reviews.selectors import learner_reviews
from reviews.services import parameters as parameters_services
from tests.reviews.test_fitting import simulated_log
from tests.reviews.test_parameters import log_write

UTC = datetime.UTC
RUN_AT = datetime.datetime(2031, 5, 3, 2, 0, tzinfo=UTC)
REMEMBERS_WELL, FORGETS_FAST = POPULATIONS[3], POPULATIONS[2]


def _items(log):
    return [item.item for item in fitting._items(log, time_zone="UTC")]


def _split(items):
    held = int(len(items) * fitting.HOLDOUT_SHARE)
    return items[:-held], items[-held:]


def test_a_drawn_fit_lies_between_the_own_fit_and_the_prior_weighted_by_items():
    log = simulated_log(parameters=REMEMBERS_WELL.draw(random.Random(7)), reviews=600, seed=7)
    items = _items(log)
    prior = REMEMBERS_WELL.draw(random.Random(8))  # another learner of the population
    own = fitting.parameters_optimize(items)
    drawn = fitting.parameters_optimize(items, prior=prior)
    weight = len(items) / (len(items) + fitting.PRIOR_ITEMS)
    assert 0 < weight < 1
    # ``own`` is rounded to four decimals, as ``drawn`` is: a rounding step apart at most.
    for value, mine, base in zip(drawn, own, prior, strict=True):
        assert value == pytest.approx(base + weight * (mine - base), abs=2e-4)
    assert drawn != own and drawn != prior
    # More items weigh the own fit more.
    longer = _items(
        simulated_log(parameters=REMEMBERS_WELL.draw(random.Random(7)), reviews=2000, seed=7)
    )
    assert len(longer) / (len(longer) + fitting.PRIOR_ITEMS) > weight


def test_a_drawn_fit_is_judged_by_held_out_log_loss_like_any_fit():
    log = simulated_log(parameters=REMEMBERS_WELL.draw(random.Random(9)), reviews=800, seed=9)
    train, test = _split(_items(log))
    prior = REMEMBERS_WELL.draw(random.Random(10))
    outcome = fitting.parameters_fit(
        reviews=log, time_zone="UTC", current=DEFAULT_PARAMETERS, prior=prior
    )
    # The fit the rule judges is the drawn one, on the newest 20 % (the learner's own
    # population predicts their earlier reviews better than the defaults: it is the prior).
    judged_fit = fitting.parameters_optimize(train, prior=prior)
    # fsrs-rs sums in threads: the same evaluation agrees to the last few digits only.
    for judged, parameters in (
        (outcome.fitted, judged_fit),
        (outcome.current, DEFAULT_PARAMETERS),
    ):
        again = fitting.evaluate(parameters, test)
        assert judged.reviews == again.reviews == len(test)
        assert judged.log_loss == pytest.approx(again.log_loss, rel=1e-6)
    assert outcome.adopted  # far from the defaults, drawn toward its own population
    # Once adopted, the parameters are the drawn fit of all the reviews.
    assert outcome.parameters == fitting.parameters_optimize(train + test, prior=prior)


def test_a_fit_drawn_toward_a_wrong_prior_that_predicts_worse_is_not_adopted():
    # A learner who remembers well already has their own fit in use; a module whose pooled
    # parameters are those of a learner who forgets fast draws the next fit away from the
    # truth: it predicts the held-out reviews worse and the rule keeps what is in use.
    log = simulated_log(parameters=REMEMBERS_WELL.draw(random.Random(11)), reviews=800, seed=11)
    in_use = fitting.parameters_fit(reviews=log, time_zone="UTC", current=DEFAULT_PARAMETERS)
    wrong = FORGETS_FAST.draw(random.Random(12))
    outcome = fitting.parameters_fit(
        reviews=log, time_zone="UTC", current=in_use.parameters, prior=wrong
    )
    assert outcome.fitted.log_loss > outcome.current.log_loss
    assert not outcome.adopted


def test_on_short_logs_drawing_toward_the_pooled_parameters_predicts_later_reviews_better():
    # Six learners who forget fast, 500 reviews each (about 200 predictable ones): the pooled
    # fit of the other five is the prior. Judged on each learner's next 1,500 reviews.
    rng = random.Random(13)
    logs = [
        simulated_log(parameters=FORGETS_FAST.draw(rng), reviews=2000, seed=60 + index)
        for index in range(6)
    ]
    own_loss = drawn_loss = 0.0
    for index, log in enumerate(logs):
        cut = log[499].reviewed_at
        train = _items(log[:500])
        held = [item.item for item in fitting._items(log, time_zone="UTC") if item.at > cut]
        pooled = fitting.parameters_optimize(
            [
                item
                for other, log_ in enumerate(logs)
                if other != index
                for item in _items(log_[:500])
            ]
        )
        own_loss += fitting.evaluate(fitting.parameters_optimize(train), held).log_loss
        drawn_loss += fitting.evaluate(
            fitting.parameters_optimize(train, prior=pooled), held
        ).log_loss
    assert drawn_loss < own_loss


@pytest.mark.django_db
def test_the_refit_draws_toward_the_modules_adopted_pooled_parameters(make_learner, course):
    learner = make_learner("drawn")
    log = simulated_log(parameters=REMEMBERS_WELL.draw(random.Random(14)), reviews=400, seed=14)
    log_write(learner, course, log)
    reviews = learner_reviews(learner.pk)
    zone = learner.time_zone
    # Without pooled parameters of the module: the own fit alone.
    alone = parameters_services.learner_parameters_fit(
        learner_id=learner.pk, run_key="2031-04", at=RUN_AT
    )
    expected = fitting.parameters_fit(reviews=reviews, time_zone=zone, current=DEFAULT_PARAMETERS)
    assert ParameterFit.objects.get(pk=alone.fit_id).parameters == list(expected.parameters)
    # With them: drawn toward them (the learner's own parameters now in use are ``current``).
    pooled = REMEMBERS_WELL.draw(random.Random(15))
    pool = ParameterFit.objects.create(
        module=course,
        run_key="2031-04",
        fitted_at=RUN_AT,
        review_count=5_000,
        parameters=list(pooled),
        log_loss=0.3,
        log_loss_before=0.4,
        rmse_bins=0.03,
        rmse_bins_before=0.05,
        adopted=True,
    )
    ModuleParameters.objects.create(module=course, parameters=list(pooled), version=1, fit=pool)
    current = expected.parameters if alone.outcome == "adopted" else DEFAULT_PARAMETERS
    drawn = parameters_services.learner_parameters_fit(
        learner_id=learner.pk, run_key="2031-05", at=RUN_AT
    )
    expected = fitting.parameters_fit(
        reviews=reviews, time_zone=zone, current=current, prior=pooled
    )
    fit = ParameterFit.objects.get(pk=drawn.fit_id)
    assert fit.parameters == list(expected.parameters)
    assert fit.parameters != ParameterFit.objects.get(pk=alone.fit_id).parameters
    assert fit.adopted == expected.adopted
