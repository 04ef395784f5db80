"""Planning reminder digests: claim each (a row unique per learner, local date and kind) and
enqueue its sending; a lost task stays "claimed" and the next run enqueues it again."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from accounts import api as accounts_api
from accounts.data import ReminderLearner
from courses import api as courses_api
from lms.local_time import local_day_of
from reviews.models import ReminderDigest, ReviewCard, ReviewLog
from reviews.selectors import live_cards_q

# Learners read per chunk and digests per send task.
REMINDER_BATCH_SIZE = 500
# A claim enqueued this long ago and still not sent is enqueued again (its task was lost).
REMINDER_RESEND_AFTER = datetime.timedelta(minutes=5)


@dataclass(frozen=True)
class ReminderClaim:
    """A learner whose reminder for ``local_date`` is due, if they have a card due and have not
    reviewed since that local day began (``day_start``)."""

    learner_id: int
    local_date: datetime.date
    day_start: datetime.datetime


@dataclass(frozen=True)
class PlannerReport:
    claim_chunks: int
    # looked_at: learners whose instant had come; candidates: the new claims enqueued.
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
    claimed-but-unsent one. Each chunk commits on its own, so a crash keeps what was claimed."""
    now = now or timezone.now()
    # The window overlaps the last run's (a late run loses nothing); the claim row dedupes.
    window_start = now - accounts_api.REMINDER_LOOKBACK
    claim_chunks = looked_at = 0
    live: Q | None = None
    for learners in accounts_api.reminder_learner_chunks(at=now, chunk_size=REMINDER_BATCH_SIZE):
        claims, next_at = _chunk_plan(learners, now=now, window_start=window_start)
        if claims and live is None:
            live = live_cards_q(courses_api.retired_content())
        with transaction.atomic(savepoint=False):
            if claims:
                _claims_insert(claims, now=now, live=live)
            accounts_api.next_reminders_store(
                next_at=next_at, read={learner.id: learner.next_reminder_at for learner in learners}
            )
        claim_chunks += 1
        looked_at += len(learners)
    new, resent, dispatch_chunks = _dispatch(now=now, enqueue=enqueue)
    return PlannerReport(
        claim_chunks=claim_chunks,
        looked_at=looked_at,
        candidates=new,
        dispatched=new + resent,
        dispatch_chunks=dispatch_chunks,
    )


def _claims_insert(claims: list[ReminderClaim], *, now: datetime.datetime, live: Q) -> None:
    """Claim the digests of learners with a live card due at ``now`` and no review since their
    local day began; an existing claim for that day stays the only one."""
    learner_ids = [claim.learner_id for claim in claims]
    with_due = set(
        ReviewCard.objects.filter(live, learner_id__in=learner_ids, due__lte=now)
        .values_list("learner_id", flat=True)
        .distinct()
    )
    if not with_due:
        return
    last_reviews = dict(
        ReviewLog.objects.filter(
            learner_id__in=with_due,
            source=ReviewLog.Source.REVIEW,
            reviewed_at__gte=min(claim.day_start for claim in claims),
            reviewed_at__lte=now,
        )
        .values("learner_id")
        .annotate(last=Max("reviewed_at"))
        .values_list("learner_id", "last")
    )

    def wanted(claim: ReminderClaim) -> bool:
        last = last_reviews.get(claim.learner_id)
        return claim.learner_id in with_due and (last is None or last < claim.day_start)

    ReminderDigest.objects.bulk_create(
        [
            ReminderDigest(learner_id=claim.learner_id, local_date=claim.local_date, claimed_at=now)
            for claim in claims
            if wanted(claim)
        ],
        ignore_conflicts=True,
    )


def _dispatch(
    *, now: datetime.datetime, enqueue: Callable[[list[int], datetime.datetime], None]
) -> tuple[int, int, int]:
    """Enqueue claims never enqueued, or long ago and still unsent: (new, resent, chunks)."""
    pending = ReminderDigest.objects.filter(status=ReminderDigest.Status.CLAIMED).filter(
        Q(enqueued_at__isnull=True) | Q(enqueued_at__lte=now - REMINDER_RESEND_AFTER)
    )
    last_id, new, resent, chunks = 0, 0, 0, 0
    while True:
        rows = list(
            pending.filter(id__gt=last_id)
            .order_by("id")
            .values_list("id", "enqueued_at")[:REMINDER_BATCH_SIZE]
        )
        if not rows:
            break
        ids = [row_id for row_id, _enqueued_at in rows]
        ReminderDigest.objects.filter(id__in=ids).update(enqueued_at=now)
        # Stamped first: a failed broker call only delays the retry by REMINDER_RESEND_AFTER.
        enqueue(ids, now)
        fresh = sum(1 for _row_id, enqueued_at in rows if enqueued_at is None)
        new += fresh
        resent += len(ids) - fresh
        chunks += 1
        last_id = ids[-1]
        if len(ids) < REMINDER_BATCH_SIZE:
            break
    return new, resent, chunks


# Each run moves every learner it reads on to their next reminder instant, so a run reads only
# those whose instant has come.


def _chunk_plan(
    learners: list[ReminderLearner],
    *,
    now: datetime.datetime,
    window_start: datetime.datetime,
) -> tuple[list[ReminderClaim], dict[int, datetime.datetime | None]]:
    """The candidate claims of a chunk, and every learner's next reminder instant (after ``now``,
    claimed or not: whatever kept a learner from a claim waits for the next local day)."""
    claims: list[ReminderClaim] = []
    next_at: dict[int, datetime.datetime | None] = {}
    for learner in learners:
        schedule = learner.schedule
        if schedule is None:
            next_at[learner.id] = None
            continue
        next_at[learner.id] = schedule.next_after(now)
        local_date = schedule.date_in_window(start=window_start, end=now)
        if local_date is None or schedule.quiet_at(now):
            continue
        day = local_day_of(time_zone=schedule.time_zone, date=local_date)
        claims.append(
            ReminderClaim(learner_id=learner.id, local_date=local_date, day_start=day.start)
        )
    return claims, next_at
