"""What other apps may ask of the progress app. They never import progress.models directly."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db.models import Count

from courses import api as courses_api
from courses.data import ModuleData
from lms.privacy import export_rows
from progress import selectors as _selectors
from progress.data import ModuleLearnerStats
from progress.models import Enrollment, ProgressEvent, StepNote, StepProgress
from progress.services import demo as _demo
from progress.services.enrollment import enrollments_bulk_create as _enrollments_bulk_create


def enrollment_exists(*, learner_id: int, module_id: int) -> bool:
    return Enrollment.objects.filter(learner_id=learner_id, module_id=module_id).exists()


def completed_step_ids(*, learner_id: int, module_id: int) -> frozenset[int]:
    """The ids of the module's active steps the learner has completed (one query); the exam's
    completion gate compares them with the module's outline."""
    return frozenset(
        StepProgress.objects.filter(
            courses_api.active_step_q("step__"),
            learner_id=learner_id,
            step__module_id=module_id,
            status=StepProgress.Status.COMPLETED,
        ).values_list("step_id", flat=True)
    )


def enrollment_lock(*, learner_id: int, module_slug: str) -> ModuleData | None:
    """Lock the learner's enrollment row (``SELECT … FOR UPDATE``) and return its module.

    Call it inside ``transaction.atomic``: it serialises a learner's writes per module (e.g. two
    exam starts at once). None when the learner is not enrolled or the module does not exist.
    One query.
    """
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


def enrollments_bulk_create(*, learner_ids: Iterable[int], module_id: int) -> int:
    """Enroll learners in a module as an admin; existing enrollments stay. Returns the new count."""
    return _enrollments_bulk_create(learner_ids=learner_ids, module_id=module_id)


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
    """Per step, how many learners have progress on it (opened or completed) and how many
    wrote a note on it: what a re-import that changes or retires the step touches. Two queries,
    steps without either left out."""
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


def module_learner_stats(*, module_id: int, now: datetime.datetime) -> ModuleLearnerStats:
    """Enrolled and active learners, the completion funnel, the median days to complete (the
    course dashboard, ``quizzes.admin_dashboard``); a fixed number of queries."""
    return _selectors.module_learner_stats(module_id=module_id, now=now)


def demo_progress_create(
    *, learner_id: int, module_slug: str, completed_days_ago: list[int], now
) -> int:
    """The demo learner's steps read and completed on past days (``manage.py demo_setup``)."""
    return _demo.demo_progress_create(
        learner_id=learner_id,
        module_slug=module_slug,
        completed_days_ago=completed_days_ago,
        now=now,
    )
