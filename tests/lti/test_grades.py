"""The final exam's score in the platform's gradebook (AGS): sent by a real Celery worker when
an attempt is finalized, once; retried after the platform refuses; a regrade sends the new
score. The worker killed in the middle of a send: tests/lti/test_grade_worker_killed.py."""

from __future__ import annotations

import datetime
import logging
from types import SimpleNamespace

import pytest
from django.utils import timezone

from tests.factories import (
    REGRADE_OPTIONS,
    exam_attempt_take,
    exam_bank_approve,
    exam_small_bank_create,
    learner_create,
    steps_complete,
)
from tests.helpers.celery_worker import celery_worker_thread
from tests.helpers.waiting import wait_until
from tests.lti.conftest import deep_link, learner_opens

pytestmark = pytest.mark.django_db(transaction=True)
EXAM = "exam:self-hosting-27"


def exam_take(learner, module, *, wrong: int = 0):
    """A certifying attempt through the services, every answer right but the first ``wrong``."""
    from quizzes.models import ExamAttemptItem
    from quizzes.services.attempt_answers import exam_attempt_answers_save
    from quizzes.services.attempt_finalize import exam_attempt_finalize
    from quizzes.services.attempt_start import exam_attempt_start

    started = exam_attempt_start(
        learner_id=learner.pk, module_slug=module.slug, full_name_given=True
    )
    answers = []
    for index, row in enumerate(
        ExamAttemptItem.objects.filter(attempt=started.attempt).order_by("position")
    ):
        keys = list(row.correct_keys)
        if index < wrong:
            keys = [next(o["key"] for o in row.options if o["key"] not in row.correct_keys)]
        answers.append({"item": row.pk, "selected": keys})
    exam_attempt_answers_save(learner_id=learner.pk, attempt_id=started.attempt.pk, answers=answers)
    return exam_attempt_finalize(attempt_id=started.attempt.pk)


@pytest.fixture
def exam_learner(registered, lti_platform, course):
    """learner-1 launched the deep-linked exam and may take it once a bank is approved."""
    from lti_tool.models import LtiUser

    link = deep_link(lti_platform, EXAM)
    learner_opens(lti_platform, link)
    learner = LtiUser.objects.get(sub="learner-1").auth_user
    steps_complete(learner, course)
    return learner


def accepted(platform) -> list[dict]:
    return [post for post in platform.client.score_posts() if post["status"] in (200, 201)]


@pytest.mark.redis
def test_a_finalized_attempt_sends_its_score_once(exam_learner, lti_platform, course):
    from lti import services
    from lti.models import GradeSend

    exam_bank_approve(course)
    with celery_worker_thread("lti-grades"):
        exam_take(exam_learner, course)
        wait_until(lambda: accepted(lti_platform), what="the score on the platform")
        send = GradeSend.objects.get()
        wait_until(lambda: GradeSend.objects.get().status == "sent", what="the send marked sent")
    (post,) = lti_platform.client.score_posts()
    assert post["status"] == 201
    assert post["body"]["userId"] == "learner-1"
    assert post["body"]["scoreGiven"] == 100 and post["body"]["scoreMaximum"] == 100
    assert post["body"]["gradingProgress"] == "FullyGraded"
    assert send.cause.startswith("attempt:")
    # The sweep finds nothing left to send, now or later.
    later = timezone.now() + datetime.timedelta(hours=1)
    assert services.grade_sends_due(now=later) == []


@pytest.mark.parametrize("status", [401, 500])
def test_a_refused_score_is_retried_until_accepted(
    exam_learner, lti_platform, course, status, caplog, queued_sends
):
    from lti import services
    from lti.models import GradeSend

    lti_platform.client.fail_next_scores(2, status)
    exam_bank_approve(course)
    exam_take(exam_learner, course)
    (pk,) = queued_sends
    now = timezone.now()
    with caplog.at_level(logging.WARNING, logger="lti.services"):
        assert services.grade_send(grade_send_id=pk, now=now) == "pending"
    assert f"platform answered {status} (try 1), next try in 30 s" in caplog.text
    send = GradeSend.objects.get()
    assert send.last_http_status == status and send.next_try_at == now + datetime.timedelta(
        seconds=30
    )
    # Not due before its next try; then the sweep picks it up.
    assert services.grade_sends_due(now=now + datetime.timedelta(seconds=10)) == []
    assert services.grade_sends_due(now=now + datetime.timedelta(seconds=31)) == [pk]
    assert (
        services.grade_send(grade_send_id=pk, now=now + datetime.timedelta(seconds=31)) == "pending"
    )
    later = now + datetime.timedelta(seconds=200)
    assert services.grade_send(grade_send_id=pk, now=later) == "sent"
    statuses = [post["status"] for post in lti_platform.client.score_posts()]
    assert statuses == [status, status, 201]
    assert GradeSend.objects.get().tries == 3


def test_a_regrade_sends_the_new_score(exam_learner, lti_platform, course, queued_sends):
    from lti import services
    from quizzes.services.regrade import exam_item_regrade

    # Five items; the first one's key says "Port 80", the learner chose "Port 443": 80 %.
    items = exam_small_bank_create(course)
    answers = {item.pk: REGRADE_OPTIONS[0] for item in items}
    answers[items[0].pk] = REGRADE_OPTIONS[1]
    exam_attempt_take(exam_learner, course, answers=answers)
    services.grade_send(grade_send_id=queued_sends[-1])
    assert accepted(lti_platform)[-1]["body"]["scoreGiven"] == 80
    # The course admin corrects the key ("Port 443") and regrades: 100 % goes to the platform.
    items[0].correct_keys = ["b"]
    items[0].save()
    admin = learner_create("kurs", is_staff=True)
    assert exam_item_regrade(item_id=items[0].pk, admin=admin).regrade is not None
    services.grade_send(grade_send_id=queued_sends[-1])
    posts = accepted(lti_platform)
    assert [post["body"]["scoreGiven"] for post in posts] == [80, 100]
    assert posts[1]["body"]["timestamp"] > posts[0]["body"]["timestamp"]


def test_with_the_broker_down_the_submit_succeeds_and_the_sweep_sends(
    exam_learner, lti_platform, course, monkeypatch, caplog
):
    from lti import services
    from lti.models import GradeSend

    def broker_down(pk):
        raise ConnectionError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(
        "lti.receivers.tasks", SimpleNamespace(grade_send=SimpleNamespace(delay=broker_down))
    )
    exam_bank_approve(course)
    with caplog.at_level(logging.ERROR):
        finalized = exam_take(exam_learner, course)  # no exception reaches the learner
    assert finalized.attempt.result.passed
    assert "Connection refused" in caplog.text
    (pk,) = services.grade_sends_due()
    assert services.grade_send(grade_send_id=pk) == "sent"
    assert GradeSend.objects.get().status == "sent" and len(accepted(lti_platform)) == 1
