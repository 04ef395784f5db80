"""The demo learner's study history (``manage.py demo_setup``), written through the same
services and the same completion rule as the step page."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from courses import api as courses_api
from progress.event_rules import EventKind
from progress.services.enrollment import enrollment_create
from progress.services.step_events import quick_check_answer_record, step_event_record

# How long before completing a step the demo learner opened it (longer if the rule asks more).
DEMO_READING_TIME = datetime.timedelta(minutes=15)


def demo_step_complete(
    *, learner_id: int, module_slug: str, number: int, at: datetime.datetime
) -> None:
    """Leave the evidence the module's rule asks for on a step and complete it at ``at``: opened
    ``DEMO_READING_TIME`` (or the plausible time) earlier, every section seen, every rated
    quick check answered (evidence only: the demo writes no self-ratings)."""
    step = {"learner_id": learner_id, "module_slug": module_slug, "number": number}
    start = at - DEMO_READING_TIME
    requirement = step_event_record(**step, kind=EventKind.OPENED, at=start).requirement
    if requirement.min_seconds > DEMO_READING_TIME.total_seconds():
        start = at - datetime.timedelta(seconds=requirement.min_seconds)
        step_event_record(**step, kind=EventKind.OPENED, at=start)
    for kind in requirement.section_kinds:
        step_event_record(**step, kind=EventKind.SECTION_VIEWED, section=kind, at=start)
    for quick_check_id in requirement.quick_check_ids:
        quick_check_answer_record(**step, quick_check_id=quick_check_id, at=start)
    step_event_record(**step, kind=EventKind.COMPLETED, at=at)


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
        demo_step_complete(
            learner_id=learner_id,
            module_slug=module_slug,
            number=step.number,
            at=now - datetime.timedelta(days=days_ago),
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
