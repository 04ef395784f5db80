"""The settings page's "Optimize" and the module page's exam date, through Django's client; the
readiness costs the same queries for one card and for many."""

from __future__ import annotations

import datetime
import random

import pytest
from django.utils import timezone

from bench.fsrs_truth import POPULATIONS
from reviews.models import (
    ExamDate,
    LearnerParameters,
    ModuleParameters,
    ParameterFit,
    ReviewCard,
)
from reviews.scheduling import DEFAULT_PARAMETERS
from tests.helpers.queries import assert_queries_within
from tests.reviews.test_fitting import simulated_log
from tests.reviews.test_parameters import log_write


@pytest.fixture
def client(client, settings):
    """Pages in English (the language cookie a log-in sets)."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def reviewer(make_learner, course):
    learner = make_learner("rita", language="en")
    log = simulated_log(parameters=POPULATIONS[2].draw(random.Random(3)), reviews=1500, seed=3)
    log_write(learner, course, log)
    return learner


def test_optimize_fits_adopts_and_shows_the_fit_then_refuses_a_second_at_once(client, reviewer):
    client.force_login(reviewer)
    page = client.get("/settings/").content.decode()
    assert "Optimize" in page and "1500 reviews" in page
    response = client.post("/settings/fsrs/optimize/", follow=True)
    text = response.content.decode()
    fit = ParameterFit.objects.get(learner=reviewer)
    assert fit.review_count == 1500
    # This learner forgets far faster than the defaults: the fit predicts better, is adopted.
    assert fit.adopted and LearnerParameters.objects.get(learner=reviewer).version == 1
    assert "New parameters fitted to your reviews" in text
    assert "Fitted to your 1,500 reviews (version 1): in use because they predicted" in text
    assert f"{fit.log_loss:.4f}" in text and f"{fit.log_loss_before:.4f}" in text
    again = client.post("/settings/fsrs/optimize/", follow=True).content.decode()
    assert "You optimized a few minutes ago" in again
    assert ParameterFit.objects.filter(learner=reviewer).count() == 1


def _in_use_sentence(client) -> str:
    """The settings page's one sentence on the parameters in use, whitespace folded."""
    page = client.get("/settings/").content.decode()
    start = page.index('id="fsrs-parameters-in-use"')
    return " ".join(page[page.index(">", start) + 1 : page.index("</p>", start)].split())


def _fit_row(*, adopted: bool, run_key: str = "2031-05", **subject) -> ParameterFit:
    return ParameterFit.objects.create(
        run_key=run_key,
        fitted_at=timezone.now(),
        review_count=1240,
        parameters=list(DEFAULT_PARAMETERS),
        log_loss=0.30,
        log_loss_before=0.31,
        rmse_bins=0.05,
        rmse_bins_before=0.06,
        adopted=adopted,
        **subject,
    )


def test_the_settings_page_says_in_one_sentence_which_parameters_are_in_use_and_why(
    client, settings, reviewer, course
):
    """German (the default) and English: the defaults until a fit is adopted, the module's
    pooled parameters, a fit that was not adopted, and the learner's own fit with its count."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    client.force_login(reviewer)
    assert _in_use_sentence(client) == "Standardwerte, bis genug Wiederholungen vorliegen."
    _fit_row(adopted=False, learner=reviewer)
    assert _in_use_sentence(client).startswith("Standardwerte: eine Anpassung an deine")
    pool = _fit_row(adopted=True, module=course)
    ModuleParameters.objects.create(
        module=course, parameters=list(DEFAULT_PARAMETERS), version=1, fit=pool
    )
    assert _in_use_sentence(client) == (
        "Gemeinsam aus den Wiederholungen der Lernenden dieses Moduls angepasst, bis genug "
        "eigene Wiederholungen vorliegen."
    )
    own = _fit_row(adopted=True, learner=reviewer, run_key="2031-06")
    LearnerParameters.objects.create(
        learner=reviewer, parameters=list(DEFAULT_PARAMETERS), version=3, fit=own
    )
    assert _in_use_sentence(client) == (
        "Angepasst an deine 1.240 Wiederholungen (Version 3): in Gebrauch, weil sie deine "
        "letzten Wiederholungen besser vorhersagten als die Parameter davor."
    )
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert _in_use_sentence(client) == (
        "Fitted to your 1,240 reviews (version 3): in use because they predicted your recent "
        "reviews better than the parameters before."
    )


def test_the_exam_date_form_refuses_bad_dates_with_a_message(client, reviewer, course):
    from progress.services.enrollment import enrollment_create

    enrollment_create(learner_id=reviewer.pk, module_slug=course.slug)
    client.force_login(reviewer)
    url = f"/modules/{course.slug}/exam-date/"
    text = client.post(url, {"exam_on": "tomorrow-ish"}, follow=True).content.decode()
    assert "Enter the exam date as a date" in text
    far = (timezone.now().date() + datetime.timedelta(days=400)).isoformat()
    text = client.post(url, {"exam_on": far}, follow=True).content.decode()
    assert "too far ahead" in text
    assert not ExamDate.objects.exists()
    soon = (timezone.now().date() + datetime.timedelta(days=14)).isoformat()
    text = client.post(url, {"exam_on": soon}, follow=True).content.decode()
    assert "Your exam date is saved" in text and "Predicted exam score" in text


@pytest.mark.parametrize("cards", [1, 60])
def test_readiness_costs_the_same_queries_for_one_card_or_many(make_learner, course, cards):
    from lms.local_time import local_day
    from reviews.scheduling import CardState
    from reviews.selectors import exam_readiness

    learner = make_learner("ada")
    now = timezone.now()
    steps = list(course.steps.order_by("number"))
    rows = []
    for index in range(cards):
        state = CardState(2, None, 3.0 + index, 5.0, now + datetime.timedelta(days=2), now)
        rows.append(
            ReviewCard(
                learner=learner,
                kind=ReviewCard.Kind.DEFINITION,
                step=steps[index % len(steps)],
                module=course,
                created_at=now,
                **state.columns(),
            )
        )
    # Definition cards are one per step: the rest are the same step's quick checks.
    ReviewCard.objects.bulk_create(rows[: len(steps)])
    # Nine days after the learner's own day (their zone may already be on the next date).
    today = local_day(time_zone=learner.time_zone, at=now).date
    ExamDate.objects.create(
        learner=learner, module=course, exam_on=today + datetime.timedelta(days=9), set_at=now
    )
    # The date (the learner's own with the module's plan, one statement), the parameters
    # (own, pooled), the cards, the steps; the retired content's ids come from courses.api's
    # cache of a second (one more query when cold).
    exam_readiness(learner=learner, module_id=course.pk, at=now)
    assert_queries_within(
        lambda: exam_readiness(learner=learner, module_id=course.pk, at=now), budget=6
    )
    readiness = exam_readiness(learner=learner, module_id=course.pk, at=now)
    assert readiness.days_left == 9
