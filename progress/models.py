"""Learner data attached to content: enrollment, progress per step, the offline event log, notes.

Rows point at steps (kept by re-imports), sections are recorded by their stable kind. The
tables kept their courses-app names (``db_table``).
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from progress import completion_rules

# Several pages, far more than the prompts ask for; keeps rows and responses bounded.
NOTE_MAX_LENGTH = 10_000


class Enrollment(models.Model):
    """A learner takes a module."""

    class Source(models.TextChoices):
        SELF = "self", _("self-enrolled")
        ADMIN = "admin", _("enrolled by an admin")
        PLATFORM = "platform", _("enrolled by an LTI platform")

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="enrollments",
        verbose_name=_("learner"),
    )
    module = models.ForeignKey(
        "courses.Module",
        on_delete=models.CASCADE,
        related_name="enrollments",
        verbose_name=_("module"),
    )
    source = models.CharField(
        max_length=10, choices=Source.choices, default=Source.SELF, verbose_name=_("source")
    )
    enrolled_at = models.DateTimeField(verbose_name=_("enrolled"))

    class Meta:
        verbose_name = _("enrollment")
        verbose_name_plural = _("enrollments")
        db_table = "courses_enrollment"
        constraints = [
            models.UniqueConstraint(fields=["learner", "module"], name="enrollment_unique")
        ]
        indexes = [models.Index(fields=["module", "enrolled_at"])]

    def __str__(self) -> str:
        return _("%(learner)s in module %(module)s") % {
            "learner": self.learner.certificate_name,
            "module": self.module.number,
        }


class StepProgress(models.Model):
    """One learner's progress on one step."""

    class Status(models.TextChoices):
        NOT_STARTED = "not_started", _("not started")
        IN_PROGRESS = "in_progress", _("in progress")
        COMPLETED = "completed", _("completed")

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="step_progress",
        verbose_name=_("learner"),
    )
    step = models.ForeignKey(
        "courses.Step", on_delete=models.CASCADE, related_name="progress", verbose_name=_("step")
    )
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.NOT_STARTED, verbose_name=_("status")
    )
    first_opened_at = models.DateTimeField(null=True, blank=True, verbose_name=_("first opened"))
    completed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("completed"))
    # Section kinds the learner has opened (stable across re-imports, unlike section rows).
    sections_viewed = models.JSONField(default=list, blank=True, verbose_name=_("sections viewed"))
    # Ids of the step's quick checks the learner answered (rated) on this step: evidence for
    # completing it (progress.completion_rules).
    quick_checks_answered = models.JSONField(
        default=list, blank=True, verbose_name=_("quick checks answered")
    )
    last_section = models.CharField(max_length=30, blank=True, verbose_name=_("last section"))
    # When (event time) the status last changed: an offline "completed"/"reopened" older than
    # this is stale and must not undo a newer change.
    status_changed_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("status changed")
    )
    # Event time of the newest event on this step: last activity and resume point come from it.
    last_event_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last event"))
    updated_at = models.DateTimeField(verbose_name=_("updated"))

    class Meta:
        verbose_name = _("step progress")
        verbose_name_plural = _("step progress")
        db_table = "courses_stepprogress"
        constraints = [
            models.UniqueConstraint(fields=["learner", "step"], name="stepprogress_unique"),
            models.CheckConstraint(
                condition=~Q(status="completed") | Q(completed_at__isnull=False),
                name="stepprogress_completed_has_time",
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(learner)s, step %(step)s: %(status)s") % {
            "learner": self.learner.certificate_name,
            "step": self.step,
            "status": self.get_status_display(),
        }


class ModuleCompletionRule(models.Model):
    """What completing a step of a module asks of the learner (progress.completion_rules); a
    module without a row has the defaults. The course admin edits it with the exam policy."""

    class Rule(models.TextChoices):
        FREE = completion_rules.RULE_FREE, _("free: the learner decides")
        SECTIONS = completion_rules.RULE_SECTIONS, _("every section seen")
        SECTIONS_QUICK_CHECK = (
            completion_rules.RULE_SECTIONS_QUICK_CHECK,
            _("every section seen and the quick check answered"),
        )

    module = models.OneToOneField(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    rule = models.CharField(
        max_length=24,
        choices=Rule.choices,
        default=completion_rules.DEFAULT_RULE,
        verbose_name=_("step completion rule"),
    )
    reading_time_share = models.PositiveSmallIntegerField(
        default=completion_rules.DEFAULT_READING_TIME_SHARE,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text=_(
            "Percent of a step's estimated reading time the learner must have had the step open "
            "before completing it (0: no minimum). Not for the free rule."
        ),
        verbose_name=_("minimum time (% of reading time)"),
    )

    class Meta:
        verbose_name = _("step completion rule")
        verbose_name_plural = _("step completion rules")
        constraints = [
            models.CheckConstraint(
                condition=Q(rule__in=completion_rules.RULES), name="completionrule_rule_known"
            ),
            models.CheckConstraint(
                condition=Q(reading_time_share__lte=100), name="completionrule_share_percent"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.module_id}: {self.rule}"


class ProgressEvent(models.Model):
    """An offline event synced and accepted; the log makes replays no-ops (a rejected event is
    not logged, so it may be sent again once its cause is fixed)."""

    class Kind(models.TextChoices):
        OPENED = "opened", _("opened")
        SECTION_VIEWED = "section_viewed", _("section viewed")
        COMPLETED = "completed", _("completed")
        REOPENED = "reopened", _("reopened")

    class Result(models.TextChoices):
        APPLIED = "applied", _("applied")
        UNCHANGED = "unchanged", _("already in effect")
        STALE = "stale", _("older than the step's last status change")

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="progress_events",
        verbose_name=_("learner"),
    )
    client_event_id = models.CharField(max_length=64, verbose_name=_("client event id"))
    step = models.ForeignKey(
        "courses.Step",
        on_delete=models.CASCADE,
        related_name="progress_events",
        verbose_name=_("step"),
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, verbose_name=_("kind"))
    section = models.CharField(max_length=30, blank=True, verbose_name=_("section"))
    occurred_at = models.DateTimeField(
        help_text=_("Client time (clamped to the time received)."), verbose_name=_("occurred")
    )
    received_at = models.DateTimeField(verbose_name=_("received"))
    result = models.CharField(max_length=10, choices=Result.choices, verbose_name=_("result"))

    class Meta:
        verbose_name = _("progress event")
        verbose_name_plural = _("progress events")
        db_table = "courses_progressevent"
        constraints = [
            models.UniqueConstraint(
                fields=["learner", "client_event_id"], name="progressevent_client_id_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.learner_id}:{self.client_event_id} {self.kind}"


class StepNote(models.Model):
    """A learner's private answer to a writing prompt of a step (Praxisaufgabe, Lernauftrag)."""

    class Prompt(models.TextChoices):
        PRAXISAUFGABE = "praxisaufgabe", "Optionale Praxisaufgabe"
        LERNAUFTRAG = "lernauftrag", "Lernauftrag für diesen Schritt"

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="step_notes",
        verbose_name=_("learner"),
    )
    step = models.ForeignKey(
        "courses.Step", on_delete=models.CASCADE, related_name="notes", verbose_name=_("step")
    )
    prompt = models.CharField(max_length=20, choices=Prompt.choices, verbose_name=_("prompt"))
    text = models.TextField(max_length=NOTE_MAX_LENGTH, verbose_name=_("text"))
    created_at = models.DateTimeField(verbose_name=_("created"))
    updated_at = models.DateTimeField(verbose_name=_("updated"))

    class Meta:
        verbose_name = _("step note")
        verbose_name_plural = _("step notes")
        db_table = "courses_stepnote"
        constraints = [
            models.UniqueConstraint(fields=["learner", "step", "prompt"], name="stepnote_unique"),
            models.CheckConstraint(
                condition=Q(prompt__in=["praxisaufgabe", "lernauftrag"]), name="stepnote_prompt"
            ),
            # An empty answer is no note: the service deletes the row instead.
            models.CheckConstraint(
                condition=~Q(text="") & LessThanOrEqual(Length("text"), NOTE_MAX_LENGTH),
                name="stepnote_text_length",
            ),
        ]

    def __str__(self) -> str:
        return gettext("Note of %(learner)s on step %(step)s") % {
            "learner": self.learner.certificate_name,
            "step": self.step,
        }
