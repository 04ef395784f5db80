"""Recording a review of a card (with offline replay by client review id) and undoing it."""

from __future__ import annotations

import contextlib
import datetime
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from lms.errors import Conflict, InvalidInput, NotFound
from lms.sql import row_insert, row_insert_if_updated
from reviews import sql
from reviews.models import ReviewCard, ReviewLog
from reviews.review_times import review_time
from reviews.scheduling import CardState, card_review, exam_start
from reviews.services.cards import log_states


@dataclass(frozen=True)
class ReviewResult:
    """What a review did to its card. A replayed client review id gets the original back."""

    review_id: int
    card_id: int
    client_review_id: str
    rating: int
    reviewed_at: datetime.datetime
    state: int
    stability: float
    difficulty: float
    due: datetime.datetime
    interval_seconds: int
    replayed: bool


def _result(log: ReviewLog, *, replayed: bool) -> ReviewResult:
    return ReviewResult(
        review_id=log.pk,
        card_id=log.card_id,
        client_review_id=log.client_review_id or "",
        rating=log.rating,
        reviewed_at=log.reviewed_at,
        state=log.after_state,
        stability=log.after_stability,
        difficulty=log.after_difficulty,
        due=log.after_due,
        interval_seconds=max(0, int((log.after_due - log.reviewed_at).total_seconds())),
        replayed=replayed,
    )


def _replay(*, card_id: int, log: ReviewLog) -> ReviewResult:
    if log.card_id != card_id:
        raise Conflict(
            _("This client review id was already used for another card."),
            detail={"card": log.card_id},
            code="client_review_id_reused",
        )
    return _result(log, replayed=True)


@dataclass(frozen=True)
class _Review:
    """One review as asked for, before either path applies it."""

    learner: Any
    card_id: int
    rating: int
    duration_ms: int | None
    client_review_id: str
    # The server's clock, and the time the client says the review happened (None: now).
    now: datetime.datetime
    reviewed_at: datetime.datetime | None

    def applied_to(self, read: sql.CardRead) -> tuple[ReviewLog, CardState]:
        """The unsaved log and the card's state after the review of the card as ``read``,
        scheduled from the review's own time (reviews.review_times; InvalidInput when that time
        cannot be), with the parameters that apply to the card and for its exam day if it has
        one."""
        before = read.state
        at = review_time(
            reviewed_at=self.reviewed_at,
            now=self.now,
            created_at=read.created_at,
            last_review=before.last_review,
        )
        after = card_review(
            state=before,
            rating=self.rating,
            at=at,
            desired_retention=self.learner.desired_retention,
            duration_ms=self.duration_ms,
            parameters=read.parameters,
            exam_at=exam_start(exam_on=read.exam_on, time_zone=self.learner.time_zone),
        )
        log = ReviewLog(
            card_id=self.card_id,
            learner_id=self.learner.pk,
            source=ReviewLog.Source.REVIEW,
            rating=self.rating,
            reviewed_at=at,
            duration_ms=self.duration_ms,
            client_review_id=self.client_review_id,
            **log_states(before=before, after=after),
        )
        return log, after


def _card_read(review: _Review, *, lock: bool) -> sql.CardRead | None:
    return sql.card_read(
        card_id=review.card_id,
        learner_id=review.learner.pk,
        client_review_id=review.client_review_id,
        lock=lock,
    )


def review_record(
    *,
    learner,
    card_id: int,
    rating: int,
    duration_ms: int | None,
    client_review_id: str,
    at: datetime.datetime | None = None,
    reviewed_at: datetime.datetime | None = None,
) -> ReviewResult:
    """Review one of the learner's cards with rating 1–4 (Again/Hard/Good/Easy).

    ``at`` is the server's time (default: now); ``reviewed_at`` the time a client says the
    review happened (offline), bounded by reviews.review_times: the review is scheduled from it
    and the log keeps it. A time out of bounds is an InvalidInput and writes nothing.

    Replaying a client review id changes nothing and returns the original result (before any
    check of its time: the replayed review is the card's last one). On PostgreSQL
    a review is two statements (read the card and look up the replay; write the log and the
    card's new state if the card is unchanged) and falls back to the locked path below when it
    must; elsewhere it locks the card in a transaction. Fixed counts whatever the number of
    cards (tests/reviews/test_performance.py).
    """
    if rating not in (1, 2, 3, 4):
        raise InvalidInput(_("The rating must be 1, 2, 3 or 4."), code="invalid_rating")
    review = _Review(
        learner=learner,
        card_id=card_id,
        rating=rating,
        duration_ms=duration_ms,
        client_review_id=client_review_id,
        now=at or timezone.now(),
        reviewed_at=reviewed_at,
    )
    if connection.vendor == "postgresql":
        result = _review_record_unlocked(review)
        if result is not None:
            return result
    try:
        with transaction.atomic():
            read = _card_read(review, lock=True)
            if read is None:
                earlier = ReviewLog.objects.filter(
                    learner_id=learner.pk, client_review_id=client_review_id
                ).first()
                if earlier is not None:
                    return _replay(card_id=card_id, log=earlier)
                raise NotFound(_("You have no review card with this id."), code="card_not_found")
            if read.replayed_log_id is not None:
                earlier = ReviewLog.objects.get(id=read.replayed_log_id)
                return _replay(card_id=card_id, log=earlier)

            log, after = review.applied_to(read)
            # The log and the card's new state: one round trip on PostgreSQL.
            row_insert(log, along=sql.card_state_update(card_id=card_id, state=after))
            return _result(log, replayed=False)
    except IntegrityError:
        # Two requests with the same client review id for different cards raced past the
        # lookup; the unique constraint let one win. The loser's transaction rolled back whole.
        earlier = ReviewLog.objects.filter(
            learner_id=learner.pk, client_review_id=client_review_id
        ).first()
        if earlier is None:
            raise
        return _replay(card_id=card_id, log=earlier)


