"""Reminders end to end with real components: a Celery worker (in a thread) consuming from the
real Redis runs the planner and the send tasks against PostgreSQL, and the e-mails arrive at a
real SMTP server on loopback (aiosmtpd), where the test reads them.

Each test uses its own queue name, so parallel test runs and a running dev worker on the same
Redis never take each other's tasks.
"""

from __future__ import annotations

import datetime
import email
import email.policy
import os
import re
import threading
import time
from urllib.parse import urlparse

import pytest
from aiosmtpd.controller import Controller
from django.test import Client

from reviews import api, tasks
from reviews.models import Notification, ReminderDigest, ReviewCard
from reviews.services import reminder_planning
from tests.helpers.celery_worker import celery_worker_thread
from tests.helpers.ports import free_port
from tests.helpers.waiting import wait_until

pytestmark = [
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

UTC = datetime.UTC
CREATED = datetime.datetime(2030, 1, 2, 8, 0, tzinfo=UTC)
BERLIN_1805 = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=UTC)
TOKYO_1805 = datetime.datetime(2030, 6, 12, 9, 5, tzinfo=UTC)
WAIT_SECONDS = 30


class Mailbox:
    """An aiosmtpd handler keeping every accepted message; can refuse the next few with 451."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.refuse_next = 0
        self.refused = 0
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self._lock:
            if self.refuse_next:
                self.refuse_next -= 1
                self.refused += 1
                return "451 4.3.0 Try again later"
            self.messages.append(
                email.message_from_bytes(envelope.content, policy=email.policy.default)
            )
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[email.message.EmailMessage]:
        with self._lock:
            return [m for m in self.messages if m["To"] == address]


@pytest.fixture
def smtp(settings):
    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.SITE_URL = "https://lernpfad.example"
    try:
        yield mailbox
    finally:
        controller.stop()


@pytest.fixture
def worker(smtp):
    """A Celery worker thread on a fresh app (same settings, own queue) and a task tracker."""
    with celery_worker_thread("reviews") as tracker:
        yield tracker


def finished(tracker, task_id: str) -> bool:
    with tracker.lock:
        return any(tid == task_id and state == "SUCCESS" for _, tid, state in tracker.done)


def run_planner(tracker, now: datetime.datetime) -> None:
    """Run the planner task on the worker and wait until it and every send task it enqueued ran."""
    result = tasks.reminders_plan.apply_async(kwargs={"now": now.isoformat()})
    wait_until(lambda: finished(tracker, result.id), what="the planner task")
    settle(tracker)


def settle(tracker) -> None:
    """Wait until the test queue is empty and the worker idle (stable for a moment)."""
    from celery.worker import state

    with tracker.app.connection_for_write() as connection:
        client = connection.default_channel.client

        def idle() -> bool:
            return (
                client.llen(tracker.queue) == 0
                and not state.active_requests
                and not state.reserved_requests
            )

        quiet_since = None
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if idle():
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since > 0.3:
                    return
            else:
                quiet_since = None
            time.sleep(0.05)
    raise AssertionError("the worker did not become idle")


@pytest.fixture
def studying(make_learner, steps, flashcards):
    def create(username: str, **fields):
        learner = make_learner(username, **fields)
        api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=CREATED)
        return learner

    return create


def test_each_learner_gets_one_digest_at_their_own_1800_through_worker_broker_and_smtp(
    worker, smtp, studying
):
    berlin = studying("berlin", time_zone="Europe/Berlin")
    tokyo = studying("tokyo", time_zone="Asia/Tokyo", language="en")
    count = ReviewCard.objects.filter(learner=berlin).count()

    run_planner(worker, TOKYO_1805)
    assert len(smtp.to(tokyo.email)) == 1 and smtp.to(berlin.email) == []
    run_planner(worker, BERLIN_1805)
    assert len(smtp.to(berlin.email)) == 1 and len(smtp.to(tokyo.email)) == 1

    (message,) = smtp.to(berlin.email)
    assert message["Subject"] == f"Lernpfad: {count} Karten warten auf deine Wiederholung"
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    assert f"{count} Karten sind heute zur Wiederholung fällig" in text
    assert (
        "https://lernpfad.example/reviews/" in text and "https://lernpfad.example/reviews/" in html
    )
    # The header may be folded onto its own line; unfolded it is just the <URL>.
    header = message["List-Unsubscribe"].strip()
    unsubscribe = re.fullmatch(r"<(https://lernpfad\.example/[^>]+)>", header)[1]
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe in text

    (english,) = smtp.to(tokyo.email)
    assert english["Subject"] == f"Lernpfad: {count} cards are due for review"
    assert Notification.objects.filter(learner__in=[berlin, tokyo]).count() == 2
    assert set(ReminderDigest.objects.values_list("status", flat=True)) == {"sent"}

    # The link in the received mail asks (GET changes nothing); its button turns reminders
    # off, no log-in needed.
    assert Client().get(urlparse(unsubscribe).path).status_code == 200
    berlin.refresh_from_db()
    assert berlin.reminder_email is True
    assert Client().post(urlparse(unsubscribe).path).status_code == 200
    berlin.refresh_from_db()
    assert berlin.reminder_email is False
    run_planner(worker, BERLIN_1805 + datetime.timedelta(days=1))
    assert len(smtp.to(berlin.email)) == 1


def test_planner_twice_and_two_planners_at_once_send_one_email(worker, smtp, studying):
    learners = [studying(f"learner{i}") for i in range(3)]
    run_planner(worker, BERLIN_1805)
    run_planner(worker, BERLIN_1805)

    # Two beats at once: both planners claim and enqueue concurrently (own DB connections).
    later = BERLIN_1805 + datetime.timedelta(days=1)
    errors: list[BaseException] = []

    def planner() -> None:
        from django.db import connection

        try:
            reminder_planning.reminders_plan(now=later, enqueue=tasks._enqueue)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=planner) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    settle(worker)
    for learner in learners:
        assert len(smtp.to(learner.email)) == 2  # one per local day
    assert ReminderDigest.objects.count() == 6


def test_a_send_task_delivered_twice_sends_one_email(worker, smtp, studying):
    learner = studying("lena")
    claimed: list[int] = []
    reminder_planning.reminders_plan(now=BERLIN_1805, enqueue=lambda ids, at: claimed.extend(ids))
    assert len(claimed) == 1
    kwargs = {"digest_ids": claimed, "now": BERLIN_1805.isoformat()}
    first = tasks.reminder_digests_send.apply_async(kwargs=kwargs)
    second = tasks.reminder_digests_send.apply_async(kwargs=kwargs)
    wait_until(lambda: finished(worker, first.id) and finished(worker, second.id))
    settle(worker)
    assert len(smtp.to(learner.email)) == 1
    digest = ReminderDigest.objects.get()
    assert digest.status == "sent" and digest.attempts == 1


def test_a_task_lost_with_its_worker_is_sent_by_the_next_planner_run(worker, smtp, studying):
    learner = studying("lena")
    # The planner claimed and enqueued, then the message was lost (worker killed, broker wiped).
    reminder_planning.reminders_plan(now=BERLIN_1805, enqueue=lambda ids, at: None)
    assert ReminderDigest.objects.get().status == "claimed"
    run_planner(worker, BERLIN_1805 + datetime.timedelta(minutes=15))
    assert len(smtp.to(learner.email)) == 1
    run_planner(worker, BERLIN_1805 + datetime.timedelta(minutes=30))
    assert len(smtp.to(learner.email)) == 1


def test_the_day_the_clock_goes_back_sends_exactly_one(worker, smtp, studying):
    """25 hours in Berlin on 27 October 2030; 02:30 happens twice. Beat every 15 minutes."""
    night = studying("night", reminder_time=datetime.time(2, 30))
    evening = studying("evening")
    start = datetime.datetime(2030, 10, 26, 22, 0, tzinfo=UTC)  # local midnight (CEST)
    end = datetime.datetime(2030, 10, 27, 23, 0, tzinfo=UTC)  # next local midnight (CET)
    results = []
    at = start
    while at < end:
        results.append(tasks.reminders_plan.apply_async(kwargs={"now": at.isoformat()}))
        at += datetime.timedelta(minutes=15)
    assert len(results) == 100
    wait_until(lambda: all(finished(worker, r.id) for r in results), timeout=120)
    settle(worker)
    assert len(smtp.to(night.email)) == 1 and len(smtp.to(evening.email)) == 1
    assert set(ReminderDigest.objects.values_list("local_date", flat=True)) == {
        datetime.date(2030, 10, 27)
    }


def test_quiet_hours_and_nothing_due_through_the_worker(worker, smtp, studying, make_learner):
    quiet = studying(
        "quiet", quiet_hours_start=datetime.time(17, 30), quiet_hours_end=datetime.time(19, 0)
    )
    idle = make_learner("idle")  # no cards
    run_planner(worker, BERLIN_1805)
    assert smtp.messages == []
    run_planner(worker, BERLIN_1805 + datetime.timedelta(hours=1))  # 19:05
    assert len(smtp.to(quiet.email)) == 1 and smtp.to(idle.email) == []


def test_a_refusing_mail_server_is_retried_with_backoff_and_sends_once(
    worker, smtp, studying, monkeypatch
):
    monkeypatch.setattr(tasks, "REMINDER_RETRY_BASE_SECONDS", 0.2)
    learner = studying("lena")
    smtp.refuse_next = 2
    result = tasks.reminders_plan.apply_async(kwargs={"now": BERLIN_1805.isoformat()})
    wait_until(lambda: finished(worker, result.id))
    wait_until(lambda: len(smtp.to(learner.email)) == 1, what="the retried e-mail")
    settle(worker)
    assert smtp.refused == 2 and len(smtp.to(learner.email)) == 1
    digest = ReminderDigest.objects.get()
    assert digest.status == "sent" and digest.attempts == 3
    with worker.lock:
        states = [state for name, _, state in worker.done if name.endswith("reminder_digests_send")]
    assert states == ["RETRY", "RETRY", "SUCCESS"]


def test_environment_points_at_redis():
    """The worker tests run against the broker CI names, never the folder broker."""
    assert os.environ.get("CELERY_BROKER_URL", "").startswith("redis://")
