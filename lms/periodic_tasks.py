"""Every Celery beat schedule, in one place; the apps' data migrations install each as a row
admins may change (an existing row is never overwritten). Tasks go by name: no app imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PeriodicTaskDefinition:
    name: str  # the row's name in the admin
    task: str  # the Celery task's name
    every_minutes: int
    description: str = ""


EXAM_ATTEMPTS_FINALIZE = PeriodicTaskDefinition(
    name="quizzes: finalize expired exam attempts",
    task="quizzes.tasks.exam_attempts_finalize_expired",
    every_minutes=1,
)
REMINDERS_PLAN = PeriodicTaskDefinition(
    name="reviews: plan reminder digests",
    task="reviews.tasks.reminders_plan",
    every_minutes=15,
    description=(
        "Claims the daily review digests whose local reminder time fell in the last 30 minutes "
        "and enqueues their sending; also re-enqueues claims whose task was lost. Safe to run "
        "more often or twice at once."
    ),
)
PARAMETERS_REFIT = PeriodicTaskDefinition(
    name="reviews: refit FSRS parameters (monthly run)",
    task="reviews.tasks.parameters_refit",
    every_minutes=24 * 60,
    description=(
        "Fits FSRS parameters to each learner's review log and pools each module's, once per "
        "calendar month (the run key is the month): runs daily and fits only who this month's "
        "run has not fitted yet, in batches. Safe to run more often or twice at once."
    ),
)
LTI_GRADE_SENDS_RETRY = PeriodicTaskDefinition(
    name="lti: send scores that are due",
    task="lti.tasks.grade_sends_retry",
    every_minutes=1,
    description=(
        "Enqueues every exam score for an LTI platform that is waiting: a first try whose "
        "task was lost, a retry after the platform refused, a send held by a worker that died. "
        "A retry reads the platform's result first, so no score is sent twice."
    ),
)
PERIODIC_TASKS = (EXAM_ATTEMPTS_FINALIZE, REMINDERS_PLAN, PARAMETERS_REFIT, LTI_GRADE_SENDS_RETRY)

_Migration = Callable[[Any, Any], None]


def periodic_task_migration(definition: PeriodicTaskDefinition) -> tuple[_Migration, _Migration]:
    """(forward, backward) for ``migrations.RunPython``: install the schedule's row unless it
    exists, and delete it."""

    def install(apps, schema_editor) -> None:
        IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
        PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
        interval, _ = IntervalSchedule.objects.get_or_create(
            every=definition.every_minutes, period="minutes"
        )
        PeriodicTask.objects.get_or_create(
            name=definition.name,
            defaults={
                "task": definition.task,
                "interval": interval,
                "enabled": True,
                "description": definition.description,
            },
        )

    def remove(apps, schema_editor) -> None:
        PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
        PeriodicTask.objects.filter(name=definition.name).delete()

    return install, remove