def _review_record_unlocked(review: _Review) -> ReviewResult | None:
    """The common case in two statements and no transaction of its own (PostgreSQL): read the
    card, then write the log and the card's new state in one statement that matches only if
    the card is still as read (a compare-and-swap; lms.sql.row_insert_if_updated).

    None when the locked path must answer: no such card, a replayed client review id, the card
    reviewed meanwhile by another request, or that request's same client review id winning the
    unique constraint. BEGIN, the row lock and COMMIT were half a review's statements.
    """
    read = _card_read(review, lock=False)
    if read is None or read.replayed_log_id is not None:
        return None
    log, after = review.applied_to(read)
    update = sql.card_state_update_if(
        card_id=review.card_id, learner_id=review.learner.pk, before=read.state, state=after
    )
    # Inside a caller's transaction a failed statement needs a savepoint to roll back to;
    # outside one (a request) the statement is its own transaction.
    guard = transaction.atomic() if connection.in_atomic_block else contextlib.nullcontext()
    try:
        with guard:
            written = row_insert_if_updated(log, update=update)
    except IntegrityError:
        return None
    return _result(log, replayed=False) if written else None


@dataclass(frozen=True)
class UndoResult:
    review_id: int
    card_id: int
    rating: int
    reviewed_at: datetime.datetime
    due: datetime.datetime
    state: int


# Each further attempt means another undo deleted the log this one found; the bound only keeps
# an undo from running on while the learner's other devices undo faster than it can look.
_UNDO_ATTEMPTS = 50


@transaction.atomic
def review_undo(*, learner) -> UndoResult:
    """Undo the learner's last applied review from the review queue: restore the card, delete
    the log. Repeating it undoes the review before that, and so on. Quick-check self-ratings are
    not undone here (the step page owns them).

    "Last applied" is the highest log id, read under the card's row lock. Every review draws its
    log's id while it holds that lock (the compare-and-swap's INSERT runs on the row its UPDATE
    locked; the locked path inserts after SELECT … FOR UPDATE) and keeps it to its commit, so per
    card the ids are in the order the reviews were applied. ``reviewed_at`` is not: it is taken
    when the request starts, and a request that lost the compare-and-swap applies later with the
    earlier time (issue 13: 12 of 205 undos restored a wrong state). The lock also keeps a review
    from landing between reading the last log and restoring the state before it.

    Savepoint, the card's lock, its last log, the restore, the delete, release.
    """
    for _attempt in range(_UNDO_ATTEMPTS):
        reviews = ReviewLog.objects.filter(learner_id=learner.pk, source=ReviewLog.Source.REVIEW)
        card_id = (
            ReviewCard.objects.select_for_update()
            .filter(
                learner_id=learner.pk,
                id=Subquery(reviews.order_by("-id").values("card_id")[:1]),
            )
            .values_list("id", flat=True)
            .first()
        )
        if card_id is None:
            raise Conflict(_("There is no review to undo."), code="nothing_to_undo")
        log = ReviewLog.objects.filter(card_id=card_id).order_by("-id").first()
        if log is not None and log.source == ReviewLog.Source.REVIEW:
            break
        # A concurrent undo took this card's last review first; look again.
    else:
        raise Conflict(_("Other undos ran at the same moment; try again."), code="undo_conflict")
    ReviewCard.objects.filter(id=card_id).update(
        **CardState.from_columns(log, prefix="before_").columns()
    )
    ReviewLog.objects.filter(id=log.pk).delete()
    return UndoResult(
        review_id=log.pk,
        card_id=log.card_id,
        rating=log.rating,
        reviewed_at=log.reviewed_at,
        due=log.before_due,
        state=log.before_state,
    )
