"""What other apps may ask of the reviews app (spaced repetition)."""

from __future__ import annotations

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

# A learner's review cards for a completed step (idempotent).
cards_for_step_ensure = _cards.cards_for_step_ensure


# A quick check's self-rating ("knew" / "partly" / "not_yet" as Good / Hard / Again): its card's
# first review. An unknown rating raises InvalidInput.
quick_check_rated = _cards.quick_check_rating_record


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


def calendar_feed_url(*, learner) -> str | None:
    """The learner's live private calendar address, absolute, or None (one query)."""
    feed = _selectors.calendar_feed_get(learner=learner)
    return None if feed is None else _selectors.calendar_feed_url(feed)


def learners_with_cards_by_step(step_ids: Iterable[int]) -> dict[int, int]:
    """Per step with cards, how many learners have review cards of it (one query)."""
    ids = list(step_ids)
    if not ids:
        return {}
    return dict(
        ReviewCard.objects.filter(step_id__in=ids)
        .values("step_id")
        .annotate(learners=Count("learner_id", distinct=True))
        .values_list("step_id", "learners")
    )


# Per step, the learner's live cards due now (the exam result page: what to review first).
due_cards_by_step = _selectors.due_cards_by_step
# Reviews per day, true retention and the cards due now of one module (the course dashboard).
module_review_stats = _selectors.module_review_stats
# The demo learner's review sessions of the last days (``manage.py demo_setup``).
demo_reviews_replay = _demo.demo_reviews_replay
