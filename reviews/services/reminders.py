"""Reminder digests: the planner that claims them and the send step that delivers one.

Exactly-once in effect:
- the planner *claims* a digest by inserting a ReminderDigest row, unique per (learner, local
  date, kind), with ON CONFLICT DO NOTHING — two planners (or two beats) at once claim it once;
- the send step locks the claim row with a conditional UPDATE (status still "claimed"), sends,
  and marks it "sent" in the same transaction — a task delivered twice waits for the lock and
  then finds the row sent;
- a claim whose task was lost (worker killed, broker restarted) stays "claimed" and the next
  planner run enqueues it again.
The one window left is a crash after the mail server accepted the message and before the commit;
then the redelivered task sends it a second time (at-least-once there, never zero).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import connection, transaction
from django.db.models import (
    Case,
    CharField,
    DateField,
    DateTimeField,
    Exists,
    F,
    Func,
    OuterRef,
    Q,
    QuerySet,
    TimeField,
    Value,
    When,
)
from django.db.models.functions import Cast
from django.template.loader import render_to_string
from django.utils import timezone

from lms.errors import InvalidInput
from reviews.models import Notification, ReminderDigest, ReviewCard, ReviewLog
from reviews.scheduling import in_quiet_hours, local_day_of, zone_info
from reviews.selectors import LIVE_CARDS, due_count

# Learners per claim INSERT and digests per send task.
REMINDER_BATCH_SIZE = 500
# How far back the planner looks for reminder times: twice the 15-minute beat interval, so a late
# or missed planner run loses nothing. The claim row makes the overlap harmless.
REMINDER_LOOKBACK = datetime.timedelta(minutes=30)
# A claim enqueued this long ago and still not sent is enqueued again (its task was lost).
REMINDER_RESEND_AFTER = datetime.timedelta(minutes=5)
# A digest still unsent this long after its claim is dropped: a reminder hours late is noise.
REMINDER_MAX_DELAY = datetime.timedelta(hours=6)
UNSUBSCRIBE_SALT = "reviews.reminder-email-unsubscribe"
REVIEW_PAGE_PATH = "/reviews/"
EMAIL_LANGUAGES = ("de", "en")


@dataclass(frozen=True)
class PlannerReport:
    claim_chunks: int
    candidates: int
    dispatched: int
    dispatch_chunks: int


def reminders_plan(
    *,
    now: datetime.datetime | None = None,
    enqueue: Callable[[list[int], datetime.datetime], None],
) -> PlannerReport:
    """Claim the digests whose local reminder time fell in the last window, then enqueue every
    claimed-but-unsent digest (new ones, and old ones whose task was lost) in chunks.

    Deliberately not one transaction: each chunk commits on its own, so claims are visible to the
    send tasks as soon as they are enqueued, and a crash mid-run keeps what was claimed.
    """
    now = now or timezone.now()
    window_start = now - REMINDER_LOOKBACK
    claim_chunks = candidates = 0
    for chunk in _candidate_chunks(now=now, window_start=window_start):
        ReminderDigest.objects.bulk_create(
            [
                ReminderDigest(
                    learner_id=learner_id,
                    local_date=local_date,
                    kind=ReminderDigest.Kind.DIGEST,
                    status=ReminderDigest.Status.CLAIMED,
                    claimed_at=now,
                )
                for learner_id, local_date in chunk
            ],
            ignore_conflicts=True,
        )
        claim_chunks += 1
        candidates += len(chunk)
    dispatched, dispatch_chunks = _dispatch(now=now, enqueue=enqueue)
    return PlannerReport(
        claim_chunks=claim_chunks,
        candidates=candidates,
        dispatched=dispatched,
        dispatch_chunks=dispatch_chunks,
    )


def _dispatch(
    *, now: datetime.datetime, enqueue: Callable[[list[int], datetime.datetime], None]
) -> tuple[int, int]:
    """Enqueue claimed digests never enqueued, or enqueued long ago and still unsent.

    Two queries per chunk (read the ids, stamp them), keyset-paginated by id.
    """
    pending = ReminderDigest.objects.filter(status=ReminderDigest.Status.CLAIMED).filter(
        Q(enqueued_at__isnull=True) | Q(enqueued_at__lte=now - REMINDER_RESEND_AFTER)
    )
    last_id, dispatched, chunks = 0, 0, 0
    while True:
        ids = list(
            pending.filter(id__gt=last_id)
            .order_by("id")
            .values_list("id", flat=True)[:REMINDER_BATCH_SIZE]
        )
        if not ids:
            break
        ReminderDigest.objects.filter(id__in=ids).update(enqueued_at=now)
        # Stamped before enqueueing: if the broker call fails, the stamp only delays the retry
        # by REMINDER_RESEND_AFTER; if enqueueing came first, a crash could enqueue it twice
        # (harmless too, the send step is idempotent).
        enqueue(ids, now)
        dispatched += len(ids)
        chunks += 1
        last_id = ids[-1]
        if len(ids) < REMINDER_BATCH_SIZE:
            break
    return dispatched, chunks


# --- finding the learners whose reminder is due: set-based SQL, chunked by learner id ---------


def _reminder_learners() -> QuerySet:
    return get_user_model().objects.filter(is_active=True, reminder_email=True).exclude(email="")


def _quiet_at_field(field: str) -> Q:
    """The time in column/annotation ``field`` lies in the learner's quiet hours."""
    return Q(quiet_hours_start__isnull=False, quiet_hours_end__isnull=False) & (
        (
            Q(quiet_hours_start__lt=F("quiet_hours_end"))
            & Q(**{f"{field}__gte": F("quiet_hours_start")})
            & Q(**{f"{field}__lt": F("quiet_hours_end")})
        )
        | (
            Q(quiet_hours_start__gt=F("quiet_hours_end"))
            & (
                Q(**{f"{field}__gte": F("quiet_hours_start")})
                | Q(**{f"{field}__lt": F("quiet_hours_end")})
            )
        )
    )


