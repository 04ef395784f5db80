"""Reads of learner data: enrollments, a module's progress, the outline status, notes.

Each function uses a fixed number of queries, whatever the number of steps or progress rows.
Percentages count the module's current (active) steps only: progress on a step that a re-import
retired is kept but no longer counts.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence

from django.db import connection
from django.db.models import (
    Count,
    DateTimeField,
    Exists,
    FilteredRelation,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce

from courses.models import Enrollment, Module, Section, Step, StepNote, StepProgress
from lms.content_cache import ContentCache
from lms.errors import NotFound
from lms.sql import aware, json_value

_ACTIVE = Step.Status.ACTIVE
_COMPLETED = StepProgress.Status.COMPLETED
_IN_PROGRESS = StepProgress.Status.IN_PROGRESS
_NOT_STARTED = StepProgress.Status.NOT_STARTED


def percent(completed: int, total: int) -> int:
    """Whole percent, rounded down: 31 of 32 steps is 96 %, never a premature 100 %."""
    return completed * 100 // total if total else 0


def _not_enrolled(module_slug: str) -> NotFound:
    if not Module.objects.filter(slug=module_slug).exists():
        return NotFound(f"There is no module '{module_slug}'.", code="module_not_found")
    return NotFound(f"You are not enrolled in '{module_slug}'.", code="not_enrolled")


# --- enrollments --------------------------------------------------------------------------


def enrollments_with_progress(queryset: QuerySet[Enrollment]) -> QuerySet[Enrollment]:
    """Annotate ``total_steps``, ``completed_steps`` (current steps) and ``last_activity_at``."""
    total = (
        Step.objects.filter(module_id=OuterRef("module_id"), status=_ACTIVE)
        .order_by()
        .values("module_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    completed = (
        StepProgress.objects.filter(
            learner_id=OuterRef("learner_id"),
            step__module_id=OuterRef("module_id"),
            step__status=_ACTIVE,
            status=_COMPLETED,
        )
        .order_by()
        .values("learner_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    last_activity = (
        StepProgress.objects.filter(
            learner_id=OuterRef("learner_id"), step__module_id=OuterRef("module_id")
        )
        .order_by()
        .values("learner_id")
        .annotate(last=Max("last_event_at"))
        .values("last")
    )
    return queryset.annotate(
        total_steps=Coalesce(Subquery(total), Value(0), output_field=IntegerField()),
        completed_steps=Coalesce(Subquery(completed), Value(0), output_field=IntegerField()),
        last_activity_at=Subquery(last_activity, output_field=DateTimeField()),
    )


def enrollment_list(*, learner_id: int) -> QuerySet[Enrollment]:
    """The learner's enrollments with their module and progress counts, newest first."""
    return enrollments_with_progress(
        Enrollment.objects.filter(learner_id=learner_id).select_related("module")
    ).order_by("-enrolled_at", "-id")


def enrollment_get(*, learner_id: int, module_slug: str) -> Enrollment:
    enrollment = (
        enrollments_with_progress(
            Enrollment.objects.filter(learner_id=learner_id, module__slug=module_slug)
        )
        .select_related("module")
        .first()
    )
    if enrollment is None:
        raise _not_enrolled(module_slug)
    return enrollment


# --- module progress ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class StepStatus:
    """One current step and where the learner stands on it."""

    id: int
    number: int
    slug: str
    term: str
    status: str
    section_kinds: tuple[str, ...]
    sections_viewed: tuple[str, ...]
    last_section: str
    first_opened_at: datetime.datetime | None
    completed_at: datetime.datetime | None

    @property
    def missing_sections(self) -> list[str]:
        return [kind for kind in self.section_kinds if kind not in self.sections_viewed]


@dataclasses.dataclass(frozen=True)
class ResumePoint:
    """Where to continue: a step and the section to open in it."""

    number: int
    slug: str
    term: str
    section: str


