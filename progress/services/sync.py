"""Offline sync: a batch of progress events recorded offline, applied in client-time order with
the online rules (progress.event_rules); replays are no-ops (ProgressEvent is unique per id).
A synced "completed" needs the same evidence as online, timed by the events' client times.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from courses import api as courses_api
from lms.errors import DomainError, InvalidInput, ModuleNotFound, NotEnrolled, StepNotFound
from progress.event_rules import EventKind, EventResult, SyncEvent, event_apply, sync_event_parse
from progress.models import Enrollment, ProgressEvent, StepProgress
from progress.selectors import requirement_of, with_completion_requirement
from progress.services.step_context import PROGRESS_FIELDS
from reviews import api as reviews_api

# The largest batch /progress/sync/ takes; a phone that was offline for weeks sends several.
SYNC_MAX_EVENTS = 500
# What can become of a synced event (SyncEventResult.status, the API's SyncResultStatusEnum).
SYNC_STATUSES = ("applied", "unchanged", "stale", "duplicate", "rejected")


@dataclasses.dataclass(frozen=True)
class SyncEventResult:
    """What became of one synced event; ``code``/``message`` explain a rejection."""

    client_event_id: str | None
    status: str  # applied, unchanged, stale, duplicate, rejected
    code: str = ""
    message: str = ""
    detail: Any = None


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
    """Apply a batch of offline events; one result per event, in the order sent. A bad event is
    rejected with its reason and the rest still apply. 7 statements whatever the batch size
    (2 more when a step has no row yet), plus the review cards of each completed step."""
    if len(events) > SYNC_MAX_EVENTS:
        raise InvalidInput(
            _("At most %(count)d events per sync; send the rest in another batch.")
            % {"count": SYNC_MAX_EVENTS},
            code="batch_too_large",
        )
    now = now or timezone.now()
    results: list[SyncEventResult | None] = [None] * len(events)
    parsed: list[SyncEvent] = []
    seen: set[str] = set()
    for index, raw in enumerate(events):
        try:
            event = sync_event_parse(raw, index=index, now=now)
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
    """The learner's progress rows of these steps, locked in id order (no deadlock cycles), with
    what completing each step asks (``with_completion_requirement``)."""
    if not step_ids:
        return {}
    rows = with_completion_requirement(
        StepProgress.objects.select_for_update(of=("self",))
        .filter(learner_id=learner_id, step_id__in=step_ids)
        .order_by("id")
    )
    return {row.step_id: row for row in rows}


def _sync_apply(
    *,
    learner_id: int,
    events: list[SyncEvent],
    results: list[SyncEventResult | None],
    now: datetime.datetime,
) -> None:
    slugs = {event.module for event in events}
    modules = {slug: module.id for slug, module in courses_api.modules_by_slugs(slugs).items()}
    # Lock in id order, so two syncs of the same learner never wait on each other in a cycle.
    enrolled = set(
        Enrollment.objects.select_for_update()
        .filter(learner_id=learner_id, module_id__in=modules.values())
        .order_by("id")
        .values_list("module_id", flat=True)
    )
    steps = {
        key: (step.id, step.section_kinds)
        for key, step in courses_api.step_sections_by_number(enrolled).items()
    }
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
    requirements = {step_id: requirement_of(row) for step_id, row in rows.items()}
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
                raise ModuleNotFound(event.module)
            if module_id not in enrolled:
                raise NotEnrolled(event.module)
            step = steps.get((module_id, event.number))
            if step is None:
                raise StepNotFound(event.module, event.number)
            step_id, _section_kinds = step
            progress = rows[step_id]
            result, changed = event_apply(
                progress,
                kind=event.kind,
                section=event.section,
                at=event.occurred_at,
                requirement=requirements[step_id],
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

    StepProgress.objects.bulk_update([rows[i] for i in sorted(dirty)], PROGRESS_FIELDS)
    ProgressEvent.objects.bulk_create(log)
    for step_id, at in completions:
        reviews_api.cards_for_step_ensure(learner_id=learner_id, step_id=step_id, at=at)
