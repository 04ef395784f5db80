"""Recording a review of a card (with offline replay by client review id) and undoing it."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from lms.errors import Conflict, InvalidInput, NotFound
from reviews import sql
from reviews.models import (
    ReviewCard,
    ReviewLog,
)
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


def _earlier(*, learner_id: int, client_review_id: str) -> ReviewLog | None:
    logs = ReviewLog.objects.filter(learner_id=learner_id, client_review_id=client_review_id)
    return logs.first()


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
    check of its time: the replayed review is the card's last one). The card is locked, read
    with what schedules it, reviewed and saved with its log in one transaction.
    """
    if rating not in (1, 2, 3, 4):
        raise InvalidInput(_("The rating must be 1, 2, 3 or 4."), code="invalid_rating")
    now = at or timezone.now()
    try:
        with transaction.atomic():
            card = sql.card_for_review_lock(
                card_id=card_id, learner_id=learner.pk, client_review_id=client_review_id
            )
            if card is None or card.earlier_log_id is not None:
                earlier = _earlier(learner_id=learner.pk, client_review_id=client_review_id)
                if earlier is not None:
                    return _replay(card_id=card_id, log=earlier)
            if card is None:
                raise NotFound(_("You have no review card with this id."), code="card_not_found")
            reviewed = review_time(
                reviewed_at=reviewed_at,
                now=now,
                created_at=card.created_at,
                last_review=card.state.last_review,
            )
            after = card_review(
                state=card.state,
                rating=rating,
                at=reviewed,
                desired_retention=learner.desired_retention,
                duration_ms=duration_ms,
                parameters=card.parameters,
                exam_at=exam_start(exam_on=card.exam_on, time_zone=learner.time_zone),
            )
            log = ReviewLog.objects.create(
                card_id=card_id,
                learner_id=learner.pk,
                source=ReviewLog.Source.REVIEW,
                rating=rating,
                reviewed_at=reviewed,
                duration_ms=duration_ms,
                client_review_id=client_review_id,
                **log_states(before=card.state, after=after),
            )
            ReviewCard.objects.filter(pk=card_id).update(**after.columns())
            return _result(log, replayed=False)
    except IntegrityError:
        # Two requests with the same client review id for different cards raced past the
        # look-up; the unique constraint let one win. The loser's transaction rolled back whole.
        earlier = _earlier(learner_id=learner.pk, client_review_id=client_review_id)
        if earlier is None:
            raise
        return _replay(card_id=card_id, log=earlier)


@dataclass(frozen=True)
class UndoResult:
    review_id: int
    card_id: int
    rating: int
    reviewed_at: datetime.datetime
    due: datetime.datetime
    state: int


# Each retry means a concurrent undo took the log first; the bound keeps this from spinning.
_UNDO_ATTEMPTS = 50


@transaction.atomic
def review_undo(*, learner) -> UndoResult:
    """Undo the learner's last review from the queue: restore the card, delete the log. "Last" is
    the highest log id (drawn under the card's lock, unlike ``reviewed_at``), read under it."""
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
