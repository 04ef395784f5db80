"""Planning reminder digests: the planner that claims them and enqueues their sending.

Exactly-once in effect (the send step is reviews.services.reminder_sending):
- the planner *claims* a digest by inserting a ReminderDigest row, unique per (learner, local
  date, kind), with ON CONFLICT DO NOTHING — two planners (or two beats) at once claim it once;
- the send step locks the claim row with a conditional UPDATE (status still "claimed"), sends,
  and marks it "sent" in the same transaction — a task delivered twice waits for the lock and
  then finds the row sent;
- a claim whose task was lost (worker killed, broker restarted) stays "claimed" and the next
  planner run enqueues it again.
Each learner's next reminder instant is stored (accounts.User.next_reminder_at), so a run reads
only the learners whose reminder has come, not every learner.
The one window left is a crash after the mail server accepted the message and before the commit;
then the redelivered task sends it a second time (at-least-once there, never zero).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from accounts import api as accounts_api
from courses import api as courses_api
from lms.local_time import local_day_of
from lms.sql import datetime_param
from reviews import sql
from reviews.models import ReminderDigest, ReviewCard, ReviewLog
from reviews.selectors import live_cards_q

# Learners read per chunk (one read, one claim INSERT, one UPDATE) and digests per send task.
REMINDER_BATCH_SIZE = 500
# A claim enqueued this long ago and still not sent is enqueued again (its task was lost).
REMINDER_RESEND_AFTER = datetime.timedelta(minutes=5)


@dataclass(frozen=True)
class PlannerReport:
    # Chunks of learners read (each: one read, a claim INSERT if any, one UPDATE).
    claim_chunks: int
    # Learners whose next reminder instant had come; candidates: claims inserted among them
    # (ON CONFLICT DO NOTHING: a claim already there for that local day stays the only one).
    looked_at: int
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

    Reads only the learners whose stored next reminder instant has come (not every learner) and
    moves each of them on to their next one: per chunk one read, one claim INSERT and one UPDATE,
    committed together. Deliberately not one transaction for the run: each chunk commits on its
    own, so a crash mid-run keeps what was claimed; enqueueing comes after every chunk committed.
    """
    now = now or timezone.now()
    # A late or missed run loses nothing (accounts.api.REMINDER_LOOKBACK: twice the beat
    # interval); the claim row makes the overlap harmless.
    window_start = now - accounts_api.REMINDER_LOOKBACK
    claim_chunks = looked_at = 0
    claimed: list[int] = []
    for learners in _due_learner_chunks(now=now):
        claims, next_at = _chunk_plan(learners, now=now, window_start=window_start)
        # One flush to disk per chunk, not two. Outside a transaction of the caller.
        with transaction.atomic(savepoint=False):
            claimed += sql.reminder_claims_insert(claims, now=now)
            _next_reminders_store(
                next_at, read={learner.id: learner.next_reminder_at for learner in learners}
            )
        claim_chunks += 1
        looked_at += len(learners)
    dispatch_chunks = 0
    for index in range(0, len(claimed), REMINDER_BATCH_SIZE):
        # Stamped as enqueued when inserted: if the broker call fails, the stamp only delays
        # the retry by REMINDER_RESEND_AFTER (the next runs' _dispatch); enqueueing before the
        # commit could hand a worker a claim it cannot see yet.
        enqueue(claimed[index : index + REMINDER_BATCH_SIZE], now)
        dispatch_chunks += 1
    resent, resent_chunks = _dispatch(now=now, enqueue=enqueue)
    return PlannerReport(
        claim_chunks=claim_chunks,
        looked_at=looked_at,
        candidates=len(claimed),
        dispatched=len(claimed) + resent,
        dispatch_chunks=dispatch_chunks + resent_chunks,
    )


