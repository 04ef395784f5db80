"""The demo learner's study history (``manage.py demo_setup``, local use only): an enrollment and
a few steps read and completed on past days, through the same services as the step page, so the
demo's module, statistics and review pages show real progress."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from courses import api as courses_api
from progress.event_rules import EventKind
from progress.services.enrollment import enrollment_create
from progress.services.step_events import step_complete, step_event_record


def demo_progress_create(
    *,
    learner_id: int,
    module_slug: str,
    completed_days_ago: Sequence[int],
    now: datetime.datetime,
) -> int:
    """Enroll the learner and complete the module's first steps, step ``i`` ``completed_days_ago
    [i]`` days before ``now`` (read section by section first, as the reader does), then open the
    next step and read its first two sections. Repeating it changes nothing (the services are
    idempotent). Returns how many steps are completed."""
    enrollment_create(learner_id=learner_id, module_slug=module_slug)
    steps = courses_api.module_outline(module_slug).active_steps
    for step, days_ago in zip(steps, completed_days_ago, strict=False):
        at = now - datetime.timedelta(days=days_ago)
        step_complete(
            learner_id=learner_id,
            module_slug=module_slug,
            number=step.number,
            sections_shown=step.section_kinds,
            at=at,
        )
    done = min(len(steps), len(completed_days_ago))
    if done < len(steps):
        step = steps[done]
        for minutes, kind in enumerate(step.section_kinds[:2]):
            step_event_record(
                learner_id=learner_id,
                module_slug=module_slug,
                number=step.number,
                kind=EventKind.SECTION_VIEWED,
                section=kind,
                at=now - datetime.timedelta(hours=2) + datetime.timedelta(minutes=minutes * 5),
            )
    return done
