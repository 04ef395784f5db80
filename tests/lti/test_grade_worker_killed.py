"""Exactly once, also when the worker dies mid-send: ``celery -A lms worker`` processes on a
private redis-server, the platform process recording the score and answering a minute late.
The worker is killed (SIGKILL to its process group) while it waits for that answer; a new worker
takes the send once the lease has passed, reads the platform's result first and does not post
again: the platform received the score once."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from tests.factories import exam_bank_approve
from tests.helpers.processes import Process, RedisServer, task_publish
from tests.helpers.production import database_url
from tests.helpers.waiting import wait_until
from tests.lti.test_grades import exam_learner, exam_take  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BIN = Path(sys.executable).parent
LEASE_SECONDS = 2


def worker_start(name: str, env: dict, folder: Path) -> Process:
    worker = Process(
        name,
        [
            str(BIN / "celery"),
            "-A",
            "lms",
            "worker",
            "--loglevel",
            "info",
            "--concurrency",
            "1",
            "--hostname",
            f"{name}@%h",
            "--without-mingle",
            "--without-gossip",
        ],
        env,
        folder,
    )
    worker.wait_for(" ready.")
    return worker


def test_a_worker_killed_mid_send_leaves_the_score_sent_once(
    exam_learner,  # noqa: F811
    lti_platform,
    course,
    queued_sends,
    tmp_path,
):
    from lti.models import GradeSend

    exam_bank_approve(course)
    exam_take(exam_learner, course)
    (pk,) = queued_sends

    redis = RedisServer(tmp_path)
    redis.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "lms.settings.dev",
            "DJANGO_DEBUG": "false",
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": redis.url,
            "LERNPFAD_SITE_URL": settings.SITE_URL,
            "LTI_GRADE_SEND_LEASE_SECONDS": str(LEASE_SECONDS),
            "PYTHONPATH": str(settings.BASE_DIR),
        }
    )
    first = second = None
    try:
        lti_platform.client.delay_next_scores(1, 60)
        first = worker_start("worker-1", env, tmp_path)
        task_publish(redis.url, "lti.tasks.grade_send", args=(pk,))
        wait_until(
            lambda: lti_platform.client.score_posts(),
            what="the score reaching the platform",
            logs=[first],
        )
        first.kill(signal.SIGKILL)  # while it waits for the platform's answer
        held = GradeSend.objects.get(pk=pk)
        assert (held.status, held.tries) == ("pending", 1) and held.claimed_at is not None

        second = worker_start("worker-2", env, tmp_path)
        wait_until(
            lambda: (timezone.now() - held.claimed_at).total_seconds() > LEASE_SECONDS,
            what="the lease to pass",
        )
        task_publish(redis.url, "lti.tasks.grade_sends_retry")
        wait_until(
            lambda: GradeSend.objects.get(pk=pk).status == "sent",
            what="the send marked sent",
            logs=[second],
        )
        assert "already on the platform, not sent again" in second.text(), second.tail()
    finally:
        for process in (first, second):
            if process is not None:
                process.kill()
        redis.stop()
    (post,) = lti_platform.client.score_posts()
    assert post["body"]["userId"] == "learner-1" and post["body"]["scoreGiven"] == 100
    assert GradeSend.objects.get(pk=pk).tries == 2
