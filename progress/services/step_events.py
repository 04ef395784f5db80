"""Progress events of a learner online: opening, viewing a section, answering a quick check,
completing (only with the evidence progress.completion_rules asks for), reopening."""

from __future__ import annotations

import dataclasses
import datetime

from django.db import transaction
from django.utils import timezone

from progress.completion_rules import CompletionRequirement
from progress.event_rules import (
    COMPLETION_REFUSED,
    EventKind,
    EventResult,
    event_apply,
    missing_sections,
    quick_check_answer_apply,
)
from progress.models import StepProgress
from progress.services.step_context import (
    StepContext,
    progress_write,
    step_context_lock_or_raise,
)
from reviews import api as reviews_api

# The Conflict code of a completion without its evidence, for the web page that catches it.
__all__ = ["COMPLETION_REFUSED", "quick_check_answer_record", "step_event_record"]


@dataclasses.dataclass(frozen=True)
class StepEventOutcome:
    """The step's progress after an event, and what the event did."""

    progress: StepProgress
    result: str
    section_kinds: tuple[str, ...]
    requirement: CompletionRequirement

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
            requirement=context.requirement,
        )
        return _outcome_write(
            context,
            learner_id=learner_id,
            result=result,
            dirty=dirty,
            completed=kind == EventKind.COMPLETED,
            at=at,
        )


def quick_check_answer_record(
    *, learner_id: int, module_slug: str, number: int, quick_check_id: int, at: datetime.datetime
) -> None:
    """Note that an enrolled learner answered a quick check on the step (called inside the
    quizzes app's rating transaction): evidence for completing the step. One or two queries."""
    with transaction.atomic():
        context = step_context_lock_or_raise(
            learner_id=learner_id, module_slug=module_slug, number=number
        )
        if quick_check_answer_apply(context.progress, quick_check_id=quick_check_id, at=at):
            progress_write(context.progress, now=at)


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
        progress=context.progress,
        result=result,
        section_kinds=context.section_kinds,
        requirement=context.requirement,
    )
