"""Writes of learner data in the courses app: enrollment, progress events, offline sync, notes.

Enrolling creates a "not started" progress row for every step, so an event only ever updates a
row: it locks that row (SELECT ... FOR UPDATE) in the same statement that reads it, and two
requests of the same learner (browser and phone at once) apply one after the other. PostgreSQL
re-reads a row it waited for, so the second one sees the first one's change. A step added to the
module later gets its row on the first event. Event times are UTC; an offline event carries its
client time, an online event the server's.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from courses.models import Enrollment, Module, ProgressEvent, Step, StepNote, StepProgress
from courses.models.progress import NOTE_MAX_LENGTH
from lms.errors import Conflict, DomainError, InvalidInput, NotFound
from reviews import api as reviews_api

EventKind = ProgressEvent.Kind
EventResult = ProgressEvent.Result

# The largest batch /progress/sync/ takes; a phone that was offline for weeks sends several.
SYNC_MAX_EVENTS = 500
CLIENT_EVENT_ID_MAX_LENGTH = 64
# A phone clock may run a little fast: within this a future timestamp is taken as "now";
# further ahead it is rejected, because it would pin "last activity" in the future.
CLOCK_SKEW_TOLERANCE = datetime.timedelta(minutes=5)
# Nothing was learned on Lernpfad before this; earlier timestamps are a broken client clock.
EARLIEST_EVENT_TIME = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)

_ACTIVE = Step.Status.ACTIVE
_COMPLETED = StepProgress.Status.COMPLETED
_IN_PROGRESS = StepProgress.Status.IN_PROGRESS
_NOT_STARTED = StepProgress.Status.NOT_STARTED


# --- enrollment ---------------------------------------------------------------------------


def _module_id(slug: str) -> int:
    module_id = Module.objects.filter(slug=slug).values_list("id", flat=True).first()
    if module_id is None:
        raise NotFound(f"There is no module '{slug}'.", code="module_not_found")
    return module_id


def _rows_create(*, learner_ids: Iterable[int], module_id: int) -> None:
    """A "not started" progress row per learner and active step (existing rows stay)."""
    now = timezone.now()
    step_ids = list(
        Step.objects.filter(module_id=module_id, status=_ACTIVE).values_list("id", flat=True)
    )
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
        raise NotFound(f"You are not enrolled in '{module_slug}'.", code="not_enrolled")


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


# --- applying one event to a progress row (plain Python) -----------------------------------


def _snapshot(progress: StepProgress) -> tuple:
    return (
        progress.status,
        progress.first_opened_at,
        progress.completed_at,
        tuple(progress.sections_viewed),
        progress.last_section,
        progress.status_changed_at,
    )


def missing_sections(progress: StepProgress | None, section_kinds: Sequence[str]) -> list[str]:
    """The step's section kinds the learner has not viewed yet, in document order."""
    viewed = set(progress.sections_viewed) if progress else set()
    return [kind for kind in section_kinds if kind not in viewed]


def _event_apply(
    progress: StepProgress,
    *,
    kind: str,
    section: str,
    at: datetime.datetime,
    section_kinds: Sequence[str],
) -> tuple[str, bool]:
    """Apply one event to a progress row in memory.

    Returns the EventResult value and whether the row must be written (an "opened" that
    changes no state still moves ``last_event_at``, the resume point). Raises
    InvalidInput/Conflict for an event that cannot apply; the row is then unchanged.
    """
    before = _snapshot(progress)
    # An offline event older than the step's newest one must not move the resume point back.
    newest = progress.last_event_at is None or at >= progress.last_event_at
    if kind == EventKind.COMPLETED:
        if progress.status == _COMPLETED:
            return EventResult.UNCHANGED, False
        if progress.status_changed_at and at < progress.status_changed_at:
            return EventResult.STALE, False
        missing = missing_sections(progress, section_kinds)
        if missing:
            raise Conflict(
                "The step is completed only after all its sections have been viewed.",
                code="sections_not_viewed",
                detail={"missing_sections": missing},
            )
        progress.status = _COMPLETED
        progress.completed_at = at
        progress.status_changed_at = at
    elif kind == EventKind.REOPENED:
        if progress.status != _COMPLETED:
            return EventResult.UNCHANGED, False
        if progress.status_changed_at and at < progress.status_changed_at:
            return EventResult.STALE, False
        progress.status = _IN_PROGRESS
        progress.completed_at = None
        progress.status_changed_at = at
    elif kind in (EventKind.OPENED, EventKind.SECTION_VIEWED):
        if kind == EventKind.SECTION_VIEWED:
            if section not in section_kinds:
                raise InvalidInput(
                    f"This step has no section '{section}'.",
                    code="unknown_section",
                    detail={"section": section, "sections": list(section_kinds)},
                )
            if section not in progress.sections_viewed:
                progress.sections_viewed = [*progress.sections_viewed, section]
            if newest:
                progress.last_section = section
        if progress.status == _NOT_STARTED:
            progress.status = _IN_PROGRESS
    else:
        raise InvalidInput(f"Unknown event '{kind}'.", code="unknown_event")
    if progress.first_opened_at is None or at < progress.first_opened_at:
        progress.first_opened_at = at
    result = EventResult.APPLIED if _snapshot(progress) != before else EventResult.UNCHANGED
    dirty = result == EventResult.APPLIED
    if (dirty or kind == EventKind.OPENED) and newest and progress.last_event_at != at:
        progress.last_event_at = at
        dirty = True
    return result, dirty


