"""Spaced repetition and reminders: review cards with their FSRS state, the review log,
reminder claims and in-app notifications."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class ReviewCard(models.Model):
    """One learner's flashcard: a step's definition or one of its quick checks."""

    class Kind(models.TextChoices):
        DEFINITION = "definition", _("definition (term → definition)")
        QUICK_CHECK = "quick_check", _("quick check (question → answer)")

    class State(models.IntegerChoices):
        # The values of fsrs.State (FSRS 6 has no separate "new" state: a new card is learning
        # with no last review).
        LEARNING = 1, _("learning")
        REVIEW = 2, _("review")
        RELEARNING = 3, _("relearning")

    # The (learner, due) index leads with learner, so it serves the foreign key too.
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="review_cards",
        db_index=False,
        verbose_name=_("learner"),
    )
    kind = models.CharField(max_length=12, choices=Kind.choices, verbose_name=_("kind"))
    # The step the card was made for; a quick check shown by several steps has one card per
    # learner, attached to the first step that created it.
    step = models.ForeignKey(
        "courses.Step",
        on_delete=models.CASCADE,
        related_name="review_cards",
        verbose_name=_("step"),
    )
    # The step's module, kept on the card (a step never changes module) so a review reads the
    # module's exam date and pooled parameters with the card itself.
    module = models.ForeignKey(
        "courses.Module",
        on_delete=models.CASCADE,
        related_name="review_cards",
        null=True,
        verbose_name=_("module"),
    )
    quick_check = models.ForeignKey(
        "courses.QuickCheck",
        on_delete=models.CASCADE,
        related_name="review_cards",
        null=True,
        blank=True,
        verbose_name=_("quick check"),
    )
    state = models.PositiveSmallIntegerField(
        choices=State.choices, default=State.LEARNING, verbose_name=_("state")
    )
    learning_step = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("learning step")
    )
    stability = models.FloatField(null=True, blank=True, verbose_name=_("stability"))
    difficulty = models.FloatField(null=True, blank=True, verbose_name=_("difficulty"))
    due = models.DateTimeField(verbose_name=_("due"))
    last_review = models.DateTimeField(null=True, blank=True, verbose_name=_("last review"))
    # Set by an admin. Cards of retired content are left out by the selectors, not flagged here.
    suspended = models.BooleanField(default=False, verbose_name=_("suspended"))
    created_at = models.DateTimeField(verbose_name=_("created"))

    class Meta:
        verbose_name = _("review card")
        verbose_name_plural = _("review cards")
        constraints = [
            models.UniqueConstraint(
                fields=["learner", "step"],
                condition=Q(kind="definition"),
                name="reviewcard_definition_unique",
            ),
            models.UniqueConstraint(
                fields=["learner", "quick_check"],
                condition=Q(kind="quick_check"),
                name="reviewcard_quick_check_unique",
            ),
            models.CheckConstraint(
                condition=(Q(kind="definition") & Q(quick_check__isnull=True))
                | (Q(kind="quick_check") & Q(quick_check__isnull=False)),
                name="reviewcard_kind_matches_quick_check",
            ),
            models.CheckConstraint(condition=Q(state__in=[1, 2, 3]), name="reviewcard_state_known"),
            models.CheckConstraint(
                condition=Q(difficulty__isnull=True)
                | (Q(difficulty__gte=1.0) & Q(difficulty__lte=10.0)),
                name="reviewcard_difficulty_range",
            ),
        ]
        indexes = [
            # Covering: the due queue filters a learner's due cards on these columns, index only.
            models.Index(
                fields=["learner", "due"],
                include=["id", "last_review", "suspended", "kind", "step", "quick_check"],
                name="reviewcard_learner_due_live",
            )
        ]

    @property
    def is_new(self) -> bool:
        return self.last_review is None

    def __str__(self) -> str:
        return f"{self.kind} card {self.pk} of learner {self.learner_id}"


class ReviewLog(models.Model):
    """One review of a card: the rating, when and how long, and the card state before it
    (for undo) and after it (so a replayed client review id returns the original result)."""

    class Source(models.TextChoices):
        REVIEW = "review", _("review queue")
        QUICK_CHECK = "quick_check", _("quick-check self-rating on the step page")

    card = models.ForeignKey(
        ReviewCard, on_delete=models.CASCADE, related_name="logs", verbose_name=_("review card")
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="review_logs",
        db_index=False,
        verbose_name=_("learner"),
    )
    source = models.CharField(
        max_length=12, choices=Source.choices, default=Source.REVIEW, verbose_name=_("source")
    )
    rating = models.PositiveSmallIntegerField(verbose_name=_("rating"))
    reviewed_at = models.DateTimeField(verbose_name=_("reviewed"))
    duration_ms = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("duration (ms)")
    )
    # Chosen by the client (a UUID); a replayed id changes nothing (offline sync).
    client_review_id = models.CharField(
        max_length=64, null=True, blank=True, verbose_name=_("client review id")
    )
    before_state = models.PositiveSmallIntegerField(verbose_name=_("state before"))
    before_learning_step = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("learning step before")
    )
    before_stability = models.FloatField(null=True, blank=True, verbose_name=_("stability before"))
    before_difficulty = models.FloatField(
        null=True, blank=True, verbose_name=_("difficulty before")
    )
    before_due = models.DateTimeField(verbose_name=_("due before"))
    before_last_review = models.DateTimeField(
        null=True, blank=True, verbose_name=_("last review before")
    )
    after_state = models.PositiveSmallIntegerField(verbose_name=_("state after"))
    after_stability = models.FloatField(verbose_name=_("stability after"))
    after_difficulty = models.FloatField(verbose_name=_("difficulty after"))
    after_due = models.DateTimeField(verbose_name=_("due after"))

    class Meta:
        verbose_name = _("review log entry")
        verbose_name_plural = _("review log")
        constraints = [
            models.UniqueConstraint(
                fields=["learner", "client_review_id"], name="reviewlog_client_review_id_unique"
            ),
            models.CheckConstraint(
                condition=Q(rating__gte=1) & Q(rating__lte=4), name="reviewlog_rating_range"
            ),
        ]
        indexes = [
            models.Index(fields=["learner", "reviewed_at"], name="reviewlog_learner_time"),
            # Undo finds the learner's last applied review: the highest id, not the latest time
            # (reviews.services.reviewing.review_undo).
            models.Index(
                fields=["learner", "id"],
                condition=Q(source="review"),
                name="reviewlog_learner_applied",
            ),
        ]

    @property
    def was_new(self) -> bool:
        return self.before_last_review is None

    def __str__(self) -> str:
        return f"review {self.pk}: card {self.card_id} rated {self.rating}"


class ReminderDigest(models.Model):
    """The claim for one reminder e-mail: at most one per learner, local date and kind."""

    class Kind(models.TextChoices):
        DIGEST = "digest", _("daily review digest")

    class Status(models.TextChoices):
        CLAIMED = "claimed", _("claimed, not sent yet")
        SENT = "sent", _("sent")
        SKIPPED = "skipped", _("skipped (nothing due, reviewed already, unsubscribed …)")
        FAILED = "failed", _("failed (mail server kept refusing)")

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reminder_digests",
        db_index=False,
        verbose_name=_("learner"),
    )
    local_date = models.DateField(
        help_text=_("The learner's local day this reminder is for."), verbose_name=_("local date")
    )
    kind = models.CharField(
        max_length=10, choices=Kind.choices, default=Kind.DIGEST, verbose_name=_("kind")
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.CLAIMED, verbose_name=_("status")
    )
    claimed_at = models.DateTimeField(verbose_name=_("claimed"))
    enqueued_at = models.DateTimeField(null=True, blank=True, verbose_name=_("enqueued"))
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sent"))
    attempts = models.PositiveSmallIntegerField(default=0, verbose_name=_("send attempts"))
    due_count = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("cards due"))
    last_error = models.TextField(blank=True, verbose_name=_("last error"))
    # The opaque key this e-mail's unsubscribe link carries: it names neither learner nor row.
    unsubscribe_key = models.CharField(
        max_length=32, null=True, blank=True, unique=True, verbose_name=_("unsubscribe key")
    )

    class Meta:
        verbose_name = _("reminder digest")
        verbose_name_plural = _("reminder digests")
        constraints = [
            models.UniqueConstraint(
                fields=["learner", "local_date", "kind"], name="reminderdigest_once_per_day"
            ),
            models.CheckConstraint(
                condition=~Q(status="sent") | Q(sent_at__isnull=False),
                name="reminderdigest_sent_has_time",
            ),
        ]
        indexes = [
            # The planner's dispatch phase reads only claimed rows.
            models.Index(
                fields=["enqueued_at", "id"],
                condition=Q(status="claimed"),
                name="reminderdigest_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for learner {self.learner_id} on {self.local_date}: {self.status}"


class Notification(models.Model):
    """An in-app notification (mobile apps and the web show these), e.g. the daily digest."""

    class Kind(models.TextChoices):
        REVIEW_DIGEST = "review_digest", _("cards due for review")

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        db_index=False,
        verbose_name=_("learner"),
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, verbose_name=_("kind"))
    title = models.CharField(max_length=200, verbose_name=_("title"))
    body = models.TextField(blank=True, verbose_name=_("text"))
    payload = models.JSONField(default=dict, blank=True, verbose_name=_("payload"))
    # One notification per digest, however often the send task runs.
    digest = models.OneToOneField(
        ReminderDigest,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="notification",
        verbose_name=_("digest"),
    )
    created_at = models.DateTimeField(verbose_name=_("created"))
    read_at = models.DateTimeField(null=True, blank=True, verbose_name=_("read"))

    class Meta:
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        indexes = [
            models.Index(fields=["learner", "-created_at"], name="notification_learner_recent")
        ]

    def __str__(self) -> str:
        return f"{self.kind} for learner {self.learner_id}: {self.title}"


class CalendarFeed(models.Model):
    """A learner's private iCalendar address; the token is the credential. A revoked row stays, so
    the old address answers 410; at most one live feed per learner. A password set or "log out
    everywhere" voids it as it does every token: its ``credentials_epoch`` is then behind the
    account's (``accounts.api.credentials_epoch``)."""

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="calendar_feeds",
        verbose_name=_("learner"),
    )
    token = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(verbose_name=_("created at"))
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked at"))
    # The account's credentials epoch when the address was made.
    credentials_epoch = models.PositiveIntegerField(
        default=0, editable=False, verbose_name=_("credentials epoch")
    )

    class Meta:
        verbose_name = _("calendar feed")
        verbose_name_plural = _("calendar feeds")
        constraints = [
            models.UniqueConstraint(
                fields=["learner"],
                condition=Q(revoked_at__isnull=True),
                name="calendarfeed_one_live_per_learner",
            )
        ]

    def __str__(self) -> str:
        state = "revoked" if self.revoked_at else "live"
        return f"calendar feed of learner {self.learner_id} ({state})"


