"""Faults with real processes: Celery workers and beats started as ``celery -A lms ...``, gunicorn,
a private redis-server, the real PostgreSQL and an SMTP server on loopback (aiosmtpd).

- A worker killed with SIGKILL (its whole process group, as ``docker kill`` does) in the middle
  of a reminder batch, then a new worker: every due learner gets exactly one digest.
- Two beat processes at once, each firing the planner every second: no learner gets two.
- The database connections of a running gunicorn terminated (``pg_terminate_backend``): the next
  request succeeds, because CONN_HEALTH_CHECKS replaces the dead connection; a control server
  without health checks shows that the test can tell the difference.
- Redis down: gunicorn keeps serving content and progress; a planner run claims the digests but
  cannot enqueue them, nothing is lost, and once Redis is back the next run sends each once.

The private redis-server runs on a free port; the machine's Redis on 6379 is never touched. The
processes use the test database (committed data: ``transaction=True``).
"""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from django.conf import settings
from django.db import connection
from django.utils import timezone

from tests.factories import learner_create
from tests.helpers.ports import free_port
from tests.helpers.processes import WAIT, Process, RedisServer, task_publish
from tests.helpers.production import database_url, production_env
from tests.helpers.waiting import wait_until
from tests.mail_sink import MessageSink

pytestmark = [
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

BIN = Path(sys.executable).parent


class Mailbox(MessageSink):
    """Keeps every message; can hold the n-th RCPT until told to go on."""

    def __init__(self) -> None:
        super().__init__()
        self.recipients: list[str] = []
        self.hold_at: int | None = None
        self.held = threading.Event()
        self.release = threading.Event()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        with self._lock:
            self.recipients.append(address)
            hold = len(self.recipients) == self.hold_at
        if hold:
            # The worker waits for our answer to RCPT TO: no DATA has been sent for this digest.
            self.held.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
        envelope.rcpt_tos.append(address)
        return "250 OK"


@pytest.fixture
def workdir(tmp_path) -> Path:
    return tmp_path


@pytest.fixture
def redis_server(workdir):
    server = RedisServer(workdir)
    server.start()
    yield server
    if server.process is not None:
        server.stop()


@pytest.fixture
def mailbox():
    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    box.port = controller.port
    yield box
    box.release.set()
    controller.stop()


@pytest.fixture
def process_env(redis_server, mailbox) -> dict:
    """The environment of every process the tests start: the test database, the private Redis,
    the loopback SMTP server. lms.settings.dev reads EMAIL_URL (test settings would not)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "lms.settings.dev",
            "DJANGO_DEBUG": "false",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": redis_server.url,
            "EMAIL_URL": f"smtp://127.0.0.1:{mailbox.port}",
            "LERNPFAD_SITE_URL": "https://lernpfad.example",
            "PYTHONPATH": str(settings.BASE_DIR),
            "LOG_LEVEL": "INFO",
        }
    )
    return env


@pytest.fixture
def processes(workdir, process_env):
    """Starts named processes; every one still running is killed at the end of the test."""
    started: list[Process] = []

    def start(name: str, *args: str, env: dict | None = None) -> Process:
        process = Process(name, list(args), env or process_env, workdir)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


def start_worker(start, name: str) -> Process:
    worker = start(
        name,
        str(BIN / "celery"),
        "-A",
        "lms",
        "worker",
        "--loglevel",
        "info",
        "--concurrency",
        "2",
        "--hostname",
        f"{name}@%h",
        "--without-mingle",
        "--without-gossip",
    )
    worker.wait_for(" ready.")
    return worker


def send_planner(redis_url: str, now: datetime.datetime | None = None) -> None:
    """Publish the planner task to the private broker, as beat would."""
    kwargs = {"now": now.isoformat()} if now else {}
    task_publish(redis_url, "reviews.tasks.reminders_plan", kwargs=kwargs)


@pytest.fixture
def due_learners(course):
    """Learners whose reminder time was ten minutes ago and who have cards due."""
    from reviews import api as reviews_api

    step = course.steps.order_by("number").first()
    now = timezone.now()

    def create(count: int, prefix: str) -> list:
        learners = []
        for index in range(count):
            learner = learner_create(
                f"{prefix}{index}",
                time_zone="UTC",
                reminder_time=(now - datetime.timedelta(minutes=10)).time(),
            )
            reviews_api.cards_for_step_ensure(
                learner_id=learner.pk, step_id=step.pk, at=now - datetime.timedelta(days=2)
            )
            learners.append(learner)
        return learners

    return create


def digest_statuses() -> Counter:
    from reviews.models import ReminderDigest

    return Counter(ReminderDigest.objects.values_list("status", flat=True))


# --- SIGKILL in the middle of a batch -------------------------------------------------------


def test_worker_killed_mid_batch_then_restarted_sends_each_digest_once(
    processes, redis_server, mailbox, due_learners
):
    learners = due_learners(12, "kill")
    addresses = {learner.email for learner in learners}
    worker = start_worker(processes, "worker-1")
    # Hold the 5th recipient: four digests are sent and committed, the fifth is in flight.
    mailbox.hold_at = 5
    planned_at = timezone.now()
    send_planner(redis_server.url, planned_at)
    assert mailbox.held.wait(WAIT), (digest_statuses(), worker.tail())
    worker.kill(signal.SIGKILL)
    mailbox.release.set()

    assert sum(mailbox.per_address().values()) == 4
    assert digest_statuses() == {"sent": 4, "claimed": 8}, digest_statuses()

    # A new worker; the planner's next run re-enqueues the claims whose task was lost.
    replacement = start_worker(processes, "worker-2")
    send_planner(redis_server.url, planned_at + datetime.timedelta(minutes=6))
    wait_until(
        lambda: digest_statuses() == {"sent": 12},
        what="all digests sent",
        logs=[replacement],
    )
    time.sleep(1)  # a duplicate, if there were one, would arrive now
    per_address = mailbox.per_address()
    assert set(per_address) == addresses
    assert set(per_address.values()) == {1}, per_address

    from reviews.models import Notification

    assert Notification.objects.filter(learner__in=learners).count() == 12


# --- two beats ------------------------------------------------------------------------------


def planner_every_second():
    """The reminder planner as the only enabled periodic task, due every second; returns it."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    every_second, _ = IntervalSchedule.objects.get_or_create(
        every=1, period=IntervalSchedule.SECONDS
    )
    PeriodicTask.objects.exclude(task="reviews.tasks.reminders_plan").update(enabled=False)
    planner, _ = PeriodicTask.objects.update_or_create(
        name="reviews: plan reminder digests",
        defaults={
            "task": "reviews.tasks.reminders_plan",
            "interval": every_second,
            "enabled": True,
            "last_run_at": None,
        },
    )
    return planner