@dataclasses.dataclass(frozen=True)
class ModuleProgress:
    module_slug: str
    module_title: str
    enrolled_at: datetime.datetime
    last_activity_at: datetime.datetime | None
    steps: list[StepStatus]
    next_step: ResumePoint | None

    @property
    def total_steps(self) -> int:
        return len(self.steps)

    def _count(self, status: str) -> int:
        return sum(1 for step in self.steps if step.status == status)

    @property
    def completed_steps(self) -> int:
        return self._count(_COMPLETED)

    @property
    def in_progress_steps(self) -> int:
        return self._count(_IN_PROGRESS)

    @property
    def not_started_steps(self) -> int:
        return self._count(_NOT_STARTED)

    @property
    def percent_complete(self) -> int:
        return percent(self.completed_steps, self.total_steps)


def resume_step(
    steps: Sequence[tuple[int, str, datetime.datetime | None]],
) -> int | None:
    """The id of the step to resume, from (id, status, last event time) in step order.

    The step the learner worked on last while it is not completed; else the first step after
    it that is not completed, wrapping round to the start; None when every step is completed.
    """
    worked_on = [(at, index) for index, (_, _, at) in enumerate(steps) if at is not None]
    start = max(worked_on)[1] if worked_on else 0
    for step_id, status, _ in [*steps[start:], *steps[:start]]:
        if status != _COMPLETED:
            return step_id
    return None


# Each active step's section kinds in order, per module outline: keyed by the (id, content hash)
# of every active step in order, which changes whenever a step's number, term or sections change
# or a step is retired or added (lms.content_cache: never stale, nothing to invalidate).
_outline_sections = ContentCache(name="module outline sections", max_entries=200)

# The progress page's one read, in plain SQL (portable: PostgreSQL and SQLite): every step of the
# module with the learner's progress row on it, only if the learner is enrolled. Building the
# same query with the ORM cost more CPU than everything else the request does
# (bench/results/latest.md, module progress). Retired steps come too: their rows still count as
# activity in the module.
_MODULE_PROGRESS_SQL = """
SELECT e.enrolled_at, e.module_id, m.title,
       s.id, s.status, s.number, s.slug, s.term, s.content_hash,
       p.status, p.sections_viewed, p.last_section, p.first_opened_at, p.completed_at,
       p.last_event_at
FROM courses_enrollment e
JOIN courses_module m ON m.id = e.module_id
LEFT JOIN courses_step s ON s.module_id = e.module_id
LEFT JOIN courses_stepprogress p ON p.step_id = s.id AND p.learner_id = e.learner_id
WHERE e.learner_id = %s AND m.slug = %s
ORDER BY s.number, s.id
"""


def _section_kinds(key: tuple, step_ids: list[int]) -> dict[int, tuple[str, ...]]:
    """Section kinds per step from the process's cache, or one query the first time."""
    kinds_by_step = _outline_sections.get(key)
    if kinds_by_step is None:
        collected: dict[int, list[str]] = {step_id: [] for step_id in step_ids}
        for step_id, kind in (
            Section.objects.filter(step_id__in=step_ids)
            .order_by("step_id", "position")
            .values_list("step_id", "kind")
        ):
            collected[step_id].append(kind)
        kinds_by_step = {step_id: tuple(kinds) for step_id, kinds in collected.items()}
        _outline_sections.put(key, kinds_by_step)
    return kinds_by_step


def module_progress_get(*, learner_id: int, module_slug: str) -> ModuleProgress:
    """The learner's progress in a module: 1 query, plus the sections once per process and
    version of the module's outline."""
    with connection.cursor() as cursor:
        cursor.execute(_MODULE_PROGRESS_SQL, [learner_id, module_slug])
        rows = cursor.fetchall()
    if not rows:
        raise _not_enrolled(module_slug)
    enrolled_at, module_id, module_title = rows[0][:3]
    active = [row for row in rows if row[4] == _ACTIVE]
    key = (module_id, tuple((row[3], row[8]) for row in active))
    kinds_by_step = _section_kinds(key, [row[3] for row in active])
    steps = []
    last_event_by_step = {}
    for row in active:
        step_id, _, number, slug, term, _ = row[3:9]
        kinds = kinds_by_step[step_id]
        started = row[9] is not None
        if started:
            viewed = json_value(row[10])
            last_event_by_step[step_id] = aware(row[14])
        steps.append(
            StepStatus(
                id=step_id,
                number=number,
                slug=slug,
                term=term,
                status=row[9] if started else _NOT_STARTED,
                section_kinds=kinds,
                # Only kinds the step still has: a re-import may have dropped a section.
                sections_viewed=tuple(kind for kind in kinds if kind in viewed) if started else (),
                last_section=row[11] if started else "",
                first_opened_at=aware(row[12]),
                completed_at=aware(row[13]),
            )
        )
    resume_id = resume_step([(s.id, s.status, last_event_by_step.get(s.id)) for s in steps])
    resume = next((step for step in steps if step.id == resume_id), None)
    next_step = None
    if resume is not None:
        section = resume.last_section if resume.last_section in resume.section_kinds else ""
        section = section or next(iter(resume.missing_sections or resume.section_kinds), "")
        next_step = ResumePoint(
            number=resume.number, slug=resume.slug, term=resume.term, section=section
        )
    return ModuleProgress(
        module_slug=module_slug,
        module_title=module_title,
        enrolled_at=aware(enrolled_at),
        last_activity_at=max(filter(None, (aware(row[14]) for row in rows)), default=None),
        steps=steps,
        next_step=next_step,
    )