class ParameterFit(models.Model):
    """One fit of FSRS parameters, a learner's own or a module's pooled, with its held-out losses;
    unique per run key, so a run fits each learner and module once."""

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="parameter_fits",
        null=True,
        blank=True,
        db_index=False,
        verbose_name=_("learner"),
    )
    module = models.ForeignKey(
        "courses.Module",
        on_delete=models.CASCADE,
        related_name="parameter_fits",
        null=True,
        blank=True,
        verbose_name=_("module"),
    )
    run_key = models.CharField(max_length=40, verbose_name=_("run"))
    fitted_at = models.DateTimeField(verbose_name=_("fitted at"))
    review_count = models.PositiveIntegerField(verbose_name=_("reviews"))
    parameters = models.JSONField(verbose_name=_("parameters"))
    # Log loss and RMSE(bins) on the held-out reviews: of the fit, and of the parameters in use
    # (a learner's) or of the defaults (a module's).
    log_loss = models.FloatField(verbose_name=_("log loss"))
    log_loss_before = models.FloatField(verbose_name=_("log loss before"))
    rmse_bins = models.FloatField(verbose_name=_("RMSE (bins)"))
    rmse_bins_before = models.FloatField(verbose_name=_("RMSE (bins) before"))
    adopted = models.BooleanField(verbose_name=_("adopted"))

    class Meta:
        verbose_name = _("parameter fit")
        verbose_name_plural = _("parameter fits")
        constraints = [
            models.UniqueConstraint(
                fields=["learner", "run_key"],
                condition=Q(learner__isnull=False),
                name="parameterfit_learner_once_per_run",
            ),
            models.UniqueConstraint(
                fields=["module", "run_key"],
                condition=Q(module__isnull=False),
                name="parameterfit_module_once_per_run",
            ),
            models.CheckConstraint(
                condition=(Q(learner__isnull=False) & Q(module__isnull=True))
                | (Q(learner__isnull=True) & Q(module__isnull=False)),
                name="parameterfit_learner_or_module",
            ),
        ]
        indexes = [models.Index(fields=["learner", "-fitted_at"], name="parameterfit_learner")]

    def __str__(self) -> str:
        subject = f"learner {self.learner_id}" if self.learner_id else f"module {self.module_id}"
        return f"fit of {subject} ({self.run_key}): {'adopted' if self.adopted else 'kept'}"


