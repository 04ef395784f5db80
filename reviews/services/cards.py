"""Creating review cards: when a learner completes a step, and from quick-check self-ratings."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils.translation import gettext as _

from accounts import api as accounts_api
from accounts.data import DEFAULT_DESIRED_RETENTION
from courses import api as courses_api
from lms.errors import InvalidInput
from reviews.models import ReviewCard, ReviewLog
from reviews.scheduling import CARD_STATE_FIELDS, QUICK_CHECK_RATINGS, CardState, card_review


def _new_card(
    *,
    learner_id: int,
    step_id: int,
    quick_check_id: int | None,
    at: datetime.datetime,
) -> ReviewCard:
    return ReviewCard(
        learner_id=learner_id,
        kind=(
            ReviewCard.Kind.DEFINITION if quick_check_id is None else ReviewCard.Kind.QUICK_CHECK
        ),
        step_id=step_id,
        # The step's module, read by the INSERT itself (no query of its own).
        module_id=courses_api.step_module_id(step_id),
        quick_check_id=quick_check_id,
        created_at=at,
        **CardState.new(at=at).columns(),
    )


@transaction.atomic
def cards_for_step_ensure(*, learner_id: int, step_id: int, at: datetime.datetime) -> None:
    """Create the definition card and one card per distinct flashcard quick check of the step
    (idempotent: the partial unique constraints make a repeat an ignored conflict)."""
    quick_checks = courses_api.step_quick_checks(step_id)
    cards = [_new_card(learner_id=learner_id, step_id=step_id, quick_check_id=None, at=at)]
    cards += [
        _new_card(learner_id=learner_id, step_id=step_id, quick_check_id=qc.id, at=at)
        for qc in {qc.id: qc for qc in quick_checks if qc.makes_card}.values()
    ]
    ReviewCard.objects.bulk_create(cards, ignore_conflicts=True)


@transaction.atomic
def quick_check_rating_record(
    *,
    learner_id: int,
    step_id: int,
    quick_check_id: int,
    rating: str,
    at: datetime.datetime,
    is_definition: bool = False,
) -> None:
    """A quick-check self-rating is its card's first review (the card is created if needed); later
    ratings leave its schedule alone. A definition quick check rates the step's definition card."""
    fsrs_rating = QUICK_CHECK_RATINGS.get(rating)
    if fsrs_rating is None:
        raise InvalidInput(
            _("Unknown quick-check rating '%(rating)s'.") % {"rating": rating},
            detail={"rating": sorted(QUICK_CHECK_RATINGS)},
            code="invalid_rating",
        )
    card_quick_check_id = None if is_definition else quick_check_id
    ReviewCard.objects.bulk_create(
        [
            _new_card(
                learner_id=learner_id, step_id=step_id, quick_check_id=card_quick_check_id, at=at
            )
        ],
        ignore_conflicts=True,
    )
    cards = ReviewCard.objects.select_for_update().filter(learner_id=learner_id)
    if is_definition:
        card = cards.get(kind=ReviewCard.Kind.DEFINITION, step_id=step_id)
    else:
        card = cards.get(kind=ReviewCard.Kind.QUICK_CHECK, quick_check_id=quick_check_id)
    if card.last_review is not None:
        return
    preferences = accounts_api.review_preferences(learner_id)
    retention = preferences.desired_retention if preferences else DEFAULT_DESIRED_RETENTION
    before = CardState.from_columns(card)
    after = card_review(
        state=before,
        rating=int(fsrs_rating),
        at=at,
        desired_retention=retention,
    )
    ReviewLog.objects.create(
        card=card,
        learner_id=learner_id,
        source=ReviewLog.Source.QUICK_CHECK,
        rating=int(fsrs_rating),
        reviewed_at=at,
        **log_states(before=before, after=after),
    )
    for name, value in after.columns().items():
        setattr(card, name, value)
    card.save(update_fields=CARD_STATE_FIELDS)


# The log keeps the whole state before the review (undo) and what a replay returns after it.
_LOG_FIELDS = frozenset(field.name for field in ReviewLog._meta.concrete_fields)
_LOG_AFTER_FIELDS = [name for name in CARD_STATE_FIELDS if f"after_{name}" in _LOG_FIELDS]


def log_states(*, before: CardState, after: CardState) -> dict:
    """The before/after columns of a ReviewLog row."""
    columns = before.columns(prefix="before_")
    for name in _LOG_AFTER_FIELDS:
        columns[f"after_{name}"] = getattr(after, name)
    return columns
