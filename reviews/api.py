"""What other apps may ask of the reviews app (spaced repetition).

The progress service calls ``cards_for_step_ensure`` inside its transaction when a learner
completes a step; the quick-check service calls ``quick_check_rated`` for a self-rating.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db.models import Count

from lms.privacy import export_rows
from reviews import selectors as _selectors
from reviews.models import (
    CalendarFeed,
    ExamDate,
    LearnerParameters,
    Notification,
    ParameterFit,
    ReminderDigest,
    ReviewCard,
    ReviewLog,
)
from reviews.services import cards as _cards
from reviews.services import demo as _demo

# A learner's review cards for a completed step (idempotent): the definition card and one per
# distinct flashcard quick check (reviews.services.cards).
cards_for_step_ensure = _cards.cards_for_step_ensure


def quick_check_rated(
    *,
    learner_id: int,
    step_id: int,
    quick_check_id: int,
    rating: str,
    at: datetime.datetime,
    is_definition: bool = False,
) -> None:
    """A self-rating of a quick check ("knew" / "partly" / "not_yet"): its card's first review.

    Counts as FSRS Good / Hard / Again; creates the card if needed. Later ratings of the same
    quick check leave the card's schedule alone. An unknown rating raises InvalidInput. A quick
    check that repeats the step's definition (``is_definition``) rates the step's definition
    card instead of a card of its own.
    """
    _cards.quick_check_rating_record(
        learner_id=learner_id,
        step_id=step_id,
        quick_check_id=quick_check_id,
        rating=rating,
        at=at,
        is_definition=is_definition,
    )


def learner_export(learner_id: int) -> dict:
    """Everything the reviews app stores about the learner (data export): eight queries. The
    FSRS parameters in use, every fit of them (with its losses) and the exam dates are in it."""
    return {
        "cards": export_rows(
            ReviewCard.objects.filter(learner_id=learner_id),
            context=("step__module__slug", "step__term"),
        ),
        "review_logs": export_rows(ReviewLog.objects.filter(learner_id=learner_id)),
        "reminders": export_rows(ReminderDigest.objects.filter(learner_id=learner_id)),
        "notifications": export_rows(Notification.objects.filter(learner_id=learner_id)),
        # The address's token is a live credential: an export file is no place for it.
        "calendar_feeds": export_rows(
            CalendarFeed.objects.filter(learner_id=learner_id), exclude=("token",)
        ),
        "fsrs_parameters": export_rows(LearnerParameters.objects.filter(learner_id=learner_id)),
        "fsrs_parameter_fits": export_rows(ParameterFit.objects.filter(learner_id=learner_id)),
        "exam_dates": export_rows(
            ExamDate.objects.filter(learner_id=learner_id), context=("module__slug",)
        ),
    }


def learners_with_cards_by_step(step_ids: Iterable[int]) -> dict[int, int]:
    """Per step, how many learners have review cards of it (its definition card or its quick
    checks'): a re-import that changes or retires the step changes what they review. One query,
    steps without cards left out."""
    ids = list(step_ids)
    if not ids:
        return {}
    return dict(
        ReviewCard.objects.filter(step_id__in=ids)
        .values("step_id")
        .annotate(learners=Count("learner_id", distinct=True))
        .values_list("step_id", "learners")
    )


# Reviews per day, true retention and the cards due now of one module (the course dashboard,
# ``quizzes.admin_dashboard``); a fixed number of queries.
module_review_stats = _selectors.module_review_stats
# The demo learner's review sessions of the last days (``manage.py demo_setup``).
demo_reviews_replay = _demo.demo_reviews_replay