class LearnerParameters(models.Model):
    """The FSRS parameters a learner's reviews are scheduled with (their last adopted fit)."""

    learner = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="fsrs_parameters",
        verbose_name=_("learner"),
    )
    parameters = models.JSONField(verbose_name=_("parameters"))
    # 1 for the first adopted fit, one more for each one after it.
    version = models.PositiveIntegerField(verbose_name=_("version"))
    fit = models.ForeignKey(
        ParameterFit, on_delete=models.CASCADE, related_name="+", verbose_name=_("fit")
    )

    class Meta:
        verbose_name = _("learner's parameters")
        verbose_name_plural = _("learners' parameters")

    def __str__(self) -> str:
        return f"parameters v{self.version} of learner {self.learner_id}"


class ModuleParameters(models.Model):
    """A module's pooled FSRS parameters: the start for its learners with too few reviews."""

    module = models.OneToOneField(
        "courses.Module",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="fsrs_parameters",
        verbose_name=_("module"),
    )
    parameters = models.JSONField(verbose_name=_("parameters"))
    version = models.PositiveIntegerField(verbose_name=_("version"))
    fit = models.ForeignKey(
        ParameterFit, on_delete=models.CASCADE, related_name="+", verbose_name=_("fit")
    )

    class Meta:
        verbose_name = _("module's pooled parameters")
        verbose_name_plural = _("modules' pooled parameters")

    def __str__(self) -> str:
        return f"pooled parameters v{self.version} of module {self.module_id}"