# --- online events ------------------------------------------------------------------------

# The columns of a progress row read together with the step (see _step_context_lock).
_PROGRESS_FIELDS = (
    "id",
    "status",
    "first_opened_at",
    "completed_at",
    "sections_viewed",
    "last_section",
    "status_changed_at",
    "last_event_at",
    "updated_at",
)


@dataclasses.dataclass(frozen=True)
class _StepContext:
    step_id: int
    section_kinds: tuple[str, ...]
    progress: StepProgress


def _progress_row_lock(*, learner_id: int, module_slug: str, number: int) -> list[tuple]:
    """The learner's progress row of the step, locked, with the step's section kinds.

    One statement: progress JOIN step LEFT JOIN sections, only while the learner is enrolled;
    one result row per section. FOR UPDATE OF the progress row only.
    """
    return list(
        StepProgress.objects.select_for_update(of=("self",))
        .filter(
            Exists(
                Enrollment.objects.filter(
                    learner_id=learner_id, module_id=OuterRef("step__module_id")
                )
            ),
            learner_id=learner_id,
            step__module__slug=module_slug,
            step__number=number,
            step__status=_ACTIVE,
        )
        .order_by("step__sections__position")
        .values_list(*_PROGRESS_FIELDS, "step_id", "step__sections__kind")
    )


def _step_context_lock(*, learner_id: int, module_slug: str, number: int) -> _StepContext | None:
    """Lock and read the learner's progress on a step; None when not enrolled or no such step.

    One statement when the row exists (enrolling created it); a step added to the module after
    the enrollment gets its row here (3 statements more, once).
    """
    rows = _progress_row_lock(learner_id=learner_id, module_slug=module_slug, number=number)
    if not rows:
        found = (
            Step.objects.filter(module__slug=module_slug, number=number, status=_ACTIVE)
            .annotate(
                enrolled=Exists(
                    Enrollment.objects.filter(
                        learner_id=learner_id, module_id=OuterRef("module_id")
                    )
                )
            )
            .values_list("id", "enrolled")
            .first()
        )
        if found is None or not found[1]:
            return None
        # ON CONFLICT DO NOTHING: a concurrent first event may be creating the same row.
        StepProgress.objects.bulk_create(
            [StepProgress(learner_id=learner_id, step_id=found[0], updated_at=timezone.now())],
            ignore_conflicts=True,
        )
        rows = _progress_row_lock(learner_id=learner_id, module_slug=module_slug, number=number)
    width = len(_PROGRESS_FIELDS)
    values = dict(zip(_PROGRESS_FIELDS, rows[0][:width], strict=True))
    values.update(learner_id=learner_id, step_id=rows[0][width])
    names = [field.attname for field in StepProgress._meta.concrete_fields]
    progress = StepProgress.from_db(
        StepProgress.objects.db, names, [values[name] for name in names]
    )
    return _StepContext(
        step_id=progress.step_id,
        section_kinds=tuple(row[width + 1] for row in rows if row[width + 1] is not None),
        progress=progress,
    )


def _raise_missing(*, learner_id: int, module_slug: str, number: int) -> NoReturn:
    """Say why there is no step context: no module, no such step, or not enrolled."""
    module_id = _module_id(module_slug)
    if not Step.objects.filter(module_id=module_id, number=number, status=_ACTIVE).exists():
        raise NotFound(f"Module '{module_slug}' has no step {number}.", code="step_not_found")
    raise NotFound(f"You are not enrolled in '{module_slug}'; enroll first.", code="not_enrolled")


