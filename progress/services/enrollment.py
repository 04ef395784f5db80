"""Enrolling and unenrolling learners. Enrolling creates a "not started" progress row for
every active step, so an event only ever updates a row.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from courses import api as courses_api
from lms.errors import NotEnrolled
from progress.models import Enrollment, StepProgress


def _module_id(slug: str) -> int:
    return courses_api.module_by_slug(slug).id


def _rows_create(*, learner_ids: Iterable[int], module_id: int) -> None:
    """A "not started" progress row per learner and active step (existing rows stay)."""
    now = timezone.now()
    step_ids = [step.id for step in courses_api.module_steps(module_id)]
    StepProgress.objects.bulk_create(
        [
            StepProgress(learner_id=learner_id, step_id=step_id, updated_at=now)
            for learner_id in learner_ids
            for step_id in step_ids
        ],
        ignore_conflicts=True,
    )


@transaction.atomic
def enrollment_create(
    *, learner_id: int, module_slug: str, source: str = Enrollment.Source.SELF
) -> tuple[Enrollment, bool]:
    """Enroll the learner (idempotent); returns the enrollment and whether it is new."""
    module_id = _module_id(module_slug)
    # get_or_create retries the read after a concurrent insert hits the unique constraint.
    enrollment, created = Enrollment.objects.select_related("module").get_or_create(
        learner_id=learner_id,
        module_id=module_id,
        defaults={"source": source, "enrolled_at": timezone.now()},
    )
    if created:
        _rows_create(learner_ids=[learner_id], module_id=module_id)
    return enrollment, created


@transaction.atomic
def enrollment_delete(*, learner_id: int, module_slug: str) -> None:
    """Unenroll. Progress and notes stay, so enrolling again picks up where the learner was."""
    deleted, _ = Enrollment.objects.filter(
        learner_id=learner_id, module_id=_module_id(module_slug)
    ).delete()
    if not deleted:
        raise NotEnrolled(module_slug)


@transaction.atomic
def enrollments_bulk_create(
    *, learner_ids: Iterable[int], module_id: int, source: str = Enrollment.Source.ADMIN
) -> int:
    """Enroll many learners at once (admin); returns how many enrollments are new."""
    wanted = set(learner_ids)
    existing = set(
        Enrollment.objects.filter(module_id=module_id, learner_id__in=wanted).values_list(
            "learner_id", flat=True
        )
    )
    new = sorted(wanted - existing)
    now = timezone.now()
    # ignore_conflicts: a learner who enrolls himself meanwhile keeps his own enrollment.
    Enrollment.objects.bulk_create(
        [
            Enrollment(learner_id=learner_id, module_id=module_id, source=source, enrolled_at=now)
            for learner_id in new
        ],
        ignore_conflicts=True,
    )
    _rows_create(learner_ids=new, module_id=module_id)
    return len(new)