@dataclasses.dataclass(frozen=True)
class OutlineStatus:
    """An enrolled learner's status per outline step, for the module detail."""

    enrolled_at: datetime.datetime
    last_activity_at: datetime.datetime | None
    status_by_step: dict[int, str]
    total_steps: int
    completed_steps: int
    next_step_number: int | None

    @property
    def percent_complete(self) -> int:
        return percent(self.completed_steps, self.total_steps)


def outline_status_get(
    *, learner_id: int, module_id: int, steps: Sequence[Step]
) -> OutlineStatus | None:
    """Status of the given (active, ordered) steps for the learner; None when not enrolled.

    One query: the enrollment LEFT JOIN the learner's progress rows of the module's steps (one
    row per step of the module, so the enrollment shows even without any progress).
    """
    joined = list(
        Enrollment.objects.filter(learner_id=learner_id, module_id=module_id)
        .annotate(
            mine=FilteredRelation(
                "module__steps__progress",
                condition=Q(module__steps__progress__learner_id=learner_id),
            )
        )
        .values_list("enrolled_at", "mine__step_id", "mine__status", "mine__last_event_at")
    )
    if not joined:
        return None
    enrolled_at = joined[0][0]
    rows = {
        step_id: (status, last_event_at)
        for _, step_id, status, last_event_at in joined
        if step_id is not None
    }
    status_by_step = {step.pk: rows.get(step.pk, (_NOT_STARTED,))[0] for step in steps}
    resume_id = resume_step(
        [(step.pk, status_by_step[step.pk], rows.get(step.pk, (0, None))[1]) for step in steps]
    )
    return OutlineStatus(
        enrolled_at=enrolled_at,
        last_activity_at=max(filter(None, (at for _, at in rows.values())), default=None),
        status_by_step=status_by_step,
        total_steps=len(steps),
        completed_steps=sum(1 for s in status_by_step.values() if s == _COMPLETED),
        next_step_number=next((s.number for s in steps if s.pk == resume_id), None),
    )


# --- notes --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class StepNotes:
    module_slug: str
    number: int
    notes: dict[str, StepNote]

    @property
    def updated_at(self) -> datetime.datetime | None:
        return max((note.updated_at for note in self.notes.values()), default=None)


def step_notes_get(*, learner_id: int, module_slug: str, number: int) -> StepNotes:
    """The learner's notes on a step: 2 queries (step with enrollment, notes)."""
    row = (
        Step.objects.filter(module__slug=module_slug, number=number, status=_ACTIVE)
        .annotate(
            enrolled=Exists(
                Enrollment.objects.filter(learner_id=learner_id, module_id=OuterRef("module_id"))
            )
        )
        .values_list("id", "enrolled")
        .first()
    )
    if row is None:
        if not Module.objects.filter(slug=module_slug).exists():
            raise NotFound(f"There is no module '{module_slug}'.", code="module_not_found")
        raise NotFound(f"Module '{module_slug}' has no step {number}.", code="step_not_found")
    step_id, enrolled = row
    if not enrolled:
        raise NotFound(f"You are not enrolled in '{module_slug}'.", code="not_enrolled")
    notes = {
        note.prompt: note
        for note in StepNote.objects.filter(learner_id=learner_id, step_id=step_id)
    }
    return StepNotes(module_slug=module_slug, number=number, notes=notes)
