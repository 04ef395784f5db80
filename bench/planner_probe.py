"""The reminder planner over the whole data set, in its own process (``bench.probes planner``).

One simulated day: the planner task (``reviews.tasks.reminders_plan``, as beat runs it every 15
minutes) at each quarter hour of the next 24 hours, so every learner's reminder time comes up once.
Planning and enqueueing are timed together: claims are inserted in PostgreSQL and each chunk is
enqueued to the real broker (Redis, a database of the benchmark's own: ``BENCH_CELERY_BROKER_URL``),
where the messages are counted and then purged. Sending is then measured on a sample: the send
task delivers to an aiosmtpd sink on loopback (the SMTP server is the stub, nothing else is).
Peak memory is the process's peak resident set (VmHWM) after the planner day.
"""

from __future__ import annotations

import datetime as dt
import os
import resource
import socket
import statistics
import time
from pathlib import Path
from urllib.parse import urlparse

PLANNER_TARGET_PER_SECOND = 5_000
PLANNER_TARGET_MEMORY_MB = 300
QUARTER = dt.timedelta(minutes=15)
RUNS = 95


class SinkHandler:
    """aiosmtpd handler that accepts and counts messages, and keeps nothing."""

    def __init__(self) -> None:
        self.messages = 0

    async def handle_DATA(self, server, session, envelope):
        self.messages += 1
        return "250 OK"


def smtp_sink_start():
    """Start the sink on a free loopback port and point EMAIL_URL at it (before Django starts)."""
    from aiosmtpd.controller import Controller

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    handler = SinkHandler()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    os.environ["EMAIL_URL"] = f"smtp://127.0.0.1:{port}"
    return controller, handler


def peak_rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM starts afresh at exec; getrusage's
    ru_maxrss would carry over the parent's peak (bench.run, after building the data set)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _broker_reachable(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme != "redis":
        return False
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379), 1):
            return True
    except OSError:
        return False


def _queue_length_and_purge(app) -> int:
    """Messages waiting in the default queue (the planner's enqueued chunks); then empty it."""
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        _name, count, _consumers = channel.queue_declare(queue="celery")
        channel.queue_purge("celery")
    return count