class ModuleExamPlan(models.Model):
    """A module's exam date for all its learners (set by the course admin) and how far ahead a
    learner may set one of their own."""

    module = models.OneToOneField(
        "courses.Module",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="exam_plan",
        verbose_name=_("module"),
    )
    exam_on = models.DateField(
        null=True,
        blank=True,
        verbose_name=_("exam day"),
        help_text=_("The exam day for every learner of the module who has not set their own."),
    )
    max_days_ahead = models.PositiveSmallIntegerField(
        default=365,
        verbose_name=_("days ahead at most"),
        help_text=_("How many days ahead a learner may set an exam date (1–3650)."),
    )

    class Meta:
        verbose_name = _("module exam plan")
        verbose_name_plural = _("module exam plans")
        constraints = [
            models.CheckConstraint(
                condition=Q(max_days_ahead__gte=1) & Q(max_days_ahead__lte=3650),
                name="moduleexamplan_days_ahead_range",
            )
        ]

    def __str__(self) -> str:
        return f"exam plan of module {self.module_id}"


class ExamDate(models.Model):
    """A learner's own exam date for a module; their cards of it are scheduled for that day."""

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="exam_dates",
        db_index=False,
        verbose_name=_("learner"),
    )
    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    exam_on = models.DateField(verbose_name=_("exam day"))
    set_at = models.DateTimeField(verbose_name=_("set at"))

    class Meta:
        verbose_name = _("exam date")
        verbose_name_plural = _("exam dates")
        constraints = [
            models.UniqueConstraint(fields=["learner", "module"], name="examdate_once_per_module")
        ]

    def __str__(self) -> str:
        return f"exam of learner {self.learner_id} in module {self.module_id} on {self.exam_on}"
