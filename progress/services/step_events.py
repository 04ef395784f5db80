"""Progress events of a learner online: opening a step, viewing a section, completing and
reopening it, completing it with the sections a page showed (the offline batch is
progress.services.sync)."""

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
    """Record a progress event of an enrolled learner; repeating it changes nothing.

    Two queries (lock and read, write; one when nothing changes), plus what
    reviews.api.cards_for_step_ensure needs when the event completes the step.
    """
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
    """Complete a step from a page that showed the learner ``sections_shown`` (the web reader
    shows every section above its button): those the step has count as viewed, then the step
    completes (progress.event_rules.completion_apply). Repeating it changes nothing.

    One transaction, as ``step_event_record``: lock and read, one write, plus what
    reviews.api.cards_for_step_ensure needs; the same however many sections the step has. A
    missing section the page did not show raises Conflict ``sections_not_viewed`` and nothing
    is written.
    """
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
    """Write the row an event changed; a completion that applied gets the step's review cards
    in the same transaction (a failure there rolls the completion back)."""
    if dirty:
        progress_write(context.progress, now=at)
    if completed and result == EventResult.APPLIED:
        reviews_api.cards_for_step_ensure(learner_id=learner_id, step_id=context.step_id, at=at)
    return StepEventOutcome(
        progress=context.progress, result=result, section_kinds=context.section_kinds
    )
