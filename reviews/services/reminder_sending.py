"""Sending one reminder digest: at most once, in the learner's language, with its in-app
notification (how claims make it exactly-once in effect: reviews.services.reminder_planning)."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.utils import timezone

from accounts import api as accounts_api
from accounts.data import ReminderRecipient
from lms.local_time import local_day_of
from reviews.models import Notification, ReminderDigest, ReviewLog
from reviews.selectors import due_count
from reviews.services.reminder_unsubscribe import (
    reminder_unsubscribe_key,
    reminder_unsubscribe_token,
)

# A digest still unsent this long after its claim is dropped: a reminder hours late is noise.
REMINDER_MAX_DELAY = datetime.timedelta(hours=6)
REVIEW_PAGE_PATH = "/reviews/"
# reviews.urls serves it: GET shows a confirmation, POST (also RFC 8058 one-click) unsubscribes.
UNSUBSCRIBE_PATH = "/reminders/unsubscribe/{token}/"
EMAIL_LANGUAGES = ("de", "en")


def reminder_digest_send(
    *, digest_id: int, now: datetime.datetime | None = None, connection=None
) -> str:
    """Send one claimed digest at most once; returns "sent" or why not. The claim row stays locked
    while the mail goes out, so a duplicate delivery waits and then finds it sent."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = ReminderDigest.objects.filter(
            id=digest_id, status=ReminderDigest.Status.CLAIMED
        ).update(attempts=F("attempts") + 1)
        if not locked:
            return "not_claimed"
        digest = ReminderDigest.objects.get(id=digest_id)
        learner = accounts_api.reminder_recipient(digest.learner_id)
        reason = _skip_reason(digest=digest, learner=learner, now=now)
        count = 0
        if reason is None:
            count = due_count(learner=learner.review, at=now)
            if count == 0:
                reason = "nothing_due"
        if reason is not None:
            digest.status = ReminderDigest.Status.SKIPPED
            digest.last_error = reason
            digest.save(update_fields=["status", "last_error"])
            return reason

        language = learner.language if learner.language in EMAIL_LANGUAGES else "de"
        digest.unsubscribe_key = reminder_unsubscribe_key()
        token = reminder_unsubscribe_token(digest.unsubscribe_key)
        context = {
            "name": learner.name,
            "count": count,
            "review_url": settings.SITE_URL + REVIEW_PAGE_PATH,
            "unsubscribe_url": settings.SITE_URL + UNSUBSCRIBE_PATH.format(token=token),
        }
        title = render_to_string(f"reviews/email/digest_subject.{language}.txt", context).strip()
        message = EmailMultiAlternatives(
            subject=title,
            body=render_to_string(f"reviews/email/digest.{language}.txt", context),
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=[learner.reminders.email],
            connection=connection,
            headers={
                # RFC 2369 and RFC 8058: mail clients offer their own one-click unsubscribe.
                "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                "Content-Language": language,
            },
        )
        message.attach_alternative(
            render_to_string(f"reviews/email/digest.{language}.html", context), "text/html"
        )
        message.send()
        digest.status = ReminderDigest.Status.SENT
        digest.sent_at = timezone.now()
        digest.due_count = count
        digest.last_error = ""
        digest.save(
            update_fields=["status", "sent_at", "due_count", "last_error", "unsubscribe_key"]
        )
        Notification.objects.create(
            learner_id=learner.id,
            kind=Notification.Kind.REVIEW_DIGEST,
            title=title,
            body=render_to_string(
                f"reviews/email/digest_notification.{language}.txt", context
            ).strip(),
            payload={
                "due_count": count,
                "url": context["review_url"],
                "local_date": digest.local_date.isoformat(),
            },
            digest=digest,
            created_at=now,
        )
    return "sent"


def _skip_reason(
    *, digest: ReminderDigest, learner: ReminderRecipient | None, now: datetime.datetime
) -> str | None:
    if learner is None:
        # The account is gone (its claims go with it; a send that raced the deletion).
        return "reminders_off"
    # Off or inactive ("reminders_off"), no address ("no_address"): accounts' one rule.
    reason = learner.reminders.unwanted_reason
    if reason is not None:
        return reason
    if now - digest.claimed_at > REMINDER_MAX_DELAY:
        return "too_late"
    schedule = learner.reminders.schedule
    if schedule.quiet_at(now):
        return "quiet_hours"
    day = local_day_of(time_zone=schedule.time_zone, date=digest.local_date)
    if ReviewLog.objects.filter(
        learner_id=learner.id,
        source=ReviewLog.Source.REVIEW,
        reviewed_at__gte=day.start,
        reviewed_at__lte=now,
    ).exists():
        return "reviewed_today"
    return None


def reminder_digest_attempt_failed(*, digest_id: int, error: str) -> None:
    """Count a failed delivery attempt (the send transaction itself was rolled back)."""
    ReminderDigest.objects.filter(id=digest_id, status=ReminderDigest.Status.CLAIMED).update(
        attempts=F("attempts") + 1, last_error=error[:2000]
    )


def reminder_digests_fail(*, digest_ids: list[int], error: str) -> None:
    """Give up on digests the mail server kept refusing (after the last retry)."""
    ReminderDigest.objects.filter(id__in=digest_ids, status=ReminderDigest.Status.CLAIMED).update(
        status=ReminderDigest.Status.FAILED, last_error=error[:2000]
    )