def start_beat(start, name: str) -> Process:
    """``celery beat`` with the project's scheduler (settings.CELERY_BEAT_SCHEDULER, lms.beat)."""
    return start(
        name,
        str(BIN / "celery"),
        "-A",
        "lms",
        "beat",
        "--loglevel",
        "info",
        "--scheduler",
        settings.CELERY_BEAT_SCHEDULER,
        "--pidfile=",
    )


def test_two_beats_at_once_send_no_duplicates(processes, redis_server, mailbox, due_learners):
    learners = due_learners(10, "beat")
    planner_every_second()
    worker = start_worker(processes, "worker-beat")
    beats = [start_beat(processes, f"beat-{n}") for n in (1, 2)]
    sending = "Sending due task"
    wait_until(
        lambda: all(beat.text().count(sending) >= 3 for beat in beats),
        what="both beats firing the planner",
        logs=[*beats, worker],
    )
    wait_until(
        lambda: sum(mailbox.per_address().values()) >= len(learners),
        what="the digests",
        logs=[*beats, worker],
    )
    time.sleep(3)  # more planner runs from both beats; none may send again
    for beat in beats:
        beat.kill(signal.SIGTERM)
    per_address = mailbox.per_address()
    assert set(per_address) == {learner.email for learner in learners}
    assert set(per_address.values()) == {1}, per_address
    assert digest_statuses() == {"sent": 10}