def _step_context_lock_or_raise(*, learner_id: int, module_slug: str, number: int) -> _StepContext:
    context = _step_context_lock(learner_id=learner_id, module_slug=module_slug, number=number)
    if context is None:
        _raise_missing(learner_id=learner_id, module_slug=module_slug, number=number)
    return context


def _progress_write(progress: StepProgress, *, now: datetime.datetime) -> None:
    progress.updated_at = now
    progress.save(update_fields=[name for name in _PROGRESS_FIELDS if name != "id"])


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
        context = _step_context_lock_or_raise(
            learner_id=learner_id, module_slug=module_slug, number=number
        )
        progress = context.progress
        result, dirty = _event_apply(
            progress, kind=kind, section=section, at=at, section_kinds=context.section_kinds
        )
        if dirty:
            _progress_write(progress, now=at)
        if result == EventResult.APPLIED and kind == EventKind.COMPLETED:
            reviews_api.cards_for_step_ensure(learner_id=learner_id, step_id=context.step_id, at=at)
    return StepEventOutcome(progress=progress, result=result, section_kinds=context.section_kinds)


def step_open_record(*, learner_id: int, module_slug: str, number: int) -> None:
    """The learner opened a step through the content API: record it when enrolled, else no-op.

    Two statements: lock-and-read and the write for an enrolled learner, the lookup and the
    enrollment check for one who is not.
    """
    now = timezone.now()
    with transaction.atomic():
        context = _step_context_lock(learner_id=learner_id, module_slug=module_slug, number=number)
        if context is None:
            return
        _, dirty = _event_apply(
            context.progress,
            kind=EventKind.OPENED,
            section="",
            at=now,
            section_kinds=context.section_kinds,
        )
        if dirty:
            _progress_write(context.progress, now=now)


# --- offline sync -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SyncEventResult:
    """What became of one synced event; ``code``/``message`` explain a rejection."""

    client_event_id: str | None
    status: str  # applied, unchanged, stale, duplicate, rejected
    code: str = ""
    message: str = ""
    detail: Any = None


@dataclasses.dataclass(frozen=True)
class _SyncEvent:
    index: int
    client_event_id: str
    kind: str
    module: str
    number: int
    section: str
    occurred_at: datetime.datetime


def _sync_event_parse(raw: Any, *, index: int, now: datetime.datetime) -> _SyncEvent:
    """Validate one raw event; raises InvalidInput with the reason."""
    if not isinstance(raw, Mapping):
        raise InvalidInput("An event must be an object.", code="invalid_event")
    client_event_id = raw.get("client_event_id")
    if (
        not isinstance(client_event_id, str)
        or not client_event_id.strip()
        or len(client_event_id) > CLIENT_EVENT_ID_MAX_LENGTH
    ):
        raise InvalidInput(
            f"client_event_id must be a non-empty string of at most "
            f"{CLIENT_EVENT_ID_MAX_LENGTH} characters.",
            code="invalid_client_event_id",
        )
    kind = raw.get("event")
    if kind not in EventKind.values:
        raise InvalidInput(
            f"event must be one of {', '.join(EventKind.values)}.",
            code="unknown_event",
            detail={"allowed": list(EventKind.values)},
        )
    module = raw.get("module")
    if not isinstance(module, str) or not module:
        raise InvalidInput("module must be a module slug.", code="invalid_module")
    number = raw.get("step")
    # bool is an int in Python; "step": true is a client bug, not step 1.
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise InvalidInput("step must be a step number (1, 2, ...).", code="invalid_step")
    section = raw.get("section") or ""
    if kind == EventKind.SECTION_VIEWED and (not isinstance(section, str) or not section):
        raise InvalidInput("section_viewed needs the section kind.", code="invalid_section")
    if not isinstance(section, str):
        raise InvalidInput("section must be a section kind.", code="invalid_section")
    occurred_at = _client_time_parse(raw.get("occurred_at"), now=now)
    return _SyncEvent(
        index=index,
        client_event_id=client_event_id,
        kind=kind,
        module=module,
        number=number,
        section=section,
        occurred_at=occurred_at,
    )