def _quiet_at_value(value: datetime.time) -> Q:
    """The fixed local time ``value`` lies in the learner's quiet hours."""
    return Q(quiet_hours_start__isnull=False, quiet_hours_end__isnull=False) & (
        Q(
            quiet_hours_start__lt=F("quiet_hours_end"),
            quiet_hours_start__lte=value,
            quiet_hours_end__gt=value,
        )
        | (
            Q(quiet_hours_start__gt=F("quiet_hours_end"))
            & (Q(quiet_hours_start__lte=value) | Q(quiet_hours_end__gt=value))
        )
    )


def _effective_reminder_time() -> Case:
    """A reminder time inside the quiet hours moves to their end."""
    return Case(
        When(_quiet_at_field("reminder_time"), then=F("quiet_hours_end")),
        default=F("reminder_time"),
        output_field=TimeField(),
    )


def _has_due_cards(now: datetime.datetime) -> Exists:
    return Exists(ReviewCard.objects.filter(LIVE_CARDS, learner_id=OuterRef("pk"), due__lte=now))


def _chunks(queryset: QuerySet, fields: tuple[str, str]) -> Iterator[list[tuple]]:
    """The candidates of this run, read in one query and handed out in chunks.

    The candidate query scans every learner (the reminder time is compared on each learner's
    own clock), so it runs once per planner run, not once per chunk: paging it by primary key
    repeated the scan for every 500 candidates (bench/README.md, reminder planner). Memory is
    bounded by one run's candidates: the learners whose reminder falls in its 30-minute window.
    """
    rows = list(queryset.order_by("pk").values_list(*fields))
    for index in range(0, len(rows), REMINDER_BATCH_SIZE):
        yield rows[index : index + REMINDER_BATCH_SIZE]


