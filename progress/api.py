"""What other apps may ask of the progress app. They never import progress.models directly."""

from __future__ import annotations

import math
from collections.abc import Iterable

from django.db.models import Count

from courses import api as courses_api
from courses.data import ModuleData
from lms.privacy import export_rows
from progress import selectors as _selectors
from progress.completion_rules import (
    DEFAULT_READING_TIME_SHARE,
    DEFAULT_RULE,
    reading_seconds,
)
from progress.completion_rules import (  # the web's module overview names it
    READING_WORDS_PER_MINUTE as READING_WORDS_PER_MINUTE,
)
from progress.data import CompletionRuleData
from progress.models import (
    Enrollment,
    ModuleCompletionRule,
    ProgressEvent,
    StepNote,
    StepProgress,
)
from progress.services import demo as _demo
from progress.services import step_events as _step_events
from progress.services.enrollment import enrollment_create as _enrollment_create
from progress.services.enrollment import enrollments_bulk_create as _enrollments_bulk_create


def reading_minutes(characters: int) -> int:
    """Minutes to read ``characters`` of text, as the completion rule estimates (at least 1),
    at READING_WORDS_PER_MINUTE."""
    return max(1, math.ceil(reading_seconds(characters) / 60))


def enrollment_exists(*, learner_id: int, module_id: int) -> bool:
    return Enrollment.objects.filter(learner_id=learner_id, module_id=module_id).exists()


def completed_step_ids(*, learner_id: int, module_id: int) -> frozenset[int]:
    """The ids of the module's active steps the learner has completed: one query."""
    return frozenset(
        StepProgress.objects.filter(
            courses_api.active_step_q("step__"),
            learner_id=learner_id,
            step__module_id=module_id,
            status=StepProgress.Status.COMPLETED,
        ).values_list("step_id", flat=True)
    )


def enrollment_lock(*, learner_id: int, module_slug: str) -> ModuleData | None:
    """Lock the learner's enrollment (inside a transaction) to serialise their writes per module,
    and return its module; None when not enrolled. One query."""
    row = (
        Enrollment.objects.select_for_update(of=("self",))
        .filter(learner_id=learner_id, module__slug=module_slug)
        .values("module_id", "module__slug", "module__title", "module__header")
        .first()
    )
    if row is None:
        return None
    return ModuleData(
        id=row["module_id"],
        slug=row["module__slug"],
        title=row["module__title"],
        header=row["module__header"],
    )


def learner_export(learner_id: int) -> dict:
    """Everything the progress app stores about the learner (data export): four queries."""
    step = ("step__module__slug", "step__number", "step__term")
    return {
        "enrollments": export_rows(
            Enrollment.objects.filter(learner_id=learner_id), context=("module__slug",)
        ),
        "step_progress": export_rows(
            StepProgress.objects.filter(learner_id=learner_id), context=step
        ),
        "progress_events": export_rows(
            ProgressEvent.objects.filter(learner_id=learner_id), context=step
        ),
        "notes": export_rows(StepNote.objects.filter(learner_id=learner_id), context=step),
    }


def learners_with_data_by_step(step_ids: Iterable[int]) -> dict[int, tuple[int, int]]:
    """Per step, how many learners have progress on it and how many wrote a note on it (what a
    re-import touches): two queries, steps without either left out."""
    ids = list(step_ids)
    if not ids:
        return {}
    progress = dict(
        StepProgress.objects.filter(step_id__in=ids)
        .exclude(status=StepProgress.Status.NOT_STARTED)
        .values("step_id")
        .annotate(learners=Count("learner_id", distinct=True))
        .values_list("step_id", "learners")
    )
    notes = dict(
        StepNote.objects.filter(step_id__in=ids)
        .values("step_id")
        .annotate(learners=Count("learner_id", distinct=True))
        .values_list("step_id", "learners")
    )
    return {
        step_id: (progress.get(step_id, 0), notes.get(step_id, 0))
        for step_id in set(progress) | set(notes)
    }


def completion_rule_get(*, module_id: int) -> CompletionRuleData:
    """What completing a step of the module asks (the defaults while none is set): one query."""
    row = (
        ModuleCompletionRule.objects.filter(module_id=module_id)
        .values("rule", "reading_time_share")
        .first()
    )
    if row is None:
        return CompletionRuleData(rule=DEFAULT_RULE, reading_time_share=DEFAULT_READING_TIME_SHARE)
    return CompletionRuleData(**row)


def completion_rule_set(*, module_id: int, rule: str, reading_time_share: int) -> None:
    """Set the module's step completion rule (the exam policy's admin form). Completions already
    recorded stay: the rule applies to the next completion."""
    ModuleCompletionRule.objects.update_or_create(
        module_id=module_id, defaults={"rule": rule, "reading_time_share": reading_time_share}
    )


# The (value, label) choices of the rule, for the admin form that edits it.
COMPLETION_RULE_CHOICES = ModuleCompletionRule.Rule.choices

# Enroll learners as an admin (the new count), the course dashboard's figures, the demo learner.
enrollments_bulk_create = _enrollments_bulk_create
module_learner_stats = _selectors.module_learner_stats
demo_progress_create = _demo.demo_progress_create
# A rated quick check is evidence for completing its step (quizzes' rating transaction).
quick_check_answer_record = _step_events.quick_check_answer_record


def platform_enrollment_ensure(*, learner_id: int, module_slug: str) -> bool:
    """Enroll a learner an LTI platform sends or lists (idempotent); True when new."""
    _enrollment, created = _enrollment_create(
        learner_id=learner_id, module_slug=module_slug, source=Enrollment.Source.PLATFORM
    )
    return created