def _client_time_parse(value: Any, *, now: datetime.datetime) -> datetime.datetime:
    try:
        parsed = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:
        parsed = None
    if parsed is None or timezone.is_naive(parsed):
        raise InvalidInput(
            "occurred_at must be an ISO 8601 time with a UTC offset, e.g. 2026-03-01T09:30:00Z.",
            code="invalid_timestamp",
        )
    parsed = parsed.astimezone(datetime.UTC)
    if parsed > now + CLOCK_SKEW_TOLERANCE:
        raise InvalidInput(
            "occurred_at lies in the future; check the device clock.",
            code="timestamp_in_future",
            detail={"server_time": now.isoformat()},
        )
    if parsed < EARLIEST_EVENT_TIME:
        raise InvalidInput("occurred_at is implausibly old.", code="timestamp_too_old")
    # Within the tolerance the event happened "now" as far as the server can tell.
    return min(parsed, now)


def _rejected(client_event_id: Any, error: DomainError) -> SyncEventResult:
    return SyncEventResult(
        client_event_id=client_event_id if isinstance(client_event_id, str) else None,
        status="rejected",
        code=error.code,
        message=error.message,
        detail=error.detail,
    )


def progress_sync(
    *, learner_id: int, events: Sequence[Any], now: datetime.datetime | None = None
) -> list[SyncEventResult]:
    """Apply a batch of offline events; one result per event, in the order sent.

    Replays (a client event id seen before, in this batch or earlier) are ignored; the other
    events apply in client-time order; a bad event is rejected with its reason and the rest
    still apply. 7 statements whatever the batch size (2 more when a step has no row yet),
    plus what reviews.api.cards_for_step_ensure needs per step the batch completes.
    """
    if len(events) > SYNC_MAX_EVENTS:
        raise InvalidInput(
            f"At most {SYNC_MAX_EVENTS} events per sync; send the rest in another batch.",
            code="batch_too_large",
        )
    now = now or timezone.now()
    results: list[SyncEventResult | None] = [None] * len(events)
    parsed: list[_SyncEvent] = []
    seen: set[str] = set()
    for index, raw in enumerate(events):
        try:
            event = _sync_event_parse(raw, index=index, now=now)
        except DomainError as error:
            raw_id = raw.get("client_event_id") if isinstance(raw, Mapping) else None
            results[index] = _rejected(raw_id, error)
            continue
        if event.client_event_id in seen:
            results[index] = SyncEventResult(event.client_event_id, "duplicate")
            continue
        seen.add(event.client_event_id)
        parsed.append(event)
    if parsed:
        with transaction.atomic():
            _sync_apply(learner_id=learner_id, events=parsed, results=results, now=now)
    return [result for result in results if result is not None]


def _rows_lock(*, learner_id: int, step_ids: Sequence[int]) -> dict[int, StepProgress]:
    """The learner's progress rows of these steps, locked in id order (no deadlock cycles)."""
    if not step_ids:
        return {}
    return {
        row.step_id: row
        for row in StepProgress.objects.select_for_update()
        .filter(learner_id=learner_id, step_id__in=step_ids)
        .order_by("id")
    }