def _candidate_chunks(
    *, now: datetime.datetime, window_start: datetime.datetime
) -> Iterator[list[tuple[int, datetime.date]]]:
    if connection.vendor == "postgresql":
        yield from _candidate_chunks_postgresql(now=now, window_start=window_start)
    else:
        yield from _candidate_chunks_by_zone(now=now, window_start=window_start)


class _AtTimeZone(Func):
    """PostgreSQL ``value AT TIME ZONE zone``: timestamptz → local timestamp, and back."""

    arg_joiner = " AT TIME ZONE "
    template = "(%(expressions)s)"


class _DatePlusTime(Func):
    """PostgreSQL ``date + time``: the local timestamp (without time zone)."""

    arg_joiner = " + "
    template = "(%(expressions)s)"


class _LocalMidnight(Func):
    """PostgreSQL ``date::timestamp``: local midnight, still without time zone."""

    template = "(%(expressions)s)::timestamp"


def _postgresql_zone() -> Case | Value | None:
    """The learner's zone as PostgreSQL knows it; a name it does not know counts as UTC.

    One unknown name would otherwise make AT TIME ZONE fail the whole query, and with it everyone's
    reminders. (Python's zone database can be newer than the server's.) Two queries per run.
    None when no learner wants reminders.
    """
    zones = list(_reminder_learners().order_by().values_list("time_zone", flat=True).distinct())
    if not zones:
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_timezone_names WHERE name = ANY(%s)", [zones])
        known = [row[0] for row in cursor.fetchall()]
    if not known:
        return Value("UTC", output_field=CharField())
    return Case(
        When(time_zone__in=known, then=F("time_zone")),
        default=Value("UTC"),
        output_field=CharField(),
    )


def _candidate_chunks_postgresql(
    *, now: datetime.datetime, window_start: datetime.datetime
) -> Iterator[list[tuple[int, datetime.date]]]:
    """Every time zone and DST rule is applied by PostgreSQL (AT TIME ZONE), per row.

    The reminder instant of a local date d is ``(d + reminder time) AT TIME ZONE zone``; the
    candidate local dates are those of the window's two ends (they differ around midnight).
    """
    zone = _postgresql_zone()
    if zone is None:
        return
    now_value = Value(now, output_field=DateTimeField())
    start_value = Value(window_start, output_field=DateTimeField())
    in_window_now = Q(remind_now__gt=window_start, remind_now__lte=now)
    in_window_start = Q(remind_start__gt=window_start, remind_start__lte=now)
    learners = (
        _reminder_learners()
        .annotate(
            reminder_local=_effective_reminder_time(),
            date_now=Cast(_AtTimeZone(now_value, zone, output_field=DateTimeField()), DateField()),
            date_start=Cast(
                _AtTimeZone(start_value, zone, output_field=DateTimeField()), DateField()
            ),
            time_now=Cast(_AtTimeZone(now_value, zone, output_field=DateTimeField()), TimeField()),
        )
        .annotate(
            remind_now=_AtTimeZone(
                _DatePlusTime(F("date_now"), F("reminder_local"), output_field=DateTimeField()),
                zone,
                output_field=DateTimeField(),
            ),
            remind_start=_AtTimeZone(
                _DatePlusTime(F("date_start"), F("reminder_local"), output_field=DateTimeField()),
                zone,
                output_field=DateTimeField(),
            ),
        )
        .filter(in_window_now | in_window_start)
        .exclude(_quiet_at_field("time_now"))
        .annotate(
            local_date=Case(
                When(in_window_now, then=F("date_now")),
                default=F("date_start"),
                output_field=DateField(),
            )
        )
        .annotate(
            day_start=_AtTimeZone(
                _LocalMidnight(F("local_date"), output_field=DateTimeField()),
                zone,
                output_field=DateTimeField(),
            )
        )
        .filter(_has_due_cards(now))
        .exclude(
            Exists(
                ReviewLog.objects.filter(
                    learner_id=OuterRef("pk"),
                    source=ReviewLog.Source.REVIEW,
                    reviewed_at__gte=OuterRef("day_start"),
                    reviewed_at__lte=now,
                )
            )
        )
        .exclude(
            Exists(
                ReminderDigest.objects.filter(
                    learner_id=OuterRef("pk"),
                    local_date=OuterRef("local_date"),
                    kind=ReminderDigest.Kind.DIGEST,
                )
            )
        )
    )
    yield from _chunks(learners, ("pk", "local_date"))