def _dispatch(
    *, now: datetime.datetime, enqueue: Callable[[list[int], datetime.datetime], None]
) -> tuple[int, int]:
    """Enqueue claimed digests never enqueued, or enqueued long ago and still unsent (their
    task was lost, or the broker refused it).

    One query when there are none (as in most runs); otherwise two per chunk (read the ids,
    stamp them), keyset-paginated by id.
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


# --- finding the learners whose reminder is due: the stored next reminder instant -------------
#
# accounts.User.next_reminder_at holds, per learner, the instant from which the planner must look
# at them again: their next local reminder instant (NULL: no reminders). Preference changes set it
# (accounts.api.reminder_next_at), each run moves every learner it reads on to their next one. A
# run therefore reads through the index only the learners whose instant has come, about 1/96 of
# them, and works out time zones, DST and quiet hours in Python for those few (lms.local_time),
# the same on every database.


def _a_due_card(now: datetime.datetime) -> Subquery:
    # One due card's id (or NULL), not EXISTS: in the select list PostgreSQL may run an EXISTS
    # as one hashed pass over every due card of every learner (~150 ms on the benchmark's 1.5 M
    # cards) instead of one step down the (learner, due) index per learner read.
    live = live_cards_q(courses_api.retired_content())
    due = ReviewCard.objects.filter(live, learner_id=OuterRef("pk"), due__lte=now)
    return Subquery(due.values("id")[:1])


def _last_review_at(now: datetime.datetime) -> Subquery:
    # One step down the (learner, reviewed_at) index; compared with the local day's start below.
    return Subquery(
        ReviewLog.objects.filter(
            learner_id=OuterRef("pk"), source=ReviewLog.Source.REVIEW, reviewed_at__lte=now
        )
        .order_by("-reviewed_at")
        .values("reviewed_at")[:1]
    )


@dataclass(frozen=True)
class _DueLearner:
    id: int
    next_reminder_at: datetime.datetime
    is_active: bool
    reminder_email: bool
    email: str
    time_zone: str
    reminder_time: datetime.time
    quiet_hours_start: datetime.time | None
    quiet_hours_end: datetime.time | None
    due_card_id: int | None
    last_review_at: datetime.datetime | None


def _due_learner_chunks(*, now: datetime.datetime) -> Iterator[list[_DueLearner]]:
    """The learners whose next reminder instant has come, in chunks, one query per chunk.

    Keyset-paginated by (next_reminder_at, id) along the partial index. The caller moves each
    chunk's learners past ``now`` before asking for the next, so the pages are also what is
    left; the keyset only guarantees that a row left behind (changed meanwhile) is not read
    again in this run.
    """
    learners = (
        get_user_model()
        .objects.filter(next_reminder_at__lte=now)
        .annotate(due_card_id=_a_due_card(now), last_review_at=_last_review_at(now))
        .order_by("next_reminder_at", "pk")
        .values_list(*(field.name for field in dataclasses.fields(_DueLearner)))
    )
    page = learners
    while True:
        rows = [_DueLearner(*row) for row in page[:REMINDER_BATCH_SIZE]]
        if rows:
            yield rows
        if len(rows) < REMINDER_BATCH_SIZE:
            return
        last = rows[-1]
        page = learners.filter(
            Q(next_reminder_at__gt=last.next_reminder_at)
            | Q(next_reminder_at=last.next_reminder_at, pk__gt=last.id)
        )


def _chunk_plan(
    learners: list[_DueLearner], *, now: datetime.datetime, window_start: datetime.datetime
) -> tuple[list[tuple[int, datetime.date]], list[tuple[int, datetime.datetime | None]]]:
    """The claims (learner, local date) of a chunk, and every learner's next reminder instant.

    A learner is claimed when a local date's reminder instant lies in (window_start, now], they
    are not in their quiet hours now, have cards due and have not reviewed since that local
    day began. Every learner read moves on to the first reminder instant after ``now``, claimed
    or not: nothing due, reviewed today, quiet hours and an instant older than the window
    (the planner was down) all wait for the next local day, as a claim would.
    """
    claims: list[tuple[int, datetime.date]] = []
    next_at: list[tuple[int, datetime.datetime | None]] = []
    for learner in learners:
        schedule = accounts_api.ReminderPreferences.of(learner).schedule
        if schedule is None:
            next_at.append((learner.id, None))
            continue
        next_at.append((learner.id, schedule.next_after(now)))
        local_date = schedule.date_in_window(start=window_start, end=now)
        if local_date is None or learner.due_card_id is None or schedule.quiet_at(now):
            continue
        day = local_day_of(time_zone=learner.time_zone, date=local_date)
        if learner.last_review_at is not None and learner.last_review_at >= day.start:
            continue
        claims.append((learner.id, local_date))
    return claims, next_at


def _next_reminders_store(
    rows: list[tuple[int, datetime.datetime | None]],
    *,
    read: dict[int, datetime.datetime] | None = None,
) -> None:
    """Store next reminder instants (learner id, instant or None) in one statement.

    With ``read`` (the values the planner read), a row is changed only if it still holds that
    value: a preference change saved while the run was working keeps what it stored.
    """
    if not rows:
        return
    model = get_user_model()
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    column = quote(model._meta.get_field("next_reminder_at").column)
    pk = quote(model._meta.pk.column)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One UPDATE joined to the arrays: no CASE with a branch per learner.
            ids = [learner_id for learner_id, _ in rows]
            values = [at for _, at in rows]
            if read is None:
                cursor.execute(
                    f"UPDATE {table} AS learner SET {column} = schedule.next_at "
                    "FROM unnest(%s::bigint[], %s::timestamptz[]) AS schedule(id, next_at) "
                    f"WHERE learner.{pk} = schedule.id",
                    [ids, values],
                )
            else:
                cursor.execute(
                    f"UPDATE {table} AS learner SET {column} = schedule.next_at "
                    "FROM unnest(%s::bigint[], %s::timestamptz[], %s::timestamptz[]) "
                    "AS schedule(id, next_at, read_at) "
                    f"WHERE learner.{pk} = schedule.id AND learner.{column} = schedule.read_at",
                    [ids, values, [read[learner_id] for learner_id in ids]],
                )
        else:
            # Portable: one prepared UPDATE run for every row (one statement for Django's count).
            sql = f"UPDATE {table} SET {column} = %s WHERE {pk} = %s"
            if read is None:
                cursor.executemany(
                    sql, [(datetime_param(at), learner_id) for learner_id, at in rows]
                )
            else:
                cursor.executemany(
                    sql + f" AND {column} = %s",
                    [
                        (datetime_param(at), learner_id, datetime_param(read[learner_id]))
                        for learner_id, at in rows
                    ],
                )


def reminder_schedules_reset(*, after: datetime.datetime, batch_size: int = 2000) -> int:
    """Work out every learner's next reminder instant afresh: their first after ``after``
    (None without reminders). For bulk loads (the benchmark's COPY) and repairs; one read and
    one UPDATE per ``batch_size`` learners. Returns how many learners it went through."""
    learners = get_user_model().objects.order_by("pk")
    fields = ("pk", *(field.name for field in dataclasses.fields(accounts_api.ReminderPreferences)))
    last_id, count = 0, 0
    while True:
        rows = list(learners.filter(pk__gt=last_id).values(*fields)[:batch_size])
        if not rows:
            return count
        schedule = [
            (
                row["pk"],
                accounts_api.ReminderPreferences(
                    **{name: value for name, value in row.items() if name != "pk"}
                ).next_after(after),
            )
            for row in rows
        ]
        _next_reminders_store(schedule)
        count += len(rows)
        last_id = rows[-1]["pk"]
