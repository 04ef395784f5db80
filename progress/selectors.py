"""Reads of learner data, each in a fixed number of queries: enrollments, a module's progress,
the outline status, notes. Percentages count active steps only.
"""

from __future__ import annotations

import dataclasses
import datetime
import statistics
from collections.abc import Sequence
from typing import Any

from django.db.models import (
    CharField,
    Count,
    DateTimeField,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce

from courses import api as courses_api
from lms.errors import NotEnrolled
from progress.completion_rules import (
    DEFAULT_READING_TIME_SHARE,
    DEFAULT_RULE,
    CompletionRequirement,
    MissingEvidence,
    completion_missing,
)
from progress.data import ModuleLearnerStats, StepCompletions
from progress.models import Enrollment, ModuleCompletionRule, StepNote, StepProgress
from progress.note_versions import notes_etag

_COMPLETED = StepProgress.Status.COMPLETED
_IN_PROGRESS = StepProgress.Status.IN_PROGRESS
_NOT_STARTED = StepProgress.Status.NOT_STARTED


def percent(completed: int, total: int) -> int:
    """Whole percent, rounded down: 31 of 32 steps is 96 %, never a premature 100 %."""
    return completed * 100 // total if total else 0


def step_unavailable(*, module_slug: str, number: int, enroll_first: bool = False) -> NotEnrolled:
    """Raises ModuleNotFound or StepNotFound, else returns NotEnrolled to raise."""
    courses_api.module_by_slug(module_slug)
    courses_api.step_by_number(module_slug, number)
    return NotEnrolled(module_slug, enroll_first=enroll_first)


def with_completion_requirement(rows: QuerySet[StepProgress]) -> QuerySet[StepProgress]:
    """Annotate progress rows with what completing their step asks (``requirement_of``): the
    step's section kinds, rated quick checks, text length and its module's rule, in the same
    statement."""
    rule = ModuleCompletionRule.objects.filter(module_id=OuterRef("step__module_id"))
    return rows.annotate(
        section_kinds=courses_api.section_kinds("step_id"),
        quick_check_ids=courses_api.rated_quick_check_ids("step_id"),
        body_chars=courses_api.body_chars("step_id"),
        completion_rule=Coalesce(
            Subquery(rule.values("rule")), Value(DEFAULT_RULE), output_field=CharField()
        ),
        reading_time_share=Coalesce(
            Subquery(rule.values("reading_time_share")),
            Value(DEFAULT_READING_TIME_SHARE),
            output_field=IntegerField(),
        ),
    )


def requirement_of(row: StepProgress) -> CompletionRequirement:
    """The requirement of a row read through ``with_completion_requirement``."""
    return CompletionRequirement.for_step(
        rule=row.completion_rule,
        reading_time_share=row.reading_time_share,
        section_kinds=row.section_kinds,
        quick_check_ids=row.quick_check_ids,
        body_chars=row.body_chars,
    )


def enrollments_with_progress(queryset: QuerySet[Enrollment]) -> QuerySet[Enrollment]:
    """Annotate ``total_steps``, ``completed_steps`` (current steps) and ``last_activity_at``."""
    completed = (
        StepProgress.objects.filter(
            courses_api.active_step_q("step__"),
            learner_id=OuterRef("learner_id"),
            step__module_id=OuterRef("module_id"),
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
        total_steps=Coalesce(
            courses_api.active_step_count(OuterRef("module_id")),
            Value(0),
            output_field=IntegerField(),
        ),
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
        courses_api.module_by_slug(module_slug)  # ModuleNotFound before NotEnrolled
        raise NotEnrolled(module_slug)
    return enrollment


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
    # The step's section kinds not in ``sections_viewed``, in document order.
    missing_sections: tuple[str, ...]


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

    @property
    def completed_at(self) -> list[datetime.datetime]:
        """When each step was completed, in step order (a chart of the module's progress)."""
        return [step.completed_at for step in self.steps if step.completed_at is not None]


def resume_step(
    steps: Sequence[tuple[int, str, datetime.datetime | None]],
) -> int | None:
    """The id of the step to resume, from (id, status, last event time) in step order: the
    first step not completed from the one worked on last, wrapping round; None when all are."""
    worked_on = [(at, index) for index, (_, _, at) in enumerate(steps) if at is not None]
    start = max(worked_on)[1] if worked_on else 0
    for step_id, status, _ in [*steps[start:], *steps[:start]]:
        if status != _COMPLETED:
            return step_id
    return None


# A step the learner has no progress row on, as the progress reads show it.
_NO_PROGRESS = {
    "status": _NOT_STARTED,
    "sections_viewed": [],
    "last_section": "",
    "first_opened_at": None,
    "completed_at": None,
    "last_event_at": None,
}


def _enrolled_at(*, learner_id: int, module_id: int) -> datetime.datetime | None:
    return (
        Enrollment.objects.filter(learner_id=learner_id, module_id=module_id)
        .values_list("enrolled_at", flat=True)
        .first()
    )


def _progress_by_step(*, learner_id: int, module_id: int | None = None) -> dict[int, dict]:
    """The learner's progress rows by step id (of one module, retired steps too, or of all)."""
    rows = StepProgress.objects.filter(learner_id=learner_id)
    if module_id is not None:
        rows = rows.filter(step__module_id=module_id)
    return {row["step_id"]: row for row in rows.values("step_id", *_NO_PROGRESS)}


def module_progress_get(*, learner_id: int, module_slug: str) -> ModuleProgress:
    """The learner's progress in a module; retired steps' rows count as activity."""
    outline = courses_api.module_outline(module_slug)
    enrolled_at = _enrolled_at(learner_id=learner_id, module_id=outline.id)
    if enrolled_at is None:
        raise NotEnrolled(module_slug)
    rows = _progress_by_step(learner_id=learner_id, module_id=outline.id)
    return _module_progress(outline, enrolled_at=enrolled_at, rows=rows)


def _module_progress(outline, *, enrolled_at, rows: dict[int, dict]) -> ModuleProgress:
    steps = []
    for step in outline.active_steps:
        row = rows.get(step.id, _NO_PROGRESS)
        kinds = step.section_kinds
        # Only kinds the step still has count: a re-import may have dropped a section.
        viewed = row["sections_viewed"] or ()
        steps.append(
            StepStatus(
                id=step.id,
                number=step.number,
                slug=step.slug,
                term=step.term,
                status=row["status"],
                section_kinds=kinds,
                sections_viewed=tuple(kind for kind in kinds if kind in viewed),
                last_section=row["last_section"],
                first_opened_at=row["first_opened_at"],
                completed_at=row["completed_at"],
                missing_sections=tuple(kind for kind in kinds if kind not in viewed),
            )
        )
    resume_id = resume_step(
        [(s.id, s.status, rows.get(s.id, _NO_PROGRESS)["last_event_at"]) for s in steps]
    )
    resume = next((step for step in steps if step.id == resume_id), None)
    next_step = None
    if resume is not None:
        section = resume.last_section if resume.last_section in resume.section_kinds else ""
        section = section or next(iter(resume.missing_sections or resume.section_kinds), "")
        next_step = ResumePoint(
            number=resume.number, slug=resume.slug, term=resume.term, section=section
        )
    module_step_ids = set(outline.step_ids)
    return ModuleProgress(
        module_slug=outline.slug,
        module_title=outline.title,
        enrolled_at=enrolled_at,
        last_activity_at=max(
            (
                row["last_event_at"]
                for step_id, row in rows.items()
                if step_id in module_step_ids and row["last_event_at"] is not None
            ),
            default=None,
        ),
        steps=steps,
        next_step=next_step,
    )


@dataclasses.dataclass(frozen=True)
class LearnerProgress:
    """Every enrollment and progress row of the learner (two queries), for pages that show each
    enrolled module's progress."""

    module_ids: list[int]  # newest enrollment first
    enrolled_at: dict[int, datetime.datetime]
    rows: dict[int, dict]  # progress rows by step id

    def module(self, module_slug: str) -> ModuleProgress:
        """As ``module_progress_get`` (NotEnrolled for a module not enrolled in)."""
        outline = courses_api.module_outline(module_slug)
        if outline.id not in self.enrolled_at:
            raise NotEnrolled(module_slug)
        return _module_progress(outline, enrolled_at=self.enrolled_at[outline.id], rows=self.rows)

    # The statistics page's name for it.
    completion = module


def learner_progress_get(*, learner_id: int) -> LearnerProgress:
    """The learner's enrollments (newest first) and all their progress rows."""
    enrollments = (
        Enrollment.objects.filter(learner_id=learner_id)
        .order_by("-enrolled_at", "-id")
        .values_list("module_id", "enrolled_at")
    )
    return LearnerProgress(
        module_ids=[module_id for module_id, _ in enrollments],
        enrolled_at=dict(enrollments),
        rows=_progress_by_step(learner_id=learner_id),
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
    # The section kinds read per step id (steps without a progress row are absent).
    sections_viewed_by_step: dict[int, tuple[str, ...]]

    @property
    def percent_complete(self) -> int:
        return percent(self.completed_steps, self.total_steps)


def outline_status_get(
    *, learner_id: int, module_slug: str, module_id: int, steps: Sequence[Any]
) -> OutlineStatus | None:
    """The learner's status on these active, ordered steps; None when not enrolled: 2 queries."""
    enrolled_at = _enrolled_at(learner_id=learner_id, module_id=module_id)
    if enrolled_at is None:
        return None
    rows = _progress_by_step(learner_id=learner_id, module_id=module_id)
    status_by_step = {step.id: rows.get(step.id, _NO_PROGRESS)["status"] for step in steps}
    resume_id = resume_step(
        [
            (step.id, status_by_step[step.id], rows.get(step.id, _NO_PROGRESS)["last_event_at"])
            for step in steps
        ]
    )
    return OutlineStatus(
        enrolled_at=enrolled_at,
        last_activity_at=max(
            filter(None, (row["last_event_at"] for row in rows.values())), default=None
        ),
        status_by_step=status_by_step,
        total_steps=len(steps),
        completed_steps=sum(1 for s in status_by_step.values() if s == _COMPLETED),
        next_step_number=next((s.number for s in steps if s.id == resume_id), None),
        sections_viewed_by_step={
            step_id: tuple(row["sections_viewed"] or ()) for step_id, row in rows.items()
        },
    )


@dataclasses.dataclass(frozen=True)
class StepNotes:
    module_slug: str
    number: int
    notes: dict[str, StepNote]

    @property
    def updated_at(self) -> datetime.datetime | None:
        return max((note.updated_at for note in self.notes.values()), default=None)

    @property
    def etag(self) -> str:
        texts = {prompt: note.text for prompt, note in self.notes.items()}
        return notes_etag(texts, self.updated_at)


def enrolled_step_id(*, learner_id: int, module_slug: str, number: int) -> int | None:
    """The id of the active step ``number`` of a module the learner is enrolled in, else None."""
    return (
        Enrollment.objects.filter(
            courses_api.active_step_q("module__steps__"),
            learner_id=learner_id,
            module__slug=module_slug,
            module__steps__number=number,
        )
        .values_list("module__steps__id", flat=True)
        .first()
    )


def step_notes_get(*, learner_id: int, module_slug: str, number: int) -> StepNotes:
    """The learner's notes on a step: 2 queries (step with enrollment, notes)."""
    step_id = enrolled_step_id(learner_id=learner_id, module_slug=module_slug, number=number)
    if step_id is None:
        raise step_unavailable(module_slug=module_slug, number=number)
    notes = {
        note.prompt: note
        for note in StepNote.objects.filter(learner_id=learner_id, step_id=step_id)
    }
    return StepNotes(module_slug=module_slug, number=number, notes=notes)


# The notes page shows at most this many notes (newest first within each step's order).
NOTES_PAGE_MAX = 500


@dataclasses.dataclass(frozen=True)
class NoteEntry:
    """One of the learner's notes as the notes page lists it, with its module and step."""

    module_slug: str
    module_title: str
    step_number: int
    step_term: str
    prompt: str
    prompt_label: str
    text: str
    updated_at: datetime.datetime


def learner_notes_list(*, learner_id: int, search: str = "") -> list[NoteEntry]:
    """All the learner's notes by module and step, those whose text or step term contains
    ``search`` (case-insensitive) when given: one query."""
    notes = StepNote.objects.filter(learner_id=learner_id)
    search = search.strip()
    if search:
        notes = notes.filter(
            Q(text__icontains=search)
            | Q(step__term__icontains=search)
            | Q(step__module__title__icontains=search)
        )
    rows = notes.order_by("step__module__title", "step__number", "prompt").values(
        "prompt",
        "text",
        "updated_at",
        "step__number",
        "step__term",
        "step__module__slug",
        "step__module__title",
    )[:NOTES_PAGE_MAX]
    labels = dict(StepNote.Prompt.choices)
    return [
        NoteEntry(
            module_slug=row["step__module__slug"],
            module_title=row["step__module__title"],
            step_number=row["step__number"],
            step_term=row["step__term"],
            prompt=row["prompt"],
            prompt_label=labels.get(row["prompt"], row["prompt"]),
            text=row["text"],
            updated_at=row["updated_at"],
        )
        for row in rows
    ]


def module_learner_stats(*, module_id: int, now: datetime.datetime) -> ModuleLearnerStats:
    """Enrolled and active learners, the completion funnel and the median days to complete the
    module: 4 queries plus courses' steps."""
    steps = courses_api.module_steps(module_id)
    counts = Enrollment.objects.filter(module_id=module_id).aggregate(enrolled=Count("id"))
    rows = StepProgress.objects.filter(step__module_id=module_id)
    active = rows.aggregate(
        active_7=Count(
            "learner_id",
            distinct=True,
            filter=Q(last_event_at__gte=now - datetime.timedelta(days=7)),
        ),
        active_30=Count(
            "learner_id",
            distinct=True,
            filter=Q(last_event_at__gte=now - datetime.timedelta(days=30)),
        ),
    )
    completed = rows.filter(courses_api.active_step_q("step__"), status=_COMPLETED)
    per_step = dict(
        completed.order_by().values("step_id").annotate(n=Count("id")).values_list("step_id", "n")
    )
    enrolled_at = Enrollment.objects.filter(
        learner_id=OuterRef("learner_id"), module_id=module_id
    ).values("enrolled_at")[:1]
    finishers = (
        completed.order_by()
        .values("learner_id")
        .annotate(n=Count("id"), last=Max("completed_at"), enrolled=Subquery(enrolled_at))
        .filter(n=len(steps))
        .values_list("last", "enrolled")
    )
    days = sorted(
        max((last - enrolled).total_seconds(), 0) / 86400
        for last, enrolled in finishers
        if last is not None and enrolled is not None
    )
    return ModuleLearnerStats(
        enrolled=counts["enrolled"],
        active_7_days=active["active_7"],
        active_30_days=active["active_30"],
        funnel=tuple(
            StepCompletions(number=step.number, term=step.term, learners=per_step.get(step.id, 0))
            for step in steps
        ),
        completed_all=len(days),
        median_days_to_completion=statistics.median(days) if days else None,
    )


@dataclasses.dataclass(frozen=True)
class StepReaderState:
    """What the step page shows of an enrolled learner: status, sections read, notes by prompt,
    and what completing the step still needs (empty before the learner's first event)."""

    status: str
    sections_viewed: tuple[str, ...]
    notes: dict[str, str]
    missing: MissingEvidence = dataclasses.field(default_factory=MissingEvidence)


def step_reader_state(
    *, learner_id: int, module_id: int, step_id: int, now: datetime.datetime
) -> StepReaderState | None:
    """The learner's state on one step for its page, None when not enrolled: three queries."""
    if not Enrollment.objects.filter(learner_id=learner_id, module_id=module_id).exists():
        return None
    row = with_completion_requirement(
        StepProgress.objects.filter(learner_id=learner_id, step_id=step_id)
    ).first()
    notes = StepNote.objects.filter(learner_id=learner_id, step_id=step_id)
    if row is None:
        return StepReaderState(
            status=_NOT_STARTED, sections_viewed=(), notes=dict(notes.values_list("prompt", "text"))
        )
    return StepReaderState(
        status=row.status,
        sections_viewed=tuple(row.sections_viewed or ()),
        notes=dict(notes.values_list("prompt", "text")),
        missing=completion_missing(
            requirement_of(row),
            sections_viewed=row.sections_viewed,
            quick_checks_answered=row.quick_checks_answered,
            first_opened_at=row.first_opened_at,
            at=now,
        ),
    )