def _candidate_chunks_by_zone(
    *, now: datetime.datetime, window_start: datetime.datetime
) -> Iterator[list[tuple[int, datetime.date]]]:
    """Portable fallback (SQLite): group learners by time zone — there are few distinct zones —
    turn the window into local wall-clock times in Python, then one batched query per zone.

    Wall-clock comparison differs from instants only in the repeated hour of a DST fall-back
    night, where a reminder may come an hour later; it still comes once (the claim is unique).
    A zone name this machine does not know counts as UTC, as on PostgreSQL.
    """
    zones = list(_reminder_learners().order_by().values_list("time_zone", flat=True).distinct())
    for zone_name in zones:
        zone = zone_info(zone_name)
        local_start, local_now = window_start.astimezone(zone), now.astimezone(zone)
        if local_start.date() == local_now.date():
            ranges = [(local_now.date(), local_start.time(), local_now.time())]
        else:
            ranges = [
                (local_start.date(), local_start.time(), None),
                (local_now.date(), None, local_now.time()),
            ]
        for local_date, after, until in ranges:
            day = local_day_of(time_zone=zone_name, date=local_date)
            learners = (
                _reminder_learners()
                .filter(time_zone=zone_name)
                .annotate(reminder_local=_effective_reminder_time())
                .exclude(_quiet_at_value(local_now.time()))
                .filter(_has_due_cards(now))
                .exclude(
                    Exists(
                        ReviewLog.objects.filter(
                            learner_id=OuterRef("pk"),
                            source=ReviewLog.Source.REVIEW,
                            reviewed_at__gte=day.start,
                            reviewed_at__lte=now,
                        )
                    )
                )
                .exclude(
                    Exists(
                        ReminderDigest.objects.filter(
                            learner_id=OuterRef("pk"),
                            local_date=local_date,
                            kind=ReminderDigest.Kind.DIGEST,
                        )
                    )
                )
            )
            if after is not None:
                learners = learners.filter(reminder_local__gt=after)
            if until is not None:
                learners = learners.filter(reminder_local__lte=until)
            for rows in _chunks(learners, ("pk", "time_zone")):
                yield [(pk, local_date) for pk, _zone in rows]


# --- sending one digest -----------------------------------------------------------------------