def _sync_apply(
    *,
    learner_id: int,
    events: list[_SyncEvent],
    results: list[SyncEventResult | None],
    now: datetime.datetime,
) -> None:
    """Apply parsed events inside one transaction (see progress_sync for the cost)."""
    slugs = {event.module for event in events}
    modules = dict(Module.objects.filter(slug__in=slugs).values_list("slug", "id"))
    # Lock in id order, so two syncs of the same learner never wait on each other in a cycle.
    enrolled = set(
        Enrollment.objects.select_for_update()
        .filter(learner_id=learner_id, module_id__in=modules.values())
        .order_by("id")
        .values_list("module_id", flat=True)
    )
    steps: dict[tuple[int, int], tuple[int, list[str]]] = {}
    for step_id, module_id, number, kind in (
        Step.objects.filter(module_id__in=enrolled, status=_ACTIVE)
        .order_by("number", "sections__position")
        .values_list("id", "module_id", "number", "sections__kind")
    ):
        kinds = steps.setdefault((module_id, number), (step_id, []))[1]
        if kind is not None:
            kinds.append(kind)
    # Read after the lock: a concurrent sync of the same events has committed by now.
    known = set(
        ProgressEvent.objects.filter(
            learner_id=learner_id, client_event_id__in=[e.client_event_id for e in events]
        ).values_list("client_event_id", flat=True)
    )
    # The rows of the steps these events touch, locked like an online event locks its row.
    touched = sorted(
        {
            steps[key][0]
            for key in ((modules.get(e.module), e.number) for e in events)
            if key in steps
        }
    )
    rows = _rows_lock(learner_id=learner_id, step_ids=touched)
    missing = [step_id for step_id in touched if step_id not in rows]
    if missing:
        # Steps added to a module after the enrollment have no row yet.
        StepProgress.objects.bulk_create(
            [StepProgress(learner_id=learner_id, step_id=i, updated_at=now) for i in missing],
            ignore_conflicts=True,
        )
        rows |= _rows_lock(learner_id=learner_id, step_ids=missing)
    dirty: set[int] = set()
    log: list[ProgressEvent] = []
    completions: list[tuple[int, datetime.datetime]] = []

    for event in sorted(events, key=lambda e: (e.occurred_at, e.index)):
        if event.client_event_id in known:
            results[event.index] = SyncEventResult(event.client_event_id, "duplicate")
            continue
        try:
            module_id = modules.get(event.module)
            if module_id is None:
                raise NotFound(f"There is no module '{event.module}'.", code="module_not_found")
            if module_id not in enrolled:
                raise NotFound(f"You are not enrolled in '{event.module}'.", code="not_enrolled")
            step = steps.get((module_id, event.number))
            if step is None:
                raise NotFound(
                    f"Module '{event.module}' has no step {event.number}.", code="step_not_found"
                )
            step_id, section_kinds = step
            progress = rows[step_id]
            result, changed = _event_apply(
                progress,
                kind=event.kind,
                section=event.section,
                at=event.occurred_at,
                section_kinds=section_kinds,
            )
        except DomainError as error:
            results[event.index] = _rejected(event.client_event_id, error)
            continue
        if changed:
            progress.updated_at = now
            rows[step_id] = progress
            dirty.add(step_id)
        if result == EventResult.APPLIED and event.kind == EventKind.COMPLETED:
            completions.append((step_id, event.occurred_at))
        known.add(event.client_event_id)
        log.append(
            ProgressEvent(
                learner_id=learner_id,
                client_event_id=event.client_event_id,
                step_id=step_id,
                kind=event.kind,
                section=event.section,
                occurred_at=event.occurred_at,
                received_at=now,
                result=result,
            )
        )
        results[event.index] = SyncEventResult(event.client_event_id, result)

    StepProgress.objects.bulk_update(
        [rows[i] for i in sorted(dirty)], [name for name in _PROGRESS_FIELDS if name != "id"]
    )
    ProgressEvent.objects.bulk_create(log)
    for step_id, at in completions:
        reviews_api.cards_for_step_ensure(learner_id=learner_id, step_id=step_id, at=at)


# --- notes --------------------------------------------------------------------------------

NOTE_PROMPTS = tuple(StepNote.Prompt.values)


@transaction.atomic
def step_notes_put(
    *, learner_id: int, module_slug: str, number: int, notes: Mapping[str, str]
) -> dict[str, StepNote]:
    """Set the learner's notes for the given prompts of a step; an empty text deletes a note.

    Prompts not given stay as they are. Returns the step's notes after the change, by prompt.
    """
    unknown = sorted(set(notes) - set(NOTE_PROMPTS))
    if unknown:
        raise InvalidInput(
            f"Notes exist for the prompts {', '.join(NOTE_PROMPTS)}.",
            code="unknown_prompt",
            detail={"unknown": unknown},
        )
    too_long = sorted(prompt for prompt, text in notes.items() if len(text) > NOTE_MAX_LENGTH)
    if too_long:
        raise InvalidInput(
            f"A note has at most {NOTE_MAX_LENGTH} characters.",
            code="note_too_long",
            detail={"prompts": too_long, "max_length": NOTE_MAX_LENGTH},
        )
    context = _step_context_lock_or_raise(
        learner_id=learner_id, module_slug=module_slug, number=number
    )
    absent = sorted(
        prompt
        for prompt, text in notes.items()
        if text.strip() and prompt not in context.section_kinds
    )
    if absent:
        raise InvalidInput(
            "This step does not ask for these notes.",
            code="prompt_not_in_step",
            detail={"prompts": absent},
        )
    now = timezone.now()
    existing = {
        note.prompt: note
        for note in StepNote.objects.filter(learner_id=learner_id, step_id=context.step_id)
    }
    for prompt, text in notes.items():
        text = text.strip()
        note = existing.get(prompt)
        if not text:
            if note is not None:
                note.delete()
                del existing[prompt]
        elif note is None:
            existing[prompt] = StepNote.objects.create(
                learner_id=learner_id,
                step_id=context.step_id,
                prompt=prompt,
                text=text,
                created_at=now,
                updated_at=now,
            )
        elif note.text != text:
            note.text = text
            note.updated_at = now
            note.save(update_fields=["text", "updated_at"])
    return existing
