"""The demo learner's study history (``manage.py demo_setup``), written through the same
services as the step page."""

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
    """Enroll the learner, complete step ``i`` ``completed_days_ago[i]`` days before ``now`` and
    start the next one; idempotent. Returns how many steps are completed."""
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