def reminder_digest_send(
    *, digest_id: int, now: datetime.datetime | None = None, connection=None
) -> str:
    """Send one claimed digest, at most once; returns what happened ("sent", or why not).

    The conditional UPDATE locks the claim row for the whole transaction, and the mail goes out
    inside it: a second delivery of the same task waits, then finds the row no longer claimed.
    A mail-server error rolls everything back (the row stays claimed) and propagates, so the task
    retries.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = ReminderDigest.objects.filter(
            id=digest_id, status=ReminderDigest.Status.CLAIMED
        ).update(attempts=F("attempts") + 1)
        if not locked:
            return "not_claimed"
        digest = ReminderDigest.objects.select_related("learner").get(id=digest_id)
        learner = digest.learner
        reason = _skip_reason(digest=digest, learner=learner, now=now)
        count = 0
        if reason is None:
            count = due_count(learner=learner, at=now)
            if count == 0:
                reason = "nothing_due"
        if reason is not None:
            digest.status = ReminderDigest.Status.SKIPPED
            digest.last_error = reason
            digest.save(update_fields=["status", "last_error"])
            return reason

        language = learner.language if learner.language in EMAIL_LANGUAGES else "de"
        context = _digest_context(learner=learner, count=count, language=language)
        _digest_message(learner=learner, context=context, connection=connection).send()
        digest.status = ReminderDigest.Status.SENT
        digest.sent_at = timezone.now()
        digest.due_count = count
        digest.last_error = ""
        digest.save(update_fields=["status", "sent_at", "due_count", "last_error"])
        Notification.objects.create(
            learner=learner,
            kind=Notification.Kind.REVIEW_DIGEST,
            title=context["title"],
            body=context["notification_body"],
            payload={
                "due_count": count,
                "url": context["review_url"],
                "local_date": digest.local_date.isoformat(),
            },
            digest=digest,
            created_at=now,
        )
    return "sent"


def _skip_reason(*, digest: ReminderDigest, learner, now: datetime.datetime) -> str | None:
    if not learner.is_active or not learner.reminder_email:
        return "reminders_off"
    if not learner.email:
        return "no_address"
    if now - digest.claimed_at > REMINDER_MAX_DELAY:
        return "too_late"
    local_now = now.astimezone(zone_info(learner.time_zone))
    if in_quiet_hours(
        at=local_now.time(), start=learner.quiet_hours_start, end=learner.quiet_hours_end
    ):
        return "quiet_hours"
    day = local_day_of(time_zone=learner.time_zone, date=digest.local_date)
    if ReviewLog.objects.filter(
        learner_id=learner.pk,
        source=ReviewLog.Source.REVIEW,
        reviewed_at__gte=day.start,
        reviewed_at__lte=now,
    ).exists():
        return "reviewed_today"
    return None


def _digest_context(*, learner, count: int, language: str) -> dict:
    review_url = settings.SITE_URL + REVIEW_PAGE_PATH
    unsubscribe_url = (
        f"{settings.SITE_URL}/reminders/unsubscribe/{reminder_unsubscribe_token(learner.pk)}/"
    )
    context = {
        "name": learner.display_name or learner.first_name or learner.username,
        "count": count,
        "review_url": review_url,
        "unsubscribe_url": unsubscribe_url,
    }
    context["title"] = render_to_string(
        f"reviews/email/digest_subject.{language}.txt", context
    ).strip()
    context["notification_body"] = render_to_string(
        f"reviews/email/digest_notification.{language}.txt", context
    ).strip()
    return context


def _digest_message(*, learner, context: dict, connection) -> EmailMultiAlternatives:
    language = learner.language if learner.language in EMAIL_LANGUAGES else "de"
    message = EmailMultiAlternatives(
        subject=context["title"],
        body=render_to_string(f"reviews/email/digest.{language}.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[learner.email],
        connection=connection,
        headers={
            # RFC 2369 and RFC 8058: mail clients offer their own one-click unsubscribe button.
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Content-Language": language,
        },
    )
    message.attach_alternative(
        render_to_string(f"reviews/email/digest.{language}.html", context), "text/html"
    )
    return message


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


# --- unsubscribe ------------------------------------------------------------------------------


def reminder_unsubscribe_token(learner_id: int) -> str:
    """A signed, non-expiring token that turns this learner's reminder e-mails off."""
    return signing.dumps({"learner": learner_id}, salt=UNSUBSCRIBE_SALT)


@transaction.atomic
def reminder_email_unsubscribe(*, token: str) -> str | None:
    """Turn reminder e-mails off for the learner the token names (idempotent, no log-in).

    Returns the learner's language for the confirmation page (None if the account is gone).
    """
    try:
        learner_id = int(signing.loads(token, salt=UNSUBSCRIBE_SALT)["learner"])
    except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
        raise InvalidInput(
            "This unsubscribe link is not valid.", code="invalid_unsubscribe_token"
        ) from exc
    learners = get_user_model().objects.filter(pk=learner_id)
    language = learners.values_list("language", flat=True).first()
    learners.update(reminder_email=False)
    return language
