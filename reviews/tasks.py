"""Celery tasks of the reviews app: the reminder planner, the digest sender, the FSRS refit."""

from __future__ import annotations

import contextlib
import datetime
import logging
import random
import smtplib
from dataclasses import asdict

from celery import shared_task
from django.core.mail import get_connection
from django.utils import timezone

from reviews.services import parameters, reminder_planning, reminder_sending

logger = logging.getLogger(__name__)

# Retries of a digest chunk the mail server refused: 30 s, 60 s, 120 s, … (plus jitter), capped.
REMINDER_SEND_MAX_RETRIES = 6
REMINDER_RETRY_BASE_SECONDS = 30
REMINDER_RETRY_MAX_SECONDS = 15 * 60
SMTP_TIMEOUT_SECONDS = 30
# One beat enqueues at most this many learners; the next day's beat takes the rest of the month.
REFIT_MAX_LEARNERS_PER_BEAT = 50_000


def _parse(value: str | None) -> datetime.datetime:
    if not value:
        return timezone.now()
    parsed = datetime.datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError(f"'{value}' has no time zone")
    return parsed.astimezone(datetime.UTC)


def _enqueue(digest_ids: list[int], now: datetime.datetime) -> None:
    reminder_digests_send.delay(digest_ids=digest_ids, now=now.isoformat())


@shared_task(ignore_result=True)
def reminders_plan(now: str | None = None) -> dict:
    """Claim and enqueue the reminder digests due now (``now``: ISO instant, for tests/replays)."""
    report = reminder_planning.reminders_plan(now=_parse(now), enqueue=_enqueue)
    logger.info("reminder planner: %s", report)
    return asdict(report)


def _message_specific(exc: OSError) -> bool:
    """The server answered this message with an error; the connection itself is fine."""
    return isinstance(
        exc, smtplib.SMTPResponseException | smtplib.SMTPRecipientsRefused
    ) and not isinstance(exc, smtplib.SMTPServerDisconnected)


@shared_task(bind=True, acks_late=True, ignore_result=True, max_retries=REMINDER_SEND_MAX_RETRIES)
def reminder_digests_send(self, digest_ids: list[int], now: str | None = None) -> dict:
    """Send a chunk of claimed digests over one SMTP connection; mail-server errors retry just the
    failed digests with exponential backoff."""
    at = _parse(now)
    outcomes: dict[str, int] = {}
    failed: list[int] = []
    error: OSError | None = None
    connection = get_connection(timeout=SMTP_TIMEOUT_SECONDS)
    try:
        for index, digest_id in enumerate(digest_ids):
            try:
                # One SMTP session for the chunk (open() is a no-op once connected).
                connection.open()
                outcome = reminder_sending.reminder_digest_send(
                    digest_id=digest_id, now=at, connection=connection
                )
            except OSError as exc:
                error = exc
                reminder_sending.reminder_digest_attempt_failed(
                    digest_id=digest_id, error=repr(exc)
                )
                with contextlib.suppress(OSError):
                    connection.close()
                if _message_specific(exc):
                    failed.append(digest_id)
                    continue
                # The server is unreachable or dropped us: the rest of the chunk waits too.
                failed.extend(digest_ids[index:])
                break
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    finally:
        with contextlib.suppress(OSError):
            connection.close()

    if failed:
        if self.request.retries >= REMINDER_SEND_MAX_RETRIES:
            reminder_sending.reminder_digests_fail(digest_ids=failed, error=repr(error))
            logger.error("giving up on %d reminder digests: %r", len(failed), error)
        else:
            countdown = min(
                REMINDER_RETRY_BASE_SECONDS * 2**self.request.retries, REMINDER_RETRY_MAX_SECONDS
            )
            countdown += random.uniform(0, REMINDER_RETRY_BASE_SECONDS / 2)
            logger.warning(
                "retrying %d reminder digests in %.0f s: %r", len(failed), countdown, error
            )
            raise self.retry(
                kwargs={"digest_ids": failed, "now": at.isoformat()},
                countdown=countdown,
                exc=error,
            )
    return outcomes


@shared_task(ignore_result=True)
def parameters_refit(now: str | None = None) -> dict:
    """The monthly refit (beat, daily): enqueue batches of the learners this month's run has not
    fitted yet, and pool the modules. Running it twice fits nobody twice."""
    at = _parse(now)
    run_key = parameters.run_key_monthly(at)
    learner_ids = parameters.learners_to_fit(run_key=run_key, limit=REFIT_MAX_LEARNERS_PER_BEAT)
    size = parameters.REFIT_BATCH_SIZE
    for start in range(0, len(learner_ids), size):
        parameters_fit_batch.delay(
            learner_ids=learner_ids[start : start + size], run_key=run_key, now=at.isoformat()
        )
    report = parameters.parameters_refit_run(run_key=run_key, at=at, learner_ids=[])
    logger.info("parameter refit %s: %d learners enqueued", run_key, len(learner_ids))
    return {"run_key": run_key, "enqueued": len(learner_ids), "modules": report.modules_pooled}


@shared_task(acks_late=True, ignore_result=True)
def parameters_fit_batch(learner_ids: list[int], run_key: str, now: str | None = None) -> dict:
    """Fit a batch of learners for the run (each once, whoever else runs the same batch)."""
    report = parameters.parameters_refit_run(
        run_key=run_key, at=_parse(now), learner_ids=learner_ids
    )
    return report.outcomes


@shared_task(ignore_result=True)
def parameters_fit_requested(learner_id: int, run_key: str, now: str | None = None) -> str:
    """A fit the learner asked for ("Optimize" on the settings page)."""
    return parameters.learner_parameters_fit(
        learner_id=learner_id, run_key=run_key, at=_parse(now)
    ).outcome
