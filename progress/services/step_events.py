"""Progress events of a learner online: opening, viewing a section, completing, reopening."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Collection

from django.db import transaction
from django.utils import timezone

from progress.event_rules import (
    EventKind,
    EventResult,
    completion_apply,
    event_apply,
    missing_sections,
)
from progress.models import StepProgress
from progress.services.step_context import (
    StepContext,
    progress_write,
    step_context_lock_or_raise,
)
from reviews import api as reviews_api


@dataclasses.dataclass(frozen=True)
class StepEventOutcome:
    """The step's progress after an event, and what the event did."""

    progress: StepProgress
    result: str
    section_kinds: tuple[str, ...]

    @property
    def missing_sections(self) -> list[str]:
        return missing_sections(self.progress, self.section_kinds)


def step_event_record(
    *,
    learner_id: int,
    module_slug: str,
    number: int,
    kind: str,
    section: str = "",
    at: datetime.datetime | None = None,
) -> StepEventOutcome:
    """Record a progress event of an enrolled learner; repeating it changes nothing. Two
    queries (one when nothing changes), plus the review cards of a completed step."""
    at = at or timezone.now()
    with transaction.atomic():
        context = step_context_lock_or_raise(
            learner_id=learner_id, module_slug=module_slug, number=number
        )
        result, dirty = event_apply(
            context.progress,
            kind=kind,
            section=section,
            at=at,
            section_kinds=context.section_kinds,
        )
        return _outcome_write(
            context,
            learner_id=learner_id,
            result=result,
            dirty=dirty,
            completed=kind == EventKind.COMPLETED,
            at=at,
        )


def step_complete(
    *,
    learner_id: int,
    module_slug: str,
    number: int,
    sections_shown: Collection[str],
    at: datetime.datetime | None = None,
) -> StepEventOutcome:
    """Complete a step from a page that showed ``sections_shown``, which count as viewed
    (``completion_apply``); costs as ``step_event_record``, repeating it changes nothing."""
    at = at or timezone.now()
    with transaction.atomic():
        context = step_context_lock_or_raise(
            learner_id=learner_id, module_slug=module_slug, number=number
        )
        result, dirty = completion_apply(
            context.progress,
            sections_shown=sections_shown,
            at=at,
            section_kinds=context.section_kinds,
        )
        return _outcome_write(
            context, learner_id=learner_id, result=result, dirty=dirty, completed=True, at=at
        )


def _outcome_write(
    context: StepContext,
    *,
    learner_id: int,
    result: str,
    dirty: bool,
    completed: bool,
    at: datetime.datetime,
) -> StepEventOutcome:
    """Write the changed row; an applied completion gets its review cards in the transaction."""
    if dirty:
        progress_write(context.progress, now=at)
    if completed and result == EventResult.APPLIED:
        reviews_api.cards_for_step_ensure(learner_id=learner_id, step_id=context.step_id, at=at)
    return StepEventOutcome(
        progress=context.progress, result=result, section_kinds=context.section_kinds
    )
