"""Accommodations: a learner's own extra time and extra attempts per module (Moodle's user
overrides, Canvas's ``extra_time``), set by a course admin; used by the deadline, the
eligibility, the timer, and shown on the attempt."""

from __future__ import annotations

import datetime
import re

import pytest
from django.db import IntegrityError, transaction
from django.test import Client

from quizzes.models import ExamAccommodation, ExamAttempt

pytestmark = pytest.mark.django_db

OVERVIEW = "/api/v1/modules/self-hosting-27/exam/"


@pytest.fixture
def accommodation(learner, course):
    return ExamAccommodation.objects.create(
        learner=learner, module=course, extra_time_minutes=15, extra_attempts=1
    )


def test_the_deadline_gets_the_extra_time(learner_api, exam, bank, accommodation):
    attempt = exam.start(learner_api)
    row = ExamAttempt.objects.get(pk=attempt["id"])
    assert row.deadline_at - row.started_at == datetime.timedelta(minutes=20 + 15)
    assert attempt["time_limit_minutes"] == 35
    assert attempt["seconds_left"] > 34 * 60
    overview = learner_api.get(OVERVIEW).json()
    assert overview["limits"] == {
        "time_limit_minutes": 35,
        "max_attempts": 4,
        "extra_time_minutes": 15,
        "extra_attempts": 1,
    }
    assert overview["policy"]["time_limit_minutes"] == 20  # the policy itself is unchanged


def test_without_an_accommodation_the_policy_holds(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    assert attempt["time_limit_minutes"] == 20
    assert learner_api.get(OVERVIEW).json()["limits"]["extra_time_minutes"] == 0


def test_an_extra_attempt_allows_one_more_start(learner_api, exam, bank, policy, learner, course):
    policy.max_attempts = 1
    policy.save()
    exam.take(learner_api, correct=0)
    refused = learner_api.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert refused.json()["error"]["code"] == "no_attempts_left"

    ExamAccommodation.objects.create(learner=learner, module=course, extra_attempts=1)
    eligibility = learner_api.get(OVERVIEW).json()["eligibility"]
    assert (eligibility["can_start"], eligibility["attempts_left"]) == (True, 1)
    exam.take(learner_api, correct=0)
    refused = learner_api.post("/api/v1/modules/self-hosting-27/exam/attempts/").json()
    assert refused["error"]["code"] == "no_attempts_left"
    assert refused["error"]["message"] == "Alle 2 Versuche sind aufgebraucht."


def test_another_learners_accommodation_does_not_apply(
    make_learner, enroll, client_for, exam, bank, course, accommodation
):
    other = make_learner("otto")
    enroll(other)
    assert exam.start(client_for(other))["time_limit_minutes"] == 20


def test_a_running_attempt_keeps_its_deadline(learner_api, exam, bank, learner, course):
    attempt = exam.start(learner_api)
    ExamAccommodation.objects.create(learner=learner, module=course, extra_time_minutes=30)
    assert (
        learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/").json()["time_limit_minutes"]
        == 20
    )


def test_the_timer_and_the_pages_show_the_learners_own_limit(
    learner, learner_api, exam, bank, accommodation
):
    web = Client()
    web.force_login(learner)
    page = web.get("/modules/self-hosting-27/exam/").content.decode()
    assert "35 Minuten" in page and "deine eigene Zeit: 20 plus 15 zusätzliche Minuten" in page
    assert "4 Versuche" in page and "davon 1 zusätzlicher Versuch für dich" in page
    start = web.post("/modules/self-hosting-27/exam/start/")
    html = web.get(start["Location"]).content.decode()
    assert "Deine Zeit: 35 Minuten." in html
    row = ExamAttempt.objects.get()
    # The countdown runs to the attempt's own deadline, 35 minutes after its start.
    deadline = re.search(r'data-deadline="([^"]+)"', html).group(1)
    assert datetime.datetime.fromisoformat(deadline) == row.deadline_at
    assert re.search(r'id="exam-time-left">(\d+) min<', html).group(1) in ("34", "35")


def test_one_accommodation_per_learner_and_module(learner, course, accommodation):
    with pytest.raises(IntegrityError), transaction.atomic():
        ExamAccommodation.objects.create(learner=learner, module=course, extra_time_minutes=5)


# --- the admin ----------------------------------------------------------------------------------


@pytest.fixture
def admin_web(db):
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser(
        username="root", email="root@example.org", password="a-long-admin-password-1"
    )
    client = Client()
    client.force_login(admin)
    return client


def test_admin_sets_an_accommodation_finding_the_learner_by_name(admin_web, learner, course):
    found = admin_web.get(
        "/admin/autocomplete/",
        {
            "app_label": "quizzes",
            "model_name": "examaccommodation",
            "field_name": "learner",
            "term": "Lernende",
        },
    ).json()
    assert [row["id"] for row in found["results"]] == [str(learner.pk)]
    form = {
        "learner": learner.pk,
        "module": course.pk,
        "extra_time_minutes": 10,
        "extra_attempts": 2,
    }
    assert admin_web.post("/admin/quizzes/examaccommodation/add/", form).status_code == 302
    assert ExamAccommodation.objects.get().extra_attempts == 2
    # A second one for the same learner and module is refused in the form.
    again = admin_web.post("/admin/quizzes/examaccommodation/add/", form)
    assert again.status_code == 200 and ExamAccommodation.objects.count() == 1
    listing = admin_web.get("/admin/quizzes/examaccommodation/?q=lena")
    assert listing.context["cl"].result_count == 1
    too_much = {**form, "extra_time_minutes": 601, "learner": learner.pk}
    ExamAccommodation.objects.all().delete()
    assert admin_web.post("/admin/quizzes/examaccommodation/add/", too_much).status_code == 200
    assert not ExamAccommodation.objects.exists()