def run(*, smoke: bool, handler: SinkHandler) -> dict:
    from django.conf import settings
    from django.db import connection
    from django.utils import timezone

    from accounts.api import reminder_schedules_reset
    from accounts.models import User
    from lms.celery import app
    from reviews.models import Notification, ReminderDigest
    from reviews.tasks import reminder_digests_send, reminders_plan

    broker = settings.CELERY_BROKER_URL
    if not _broker_reachable(broker):
        return {"missing": f"reminder planner (broker {broker} unreachable)"}
    start = timezone.now().replace(second=0, microsecond=0)
    start -= dt.timedelta(minutes=start.minute % 15)
    # A reused database keeps the claims of an earlier run: start the day from scratch (in SQL:
    # the ORM's delete would load every row and inflate the memory figure). An earlier run also
    # moved every learner's next reminder instant on by a day: put each back to their first one
    # after ``start``, as a planner running until then would have left it (batched, untimed).
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {Notification._meta.db_table} WHERE digest_id IS NOT NULL; "
            f"DELETE FROM {ReminderDigest._meta.db_table}"
        )
    reminder_schedules_reset(after=start)
    with connection.cursor() as cursor:
        # The reset rewrote every learner row, which a running deployment never does, and an
        # earlier run left its claims as dead rows: clean both tables as autovacuum would (the
        # benchmark's server may run without it), so a reused database measures like a new one.
        cursor.execute(
            f"VACUUM (ANALYZE) {User._meta.db_table}, {ReminderDigest._meta.db_table}, "
            f"{Notification._meta.db_table}"
        )
    _queue_length_and_purge(app)
    rss_before_mb = peak_rss_mb()
    learners = connection.cursor()
    learners.execute("SELECT COUNT(*) FROM accounts_user")
    learner_count = learners.fetchone()[0]

    runs: list[float] = []
    reports: list[dict] = []
    broker_messages = 0
    last_now = start
    # Runs at quarters 2 .. 96 (95 runs): with the planner's 30-minute look-back they cover
    # exactly the 24 hours after ``start``, so each learner's reminder time comes up once.
    for quarter in range(2, RUNS + 2):
        last_now = start + quarter * QUARTER
        began = time.perf_counter()
        reports.append(reminders_plan(last_now.isoformat()))
        runs.append(time.perf_counter() - began)
        broker_messages += _queue_length_and_purge(app)
        if quarter < RUNS + 1:
            # Untimed: the workers' part. Without it every later run would enqueue the same
            # claims again (a claim unsent after 5 minutes counts as lost), which a running
            # deployment never sees. The last run's claims are sent for real below.
            ReminderDigest.objects.filter(status=ReminderDigest.Status.CLAIMED).update(
                status=ReminderDigest.Status.SENT, sent_at=last_now
            )
    seconds = sum(runs)
    peak_mb = peak_rss_mb()
    claimed = ReminderDigest.objects.count()
    dispatched = sum(r["dispatched"] for r in reports)

    # Sending: the last run's claims, through the send task as a worker runs it (one SMTP
    # session per chunk) to the sink.
    sample = list(
        ReminderDigest.objects.filter(status=ReminderDigest.Status.CLAIMED)
        .order_by("id")
        .values_list("id", flat=True)
    )
    began = time.perf_counter()
    outcomes: dict[str, int] = {}
    for index in range(0, len(sample), 500):
        chunk = reminder_digests_send(
            digest_ids=sample[index : index + 500], now=last_now.isoformat()
        )
        for key, value in chunk.items():
            outcomes[key] = outcomes.get(key, 0) + value
    send_seconds = time.perf_counter() - began

    per_second = claimed / seconds if seconds else 0.0
    looked_at = statistics.median(r["looked_at"] for r in reports)
    scan_per_second = looked_at / statistics.median(runs)
    return {
        "rows": [
            {
                "what": f"planner over a simulated day: {claimed:,} of {learner_count:,} learners "
                f"planned and enqueued in {RUNS} runs ({dispatched:,} digests in {broker_messages} "
                f"broker messages)",
                "measured": f"{per_second:,.0f} learners/s ({seconds:.1f} s)",
                "target": f"≥ {PLANNER_TARGET_PER_SECOND:,} learners/s",
                "passed": per_second >= PLANNER_TARGET_PER_SECOND,
            },
            {
                "what": "peak memory of the planner process (max RSS, Django included; "
                f"{rss_before_mb:.0f} MB before the first run)",
                "measured": f"{peak_mb:.0f} MB",
                "target": f"< {PLANNER_TARGET_MEMORY_MB} MB",
                "passed": peak_mb < PLANNER_TARGET_MEMORY_MB,
            },
            {
                "what": f"one planner run (median of {RUNS}): reads the learners whose next "
                f"reminder instant has come, median {looked_at:,.0f} of {learner_count:,}",
                "measured": f"{statistics.median(runs) * 1000:.0f} ms "
                f"({scan_per_second:,.0f} learners/s), slowest {max(runs) * 1000:.0f} ms",
                "target": "",
                "passed": None,
            },
            {
                "what": f"sending the last run's {len(sample):,} digests to the SMTP sink "
                f"(send task; {handler.messages:,} messages received)",
                "measured": f"{len(sample) / send_seconds:,.0f} digests/s" if send_seconds else "",
                "target": "",
                "passed": None,
            },
        ],
        "learners": learner_count,
        "claimed": claimed,
        "dispatched": dispatched,
        "broker_messages": broker_messages,
        "planner_seconds": seconds,
        "run_seconds": runs,
        "peak_rss_mb": peak_mb,
        "rss_before_mb": rss_before_mb,
        "send_outcomes": outcomes,
        "sink_messages": handler.messages,
        "send_seconds": send_seconds,
        "note": "Planning and enqueueing: reviews.tasks.reminders_plan called in-process for "
        "each quarter hour of the next day, enqueueing to Redis (its own database number); "
        "learners/s = learners claimed over the day ÷ the runs' total time. Sending is a "
        "sample through reviews.tasks.reminder_digests_send to an aiosmtpd sink.",
    }
