"""How one progress event changes a learner's progress row, and what makes an offline event
valid: plain Python on a row in memory, no queries (the services lock, read and write the rows).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from lms.client_time import CLOCK_SKEW_TOLERANCE, EARLIEST_CLIENT_TIME
from lms.converters import NUMBER_MAX
from lms.errors import Conflict, InvalidInput
from lms.text import text_is_storable
from progress.completion_rules import CompletionRequirement, MissingEvidence, completion_missing
from progress.models import ProgressEvent, StepProgress

EventKind = ProgressEvent.Kind
EventResult = ProgressEvent.Result

CLIENT_EVENT_ID_MAX_LENGTH = 64
# The error code of a completion asked for before its evidence (the API's 409).
COMPLETION_REFUSED = "completion_evidence_missing"

_COMPLETED = StepProgress.Status.COMPLETED
_IN_PROGRESS = StepProgress.Status.IN_PROGRESS
_NOT_STARTED = StepProgress.Status.NOT_STARTED


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


def evidence_missing(
    progress: StepProgress | None, requirement: CompletionRequirement, *, at: datetime.datetime
) -> MissingEvidence:
    """What the learner still has to do on the step before completing it at ``at``."""
    return completion_missing(
        requirement,
        sections_viewed=progress.sections_viewed if progress else (),
        quick_checks_answered=progress.quick_checks_answered if progress else (),
        first_opened_at=progress.first_opened_at if progress else None,
        at=at,
    )


def completion_refused(missing: MissingEvidence) -> Conflict:
    """The error of a completion asked for too early: every missing part, for the page and the
    API (``error.detail``)."""
    parts = []
    if missing.sections:
        parts.append(
            ngettext(
                "%(count)d section not seen yet",
                "%(count)d sections not seen yet",
                len(missing.sections),
            )
            % {"count": len(missing.sections)}
        )
    if missing.quick_check_ids:
        parts.append(
            ngettext(
                "%(count)d quick check not answered yet",
                "%(count)d quick checks not answered yet",
                len(missing.quick_check_ids),
            )
            % {"count": len(missing.quick_check_ids)}
        )
    if missing.seconds_left:
        minutes = math.ceil(missing.seconds_left / 60)
        parts.append(
            ngettext(
                "about %(count)d more minute on the step",
                "about %(count)d more minutes on the step",
                minutes,
            )
            % {"count": minutes}
        )
    return Conflict(
        _("The step is not completed yet: %(missing)s.") % {"missing": "; ".join(parts)},
        code=COMPLETION_REFUSED,
        detail={
            "missing_sections": list(missing.sections),
            "missing_quick_checks": list(missing.quick_check_ids),
            "seconds_left": missing.seconds_left,
            "min_seconds": missing.min_seconds,
        },
    )


def _status_event_skipped(
    progress: StepProgress, *, completes: bool, at: datetime.datetime
) -> EventResult | None:
    """UNCHANGED when a "completed"/"reopened" event finds that status already, STALE when it
    is older than the last status change, else None."""
    if (progress.status == _COMPLETED) == completes:
        return EventResult.UNCHANGED
    if progress.status_changed_at and at < progress.status_changed_at:
        return EventResult.STALE
    return None


def event_apply(
    progress: StepProgress,
    *,
    kind: str,
    section: str,
    at: datetime.datetime,
    requirement: CompletionRequirement,
) -> tuple[str, bool]:
    """Apply one event to a progress row in memory: the EventResult and whether to write the row
    (an "opened" still moves ``last_event_at``). Raises InvalidInput, or Conflict for a completion
    without its evidence (``completion_refused``); the row is then unchanged."""
    section_kinds = requirement.section_kinds
    before = _snapshot(progress)
    # An offline event older than the step's newest one must not move the resume point back.
    newest = progress.last_event_at is None or at >= progress.last_event_at
    if kind == EventKind.COMPLETED:
        skipped = _status_event_skipped(progress, completes=True, at=at)
        if skipped:
            return skipped, False
        missing = evidence_missing(progress, requirement, at=at)
        if missing:
            raise completion_refused(missing)
        progress.status = _COMPLETED
        progress.completed_at = at
        progress.status_changed_at = at
    elif kind == EventKind.REOPENED:
        skipped = _status_event_skipped(progress, completes=False, at=at)
        if skipped:
            return skipped, False
        progress.status = _IN_PROGRESS
        progress.completed_at = None
        progress.status_changed_at = at
    elif kind in (EventKind.OPENED, EventKind.SECTION_VIEWED):
        if kind == EventKind.SECTION_VIEWED:
            if section not in section_kinds:
                raise InvalidInput(
                    _("This step has no section '%(section)s'.") % {"section": section},
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
        raise InvalidInput(_("Unknown event '%(event)s'.") % {"event": kind}, code="unknown_event")
    if progress.first_opened_at is None or at < progress.first_opened_at:
        progress.first_opened_at = at
    result = EventResult.APPLIED if _snapshot(progress) != before else EventResult.UNCHANGED
    dirty = result == EventResult.APPLIED
    if (dirty or kind == EventKind.OPENED) and newest and progress.last_event_at != at:
        progress.last_event_at = at
        dirty = True
    return result, dirty


def quick_check_answer_apply(
    progress: StepProgress, *, quick_check_id: int, at: datetime.datetime
) -> bool:
    """Note that the learner answered one of the step's quick checks (evidence for completing
    it); an answer is activity on the step like opening it. Whether the row changed."""
    before = (_snapshot(progress), tuple(progress.quick_checks_answered))
    if quick_check_id not in progress.quick_checks_answered:
        progress.quick_checks_answered = [*progress.quick_checks_answered, quick_check_id]
    if progress.status == _NOT_STARTED:
        progress.status = _IN_PROGRESS
    if progress.first_opened_at is None or at < progress.first_opened_at:
        progress.first_opened_at = at
    return (_snapshot(progress), tuple(progress.quick_checks_answered)) != before


@dataclasses.dataclass(frozen=True)
class SyncEvent:
    index: int
    client_event_id: str
    kind: str
    module: str
    number: int
    section: str
    occurred_at: datetime.datetime


def sync_event_parse(raw: Any, *, index: int, now: datetime.datetime) -> SyncEvent:
    """Validate one raw event; raises InvalidInput with the reason."""
    if not isinstance(raw, Mapping):
        raise InvalidInput(_("An event must be an object."), code="invalid_event")
    client_event_id = raw.get("client_event_id")
    # A string with NUL or a lone surrogate would fail the whole batch in PostgreSQL.
    if (
        not isinstance(client_event_id, str)
        or not client_event_id.strip()
        or len(client_event_id) > CLIENT_EVENT_ID_MAX_LENGTH
        or not text_is_storable(client_event_id)
    ):
        raise InvalidInput(
            _("client_event_id must be a non-empty string of at most %(count)d characters.")
            % {"count": CLIENT_EVENT_ID_MAX_LENGTH},
            code="invalid_client_event_id",
        )
    kind = raw.get("event")
    if kind not in EventKind.values:
        raise InvalidInput(
            _("event must be one of %(kinds)s.") % {"kinds": ", ".join(EventKind.values)},
            code="unknown_event",
            detail={"allowed": list(EventKind.values)},
        )
    module = raw.get("module")
    if not isinstance(module, str) or not module or not text_is_storable(module):
        raise InvalidInput(_("module must be a module slug."), code="invalid_module")
    number = raw.get("step")
    # bool is an int in Python; "step": true is a client bug, not step 1.
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= NUMBER_MAX:
        raise InvalidInput(_("step must be a step number (1, 2, ...)."), code="invalid_step")
    section = raw.get("section") or ""
    if kind == EventKind.SECTION_VIEWED and (not isinstance(section, str) or not section):
        raise InvalidInput(_("section_viewed needs the section kind."), code="invalid_section")
    if not isinstance(section, str) or not text_is_storable(section):
        raise InvalidInput(_("section must be a section kind."), code="invalid_section")
    occurred_at = client_time_parse(raw.get("occurred_at"), now=now)
    return SyncEvent(
        index=index,
        client_event_id=client_event_id,
        kind=kind,
        module=module,
        number=number,
        section=section,
        occurred_at=occurred_at,
    )


def client_time_parse(value: Any, *, now: datetime.datetime) -> datetime.datetime:
    try:
        # datetime.fromisoformat, which parse_datetime tries first, ignores a NUL and what follows.
        parsed = parse_datetime(value) if isinstance(value, str) and "\x00" not in value else None
    except ValueError:
        parsed = None
    if parsed is None or timezone.is_naive(parsed):
        raise InvalidInput(
            _("occurred_at must be an ISO 8601 time with a UTC offset, e.g. 2026-03-01T09:30:00Z."),
            code="invalid_timestamp",
        )
    parsed = parsed.astimezone(datetime.UTC)
    if parsed > now + CLOCK_SKEW_TOLERANCE:
        raise InvalidInput(
            _("occurred_at lies in the future; check the device clock."),
            code="timestamp_in_future",
            detail={"server_time": now.isoformat()},
        )
    if parsed < EARLIEST_CLIENT_TIME:
        raise InvalidInput(_("occurred_at is implausibly old."), code="timestamp_too_old")
    # Within the tolerance the event happened "now" as far as the server can tell.
    return min(parsed, now)
