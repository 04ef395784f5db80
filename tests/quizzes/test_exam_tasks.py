"""The periodic task finalizes attempts past their deadline with the answers saved in time."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from quizzes.models import Certificate, ExamAttempt, ExamResult
from quizzes.tasks import exam_attempts_finalize_expired

pytestmark = pytest.mark.django_db


def expire(attempt_id: int, *, seconds_ago: int) -> None:
    now = timezone.now()
    ExamAttempt.objects.filter(pk=attempt_id).update(
        started_at=now - datetime.timedelta(minutes=20, seconds=seconds_ago),
        deadline_at=now - datetime.timedelta(seconds=seconds_ago),
    )


def test_task_finalizes_expired_attempts_with_saved_answers(
    learner_api, exam, bank, make_learner, enroll, client_for
):
    attempt = exam.start(learner_api)
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=6)[:7])
    expire(attempt["id"], seconds_ago=31)
    # Another learner still has time: left alone.
    other = make_learner("otto")
    enroll(other)
    running = exam.start(client_for(other))

    assert exam_attempts_finalize_expired() == 1

    result = ExamResult.objects.get(attempt_id=attempt["id"])
    assert result.reason == "expired" and result.correct_count == 6
    assert not ExamResult.objects.filter(attempt_id=running["id"]).exists()
    # Running it again changes nothing; the learner sees the graded attempt.
    assert exam_attempts_finalize_expired() == 0
    body = learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/").json()
    assert body["finalized"] is True and body["result"]["score_percent"] == "60.00"
    assert (
        learner_api.get("/api/v1/modules/self-hosting-27/exam/").json()["attempt_in_progress"]
        is None
    )


def test_attempt_within_grace_is_not_finalized(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    expire(attempt["id"], seconds_ago=10)
    assert exam_attempts_finalize_expired() == 0
    assert not ExamResult.objects.exists()


def test_expired_attempt_can_issue_a_certificate(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=10))
    expire(attempt["id"], seconds_ago=120)
    exam_attempts_finalize_expired()
    assert learner_api.get("/api/v1/certificates/").json()["count"] == 1
    # Issued without a request, it names the learner as a submit would (accounts.api).
    assert Certificate.objects.get().learner_name == "Lena Lernende"


def test_task_is_scheduled_every_minute():
    from django_celery_beat.models import PeriodicTask

    task = PeriodicTask.objects.get(task="quizzes.tasks.exam_attempts_finalize_expired")
    assert task.enabled
    assert (task.interval.every, task.interval.period) == (1, "minutes")