def test_a_beat_waiting_on_the_database_stops_on_sigterm(processes, redis_server):
    """SIGTERM while the beat's tick waits on a query: Celery's handler saves the schedule from
    inside that query, where psycopg's connection lock is taken. The beat must still stop, and
    save its schedule on a new connection (lms/beat.py), not hang until SIGKILL. A lock on the
    table every tick reads holds the query, so the signal surely finds it waiting; released a
    moment after the signal, it lets the save through (the save writes that table too)."""
    import psycopg

    planner = planner_every_second()
    beat = start_beat(processes, "beat-blocked")
    # The first run is saved at once (the beat's first sync); later ones wait for the next sync
    # (3 minutes) or for the stop, so from the second on there is something to save.
    wait_until(
        lambda: beat.text().count("Sending due task") >= 2,
        what="the beat firing the planner twice",
        logs=[beat],
    )
    blocked = (
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND query LIKE '%%django_celery_beat_periodictasks%%' AND pid <> pg_backend_pid()"
    )
    with psycopg.connect(database_url()) as holder:
        holder.execute("LOCK TABLE django_celery_beat_periodictasks IN ACCESS EXCLUSIVE MODE")
        with psycopg.connect(database_url(), autocommit=True) as watcher:
            wait_until(
                lambda: watcher.execute(blocked).fetchone()[0] > 0,
                what="the beat waiting on the locked table",
                logs=[beat],
            )
        sent = beat.text().count("Sending due task")
        os.killpg(beat.popen.pid, signal.SIGTERM)
        time.sleep(1)
        holder.rollback()
    try:
        beat.popen.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the beat hung after SIGTERM\n" + beat.tail())
    assert "Traceback" not in beat.text(), beat.tail()
    planner.refresh_from_db()
    assert planner.total_run_count == sent, beat.tail()


# --- the database connection dropped under gunicorn ---------------------------------------------


def start_gunicorn(processes, name: str, env: dict, workers: int = 1) -> tuple[Process, str]:
    port = free_port()
    server = processes(
        name,
        str(BIN / "gunicorn"),
        "lms.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        env=env,
    )
    server.wait_for("Booting worker")
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: _status(base + "/api/v1/modules/") is not None, logs=[server])
    return server, base


def _status(url: str, token: str | None = None, data: bytes | None = None) -> int | None:
    request = urllib.request.Request(url, data=data, method="POST" if data else "GET")
    if token:
        request.add_header("Authorization", f"Token {token}")
    if data:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def other_backends() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return {row[0] for row in cursor.fetchall()}


def terminate_other_backends() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


@pytest.fixture
def learner_token(course):
    from accounts import services as account_services

    user = learner_create("gina")
    _instance, token = account_services.token_create(user=user, device_name="phone")
    return token


def test_connection_health_checks_are_on():
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is True
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] > 0


def test_request_after_the_database_dropped_the_connection_succeeds(
    processes, process_env, learner_token
):
    server, base = start_gunicorn(processes, "gunicorn", process_env)
    progress = base + "/api/v1/modules/self-hosting-27/progress/"
    enroll = base + "/api/v1/modules/self-hosting-27/enrollment/"
    assert _status(enroll, learner_token, data=b"{}") in (200, 201), server.tail()
    assert _status(progress, learner_token) == 200
    before = other_backends()
    assert before, "gunicorn keeps no connection open (CONN_MAX_AGE?)"
    assert _status(progress, learner_token) == 200
    assert other_backends() == before, "the connection was not reused: nothing to drop"

    assert terminate_other_backends() >= 1
    wait_until(lambda: not (other_backends() & before), what="the backends to end")

    assert _status(progress, learner_token) == 200, server.tail()
    assert _status(base + "/api/v1/modules/") == 200
    assert other_backends() and not (other_backends() & before)


def test_without_health_checks_the_first_request_would_fail(
    processes, process_env, learner_token, workdir
):
    """Control: the same drop under a server without CONN_HEALTH_CHECKS answers 500 once."""
    (workdir / "no_health_checks.py").write_text(
        "from lms.settings.dev import *  # noqa\n"
        "DATABASES['default']['CONN_HEALTH_CHECKS'] = False\n"
    )
    env = {
        **process_env,
        "DJANGO_SETTINGS_MODULE": "no_health_checks",
        "PYTHONPATH": f"{workdir}{os.pathsep}{settings.BASE_DIR}",
    }
    server, base = start_gunicorn(processes, "gunicorn-control", env)
    progress = base + "/api/v1/modules/self-hosting-27/progress/"
    assert _status(base + "/api/v1/modules/self-hosting-27/enrollment/", learner_token, b"{}") in (
        200,
        201,
    )
    assert _status(progress, learner_token) == 200
    terminate_other_backends()
    time.sleep(0.5)
    assert _status(progress, learner_token) == 500, server.tail()
    assert _status(progress, learner_token) == 200


# --- Redis down -----------------------------------------------------------------------------


