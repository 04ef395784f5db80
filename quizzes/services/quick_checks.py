"""Quick-check self-assessment: a learner reveals the answer and rates themselves."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from courses import api as courses_api
from lms.errors import Conflict, NotEnrolled, NotFound
from progress import api as progress_api
from quizzes.models import QuickCheckRating, QuickCheckRatingEvent
from reviews import api as reviews_api


@dataclass(frozen=True)
class RatingOutcome:
    rating: QuickCheckRating
    created: bool


def quick_check_rate(
    *,
    learner_id: int,
    module_slug: str,
    step_number: int,
    quick_check_id: int,
    rating: str,
    at: datetime.datetime | None = None,
) -> RatingOutcome:
    """Store the learner's rating of a quick check on the step and tell the reviews app: 404 when
    the step does not show it or the learner is not enrolled, 409 for a reflection prompt."""
    at = at or timezone.now()
    step = courses_api.step_by_number(module_slug, step_number)
    quick_check = next(
        (qc for qc in courses_api.step_quick_checks(step.id) if qc.id == quick_check_id), None
    )
    if quick_check is None:
        raise NotFound(
            f"Step {step_number} has no quick check {quick_check_id}.", code="quick_check_not_found"
        )
    if quick_check.is_reflection_prompt:
        raise Conflict(
            _("This quick check is a reflection prompt: think it through, it takes no rating."),
            code="reflection_prompt",
        )
    store = {
        "learner_id": learner_id,
        "module_slug": module_slug,
        "step_number": step_number,
        "step_id": step.id,
        "quick_check_id": quick_check_id,
        "rating": rating,
        "at": at,
        "is_definition": quick_check.is_definition,
    }
    try:
        return _rating_store(**store)
    except IntegrityError:
        # Two first ratings raced and the other inserted the row: now there is one to update.
        return _rating_store(**store)


def _rating_store(
    *,
    learner_id: int,
    module_slug: str,
    step_number: int,
    step_id: int,
    quick_check_id: int,
    rating: str,
    at: datetime.datetime,
    is_definition: bool,
) -> RatingOutcome:
    with transaction.atomic():
        # Locked like progress' writes lock it: an unenrollment waits until the rating is stored.
        if progress_api.enrollment_lock(learner_id=learner_id, module_slug=module_slug) is None:
            raise NotEnrolled(module_slug, enroll_first=True)
        row = (
            QuickCheckRating.objects.select_for_update()
            .filter(learner_id=learner_id, quick_check_id=quick_check_id)
            .first()
        )
        created = row is None
        if created:
            row = QuickCheckRating.objects.create(
                learner_id=learner_id,
                quick_check_id=quick_check_id,
                step_id=step_id,
                rating=rating,
                first_rated_at=at,
                updated_at=at,
            )
        else:
            row.rating = rating
            row.step_id = step_id
            row.times_rated += 1
            row.updated_at = at
            row.save(update_fields=["rating", "step", "times_rated", "updated_at"])
        QuickCheckRatingEvent.objects.create(
            learner_id=learner_id,
            quick_check_id=quick_check_id,
            step_id=step_id,
            rating=rating,
            rated_at=at,
        )
        # In the same transaction: the review card and the rating it starts from stay together.
        reviews_api.quick_check_rated(
            learner_id=learner_id,
            step_id=step_id,
            quick_check_id=quick_check_id,
            rating=rating,
            at=at,
            is_definition=is_definition,
        )
        # An answered quick check is evidence for completing the step (progress' rule).
        progress_api.quick_check_answer_record(
            learner_id=learner_id,
            module_slug=module_slug,
            number=step_number,
            quick_check_id=quick_check_id,
            at=at,
        )
    return RatingOutcome(rating=row, created=created)
