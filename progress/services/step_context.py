"""Locking and reading one learner's progress row on one step, for every write that changes it.

The row is locked (FOR UPDATE) in the statement that reads it, so two requests of one learner
apply one after the other and the second sees the first's change. A step added to the module
after the enrollment gets its row on the first event.
"""

from __future__ import annotations

import dataclasses
import datetime

from django.db.models import Exists, OuterRef
from django.utils import timezone

from courses import api as courses_api
from progress.completion_rules import CompletionRequirement
from progress.models import Enrollment, StepProgress
from progress.selectors import (
    enrolled_step_id,
    requirement_of,
    step_unavailable,
    with_completion_requirement,
)

# The columns an event may change (progress_write, and the offline sync's bulk update).
PROGRESS_FIELDS = (
    "status",
    "first_opened_at",
    "completed_at",
    "sections_viewed",
    "quick_checks_answered",
    "last_section",
    "status_changed_at",
    "last_event_at",
    "updated_at",
)


@dataclasses.dataclass(frozen=True)
class StepContext:
    step_id: int
    section_kinds: tuple[str, ...]
    progress: StepProgress
    requirement: CompletionRequirement


def _progress_row_lock(*, learner_id: int, module_slug: str, number: int) -> StepProgress | None:
    """The learner's progress row of the step, locked, with what completing it asks
    (``with_completion_requirement``), only while the learner is enrolled: one statement."""
    return with_completion_requirement(
        StepProgress.objects.select_for_update(of=("self",)).filter(
            Exists(
                Enrollment.objects.filter(
                    learner_id=learner_id, module_id=OuterRef("step__module_id")
                )
            ),
            courses_api.active_step_q("step__"),
            learner_id=learner_id,
            step__module__slug=module_slug,
            step__number=number,
        )
    ).first()


def step_context_lock(*, learner_id: int, module_slug: str, number: int) -> StepContext | None:
    """Lock and read the learner's progress on a step; None when not enrolled or no such step.
    One statement when the row exists, 3 more once for a step added after the enrollment."""
    progress = _progress_row_lock(learner_id=learner_id, module_slug=module_slug, number=number)
    if progress is None:
        step_id = enrolled_step_id(learner_id=learner_id, module_slug=module_slug, number=number)
        if step_id is None:
            return None
        # ON CONFLICT DO NOTHING: a concurrent first event may be creating the same row.
        StepProgress.objects.bulk_create(
            [StepProgress(learner_id=learner_id, step_id=step_id, updated_at=timezone.now())],
            ignore_conflicts=True,
        )
        progress = _progress_row_lock(learner_id=learner_id, module_slug=module_slug, number=number)
    return StepContext(
        step_id=progress.step_id,
        section_kinds=tuple(progress.section_kinds),
        progress=progress,
        requirement=requirement_of(progress),
    )


def step_context_lock_or_raise(*, learner_id: int, module_slug: str, number: int) -> StepContext:
    """``step_context_lock``, raising why there is none: no module, no such step, not enrolled."""
    context = step_context_lock(learner_id=learner_id, module_slug=module_slug, number=number)
    if context is None:
        raise step_unavailable(module_slug=module_slug, number=number, enroll_first=True)
    return context


def progress_write(progress: StepProgress, *, now: datetime.datetime) -> None:
    progress.updated_at = now
    progress.save(update_fields=PROGRESS_FIELDS)