def test_redis_down_web_keeps_serving_and_reminders_wait_for_it(
    processes, process_env, redis_server, mailbox, due_learners, learner_token
):
    learners = due_learners(6, "down")
    redis_server.stop()

    # The web API does not need the broker: content, progress and reviews keep working.
    server, base = start_gunicorn(processes, "gunicorn-redis-down", process_env)
    slug = "self-hosting-27"
    for method, url, body in (
        ("GET", f"/api/v1/modules/{slug}/", None),
        ("GET", f"/api/v1/modules/{slug}/steps/1/", None),
        ("POST", f"/api/v1/modules/{slug}/enrollment/", b"{}"),
        ("POST", f"/api/v1/modules/{slug}/steps/1/progress/", b'{"event": "opened"}'),
        ("GET", f"/api/v1/modules/{slug}/progress/", None),
        ("GET", "/api/v1/reviews/due/", None),
    ):
        started = time.monotonic()
        status = _status(base + url, learner_token, data=body)
        assert status in (200, 201), (method, url, status, server.tail())
        assert time.monotonic() - started < 5, f"{url} waited for the broker"

    # A planner run while Redis is down: the claims are written, the enqueue fails.
    planned_at = timezone.now()
    planner = processes(
        "planner-redis-down",
        sys.executable,
        str(Path(settings.BASE_DIR) / "manage.py"),
        "shell",
        "-c",
        f"from reviews.tasks import reminders_plan; reminders_plan(now={planned_at.isoformat()!r})",
    )
    planner.popen.wait(timeout=WAIT)
    assert planner.popen.returncode != 0, planner.tail()
    assert "OperationalError" in planner.text(), planner.tail()  # the broker, nothing else
    assert digest_statuses() == {"claimed": 6}, (digest_statuses(), planner.tail())
    assert not mailbox.messages

    # Redis is back: a worker starts, the next planner run sends each digest once.
    redis_server.start()
    worker = start_worker(processes, "worker-after-redis")
    send_planner(redis_server.url, planned_at + datetime.timedelta(minutes=6))
    wait_until(lambda: digest_statuses() == {"sent": 6}, what="the digests", logs=[worker])
    time.sleep(1)
    per_address = mailbox.per_address()
    assert set(per_address) == {learner.email for learner in learners}
    assert set(per_address.values()) == {1}, per_address


# --- throttles and log-in lockouts shared by every gunicorn worker ---------------------------


def _production_env(process_env: dict, **extra: str) -> dict:
    return production_env(
        process_env,
        CELERY_BROKER_URL=process_env["CELERY_BROKER_URL"],
        THROTTLE_LOGIN="5/min",
        LOGIN_FAILURE_LIMIT_ACCOUNT="5",
        **extra,
    )


# A registration the service refuses (400) still counts against the per-address rate.
BAD_REGISTRATION = json.dumps({"username": "x", "email": "not-an-address", "password": "short"})


def _requests_until_429(url: str, body: str, limit: int) -> int:
    for attempt in range(1, limit + 1):
        status = _status(url, data=body.encode())
        if status == 429:
            return attempt
        assert status == 400, status
    return limit + 1


def test_login_lockout_and_registration_rate_hold_across_gunicorn_workers(processes, process_env):
    env = _production_env(process_env)
    server, base = start_gunicorn(processes, "gunicorn-production", env, workers=3)
    # Each request is a new connection, so the three workers share them out. django-axes
    # counts failures in PostgreSQL: the fifth failure locks, whichever worker served the rest.
    wrong = json.dumps({"username": "nobody", "password": "wrong-password-1", "device_name": "x"})
    assert _requests_until_429(base + "/api/v1/auth/token/", wrong, 12) == 5, server.tail()
    # The registration rate counts in the shared database cache: five pass, the sixth is 429.
    register = base + "/api/v1/auth/register/"
    assert _requests_until_429(register, BAD_REGISTRATION, 12) == 6, server.tail()


def test_control_a_per_process_cache_would_multiply_the_budget(processes, process_env):
    # Two processes, each with its own in-memory cache: each keeps a budget of its own, so the
    # second lets five more through after the first refused. (Three workers of one gunicorn
    # showed it only when the kernel handed the requests to more than one of them: an idle
    # worker could win every accept(), and the control then passed exactly five, by chance.)
    env = _production_env(process_env, LOGIN_CACHE_URL="locmemcache://")
    first, first_base = start_gunicorn(processes, "gunicorn-locmem-a", env)
    second, second_base = start_gunicorn(processes, "gunicorn-locmem-b", env)
    path = "/api/v1/auth/register/"
    assert _requests_until_429(first_base + path, BAD_REGISTRATION, 12) == 6, first.tail()
    # With one shared budget this would be 429 at once (the test above); here it is not.
    assert _requests_until_429(second_base + path, BAD_REGISTRATION, 12) == 6, second.tail()
