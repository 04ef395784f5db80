"""Exam dates through the API: refused in the past or beyond the module's limit (a clear 400 in
the learner's language), readiness once set, moving or removing it reschedules no card; the
parameters endpoint and "Optimize"; both in the data export."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from reviews.models import ExamDate, ModuleExamPlan, ReviewCard
from tests.factories import api_client_for

MODULE = "/api/v1/modules/self-hosting-27/exam-date/"


@pytest.fixture
def studying(learner, course, steps):
    """The learner with the cards of three completed steps, one of them reviewed."""
    from reviews.api import cards_for_step_ensure
    from reviews.services.reviewing import review_record

    now = timezone.now()
    for step in steps[:3]:
        cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=now)
    card = ReviewCard.objects.filter(learner=learner).order_by("id").first()
    review_record(
        learner=learner, card_id=card.pk, rating=3, duration_ms=None, client_review_id="s1"
    )
    return learner


def _local_today(learner):
    from lms.local_time import local_day

    return local_day(time_zone=learner.time_zone, at=timezone.now()).date


def test_an_exam_date_in_the_past_is_refused_with_a_clear_message(studying):
    studying.language = "en"
    studying.save(update_fields=["language"])
    client = api_client_for(studying)
    yesterday = _local_today(studying) - datetime.timedelta(days=1)
    response = client.put(
        MODULE, {"exam_on": yesterday.isoformat()}, format="json", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "exam_date_past"
    assert "past" in error["message"]
    assert not ExamDate.objects.exists()


def test_an_exam_date_beyond_the_modules_limit_is_refused(studying, course):
    ModuleExamPlan.objects.create(module=course, max_days_ahead=30)
    client = api_client_for(studying)
    today = _local_today(studying)
    too_far = today + datetime.timedelta(days=31)
    response = client.put(MODULE, {"exam_on": too_far.isoformat()}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "exam_date_too_far"
    assert (
        response.json()["error"]["detail"]["latest"]
        == (today + datetime.timedelta(days=30)).isoformat()
    )
    ok = client.put(
        MODULE, {"exam_on": (today + datetime.timedelta(days=30)).isoformat()}, format="json"
    )
    assert ok.status_code == 200


def test_the_refusal_speaks_german_to_a_german_learner(studying):
    client = api_client_for(studying)
    yesterday = _local_today(studying) - datetime.timedelta(days=1)
    response = client.put(
        MODULE, {"exam_on": yesterday.isoformat()}, format="json", HTTP_ACCEPT_LANGUAGE="de"
    )
    assert response.status_code == 400
    assert "Vergangenheit" in response.json()["error"]["message"]


def test_bad_input_is_a_400_and_an_unknown_module_a_404(studying):
    client = api_client_for(studying)
    assert client.put(MODULE, {"exam_on": "soon"}, format="json").status_code == 400
    assert client.put(MODULE, {}, format="json").status_code == 400
    unknown = client.put(
        "/api/v1/modules/no-such-module/exam-date/", {"exam_on": "2099-01-01"}, format="json"
    )
    assert unknown.status_code == 404


def test_setting_shows_readiness_and_moving_or_removing_reschedules_nothing(studying):
    client = api_client_for(studying)
    before = dict(ReviewCard.objects.filter(learner=studying).values_list("id", "due"))
    exam_on = _local_today(studying) + datetime.timedelta(days=20)
    body = client.put(MODULE, {"exam_on": exam_on.isoformat()}, format="json").json()
    assert body["exam_on"] == exam_on.isoformat() and body["set_by"] == "learner"
    readiness = body["readiness"]
    assert readiness["days_left"] == 20
    assert 0 < readiness["recall"] < 1
    assert readiness["score_percent"] == round(100 * readiness["recall"])
    # Three steps have cards, the others none (not learned yet: recall 0).
    with_cards = [step for step in readiness["steps"] if step["cards"]]
    assert len(with_cards) == 3
    assert all(step["recall"] == 0 for step in readiness["steps"] if not step["cards"])
    assert readiness["reviews"] >= 3 and readiness["reviews_per_day"] > 0
    moved = client.put(
        MODULE, {"exam_on": (exam_on - datetime.timedelta(days=10)).isoformat()}, format="json"
    )
    assert moved.json()["readiness"]["days_left"] == 10
    removed = client.delete(MODULE).json()
    assert removed["exam_on"] is None and removed["readiness"] is None
    assert dict(ReviewCard.objects.filter(learner=studying).values_list("id", "due")) == before


def test_parameters_and_optimize_through_the_api(studying):
    client = api_client_for(studying)
    overview = client.get("/api/v1/reviews/parameters/").json()
    assert overview["source"] == "default" and len(overview["parameters"]) == 21
    assert overview["review_count"] == 1 and overview["min_reviews"] == 100
    result = client.post("/api/v1/reviews/parameters/optimize/")
    assert result.status_code == 200
    assert result.json()["outcome"] == "too_few_reviews"


def test_the_export_has_the_parameters_and_exam_dates(studying, course):
    from privacy.services import account_export
    from reviews.models import LearnerParameters, ParameterFit

    fit = ParameterFit.objects.create(
        learner=studying,
        run_key="2031-01",
        fitted_at=timezone.now(),
        review_count=321,
        parameters=[0.5] * 21,
        log_loss=0.3,
        log_loss_before=0.35,
        rmse_bins=0.05,
        rmse_bins_before=0.08,
        adopted=True,
    )
    LearnerParameters.objects.create(
        learner=studying, parameters=fit.parameters, version=1, fit=fit
    )
    ExamDate.objects.create(
        learner=studying, module=course, exam_on=datetime.date(2099, 1, 1), set_at=timezone.now()
    )
    export = account_export(user=studying)["reviews"]
    assert export["fsrs_parameters"][0]["version"] == 1
    assert export["fsrs_parameter_fits"][0]["review_count"] == 321
    assert export["fsrs_parameter_fits"][0]["log_loss_before"] == 0.35
    assert export["exam_dates"][0]["exam_on"] == datetime.date(2099, 1, 1)
    assert export["exam_dates"][0]["module__slug"] == course.slug


def test_the_calendar_feed_names_the_next_exam(studying, course):
    from reviews.selectors import learner_exam_date

    today = _local_today(studying)
    assert learner_exam_date(learner_id=studying.pk, today=today) is None
    ModuleExamPlan.objects.create(module=course, exam_on=today + datetime.timedelta(days=30))
    assert learner_exam_date(learner_id=studying.pk, today=today).date == (
        today + datetime.timedelta(days=30)
    )
    ExamDate.objects.create(
        learner=studying,
        module=course,
        exam_on=today + datetime.timedelta(days=12),
        set_at=timezone.now(),
    )
    upcoming = learner_exam_date(learner_id=studying.pk, today=today)
    assert upcoming.date == today + datetime.timedelta(days=12)
    assert upcoming.module_title == course.title
    # A past exam is no next exam.
    assert (
        learner_exam_date(learner_id=studying.pk, today=today + datetime.timedelta(days=40)) is None
    )
