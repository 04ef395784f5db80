"""Learner data attached to content: enrollment in a module and progress per step.

Rows point at steps (never at sections): a re-import keeps step rows, so progress survives it.
Sections are recorded by kind, which is stable across re-imports.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from courses.models.content import Module, Step


class Enrollment(models.Model):
    """A learner takes a module."""

    class Source(models.TextChoices):
        SELF = "self", "self-enrolled"
        ADMIN = "admin", "enrolled by an admin"

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="enrollments"
    )
    module = models.ForeignKey(Module, on_delete=models.CASCADE, related_name="enrollments")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.SELF)
    enrolled_at = models.DateTimeField()
    last_activity_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["learner", "module"], name="enrollment_unique")
        ]
        indexes = [models.Index(fields=["module", "last_activity_at"])]

    def __str__(self) -> str:
        return f"{self.learner_id} in {self.module_id}"


class StepProgress(models.Model):
    """One learner's progress on one step."""

    class Status(models.TextChoices):
        NOT_STARTED = "not_started", "not started"
        IN_PROGRESS = "in_progress", "in progress"
        COMPLETED = "completed", "completed"

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="step_progress"
    )
    step = models.ForeignKey(Step, on_delete=models.CASCADE, related_name="progress")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.NOT_STARTED)
    first_opened_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # Section kinds the learner has opened (stable across re-imports, unlike section rows).
    sections_viewed = models.JSONField(default=list, blank=True)
    last_section = models.CharField(max_length=30, blank=True)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["learner", "step"], name="stepprogress_unique"),
            models.CheckConstraint(
                condition=~Q(status="completed") | Q(completed_at__isnull=False),
                name="stepprogress_completed_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.learner_id}/{self.step_id}: {self.status}"
