"""Quick-check ratings, the exam item bank, policy, attempts, results and certificates.
An attempt copies the items it shows, so editing the bank never changes a past attempt."""

from __future__ import annotations

from decimal import Decimal
from html import unescape

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.formats import number_format
from django.utils.html import strip_tags
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from quizzes import attempt_rules
from quizzes.answers import (
    MATCHING,
    MULTIPLE_CHOICE,
    NUMERICAL,
    SHORT_ANSWER,
    SINGLE_CHOICE,
    TRUE_FALSE,
    TYPED_KINDS,
    answer_key_errors,
)

# Every kind of exam item, as the database checks it.
ITEM_KINDS = [SINGLE_CHOICE, MULTIPLE_CHOICE, TRUE_FALSE, SHORT_ANSWER, NUMERICAL, MATCHING]


class QuickCheckRating(models.Model):
    """A learner's latest self-rating of one quick check (one row per learner and quick check)."""

    class Rating(models.TextChoices):
        KNEW = "knew", _("knew it")
        PARTLY = "partly", _("partly")
        NOT_YET = "not_yet", _("not yet")

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="quick_check_ratings",
        verbose_name=_("learner"),
    )
    quick_check = models.ForeignKey(
        "courses.QuickCheck",
        on_delete=models.CASCADE,
        related_name="ratings",
        verbose_name=_("quick check"),
    )
    # The step where the learner last rated it (a generic quick check is shown by many steps).
    step = models.ForeignKey(
        "courses.Step", on_delete=models.CASCADE, related_name="+", verbose_name=_("step")
    )
    rating = models.CharField(max_length=10, choices=Rating.choices, verbose_name=_("rating"))
    times_rated = models.PositiveIntegerField(default=1, verbose_name=_("times rated"))
    first_rated_at = models.DateTimeField(verbose_name=_("first rated"))
    updated_at = models.DateTimeField(verbose_name=_("updated"))

    class Meta:
        verbose_name = _("quick-check rating")
        verbose_name_plural = _("quick-check ratings")
        constraints = [
            models.UniqueConstraint(
                fields=["learner", "quick_check"], name="quickcheckrating_unique"
            ),
            models.CheckConstraint(
                condition=Q(rating__in=["knew", "partly", "not_yet"]),
                name="quickcheckrating_rating_known",
            ),
        ]

    def __str__(self) -> str:
        return gettext("Rating of %(learner)s: %(rating)s") % {
            "learner": self.learner.certificate_name,
            "rating": self.get_rating_display(),
        }


class QuickCheckRatingEvent(models.Model):
    """Every self-rating as it happened (the history behind ``QuickCheckRating``)."""

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("learner"),
    )
    quick_check = models.ForeignKey(
        "courses.QuickCheck",
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("quick check"),
    )
    step = models.ForeignKey(
        "courses.Step", on_delete=models.CASCADE, related_name="+", verbose_name=_("step")
    )
    rating = models.CharField(
        max_length=10, choices=QuickCheckRating.Rating.choices, verbose_name=_("rating")
    )
    rated_at = models.DateTimeField(verbose_name=_("rated"))

    class Meta:
        verbose_name = _("quick-check rating event")
        verbose_name_plural = _("quick-check rating events")
        indexes = [models.Index(fields=["learner", "quick_check", "rated_at"])]

    def __str__(self) -> str:
        return f"{self.learner_id}/{self.quick_check_id}: {self.rating} at {self.rated_at}"


class ExamItemQuerySet(models.QuerySet):
    """The bank's recurring filters, named after the rules they are."""

    def drawable(self) -> ExamItemQuerySet:
        """Items an attempt may draw: active, not retired, not rejected (drafts and approved)."""
        return self.filter(is_active=True, is_retired=False).exclude(
            status=ExamItem.Status.REJECTED
        )

    def approved(self) -> ExamItemQuerySet:
        """Drawable items a course admin approved: what a certifying exam draws from."""
        return self.filter(is_active=True, is_retired=False, status=ExamItem.Status.APPROVED)


class ExamItem(models.Model):
    """One question of a module's exam bank, generated or hand-written; a draft until reviewed."""

    class Kind(models.TextChoices):
        SINGLE_CHOICE = "single_choice", _("single choice")
        MULTIPLE_CHOICE = "multiple_choice", _("multiple choice")
        TRUE_FALSE = "true_false", _("true/false")
        # The typed kinds: the answer is in ``answer_key`` (quizzes/answers.py), not in options.
        SHORT_ANSWER = "short_answer", _("short answer")
        NUMERICAL = "numerical", _("numerical")
        MATCHING = "matching", _("matching")

    class Origin(models.TextChoices):
        GENERATED = "generated", _("generated from the content")
        HAND_WRITTEN = "hand_written", _("hand-written")

    # --- review of the bank ---
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft (not reviewed)")
        APPROVED = "approved", _("approved")
        REJECTED = "rejected", _("rejected (never drawn)")

    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    step = models.ForeignKey(
        "courses.Step",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("step"),
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, verbose_name=_("kind"))
    prompt = models.TextField(verbose_name=_("prompt"))
    # Choice kinds: the options and the correct ones. Empty for the typed kinds.
    options = models.JSONField(
        default=list,
        blank=True,
        help_text='[{"key": "a", "text": "..."}, ...]',
        verbose_name=_("options"),
    )
    correct_keys = models.JSONField(
        default=list,
        blank=True,
        help_text='The keys of the correct options, e.g. ["b"].',
        verbose_name=_("correct options"),
    )
    explanation = models.TextField(blank=True, verbose_name=_("explanation"))
    # --- the typed kinds and GIFT (quizzes/answers.py, quizzes/gift.py) ---
    # The answer of a short-answer, numerical or matching item; {} for the choice kinds.
    answer_key = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            'Short answer: {"accepted": ["..."]}; numerical: {"answers": [{"value": "14", '
            '"tolerance": "0.5"} or {"min": "13", "max": "15"}]}; matching: {"pairs": '
            '[{"left": "...", "right": "..."}]}. Empty ({}) for choice items.'
        ),
        verbose_name=_("answer key"),
    )
    # The question's name in Moodle (GIFT ``::title::``); not shown to learners.
    title = models.CharField(max_length=255, blank=True, default="", verbose_name=_("title"))
    # --- end of the typed kinds ---
    # "html": prompt, options, feedback and explanation are HTML, sanitised on the way in
    # (quizzes/item_html.py); "plain": text, shown with its line breaks.
    text_format = models.CharField(
        max_length=10,
        choices=[("plain", _("plain text")), ("html", _("HTML"))],
        default="plain",
        verbose_name=_("text format"),
    )
    # Feedback on single answers (GIFT "#…"): by option key, or by the index of an accepted
    # answer ("0", "1", …) for short-answer and numerical items. Shown with the answers.
    answer_feedback = models.JSONField(
        default=dict, blank=True, verbose_name=_("feedback on single answers")
    )
    # GIFT's $CATEGORY: and the comment lines before a question: kept for the round trip.
    category = models.CharField(
        max_length=255, blank=True, default="", verbose_name=_("question category")
    )
    gift_comment = models.TextField(blank=True, default="", verbose_name=_("GIFT comment"))
    origin = models.CharField(
        max_length=20, choices=Origin.choices, default=Origin.HAND_WRITTEN, verbose_name=_("origin")
    )
    # Stable identity of a generated item ("<step slug>:<template>"): regeneration updates the
    # row with the same key in place. Empty for hand-written items.
    generator_key = models.CharField(
        max_length=200, null=True, blank=True, editable=False, verbose_name=_("generator key")
    )
    # Admin switch: an inactive item is never drawn. Regeneration never changes it.
    is_active = models.BooleanField(default=True, verbose_name=_("active"))
    # Set by regeneration when the generator no longer produces the item (its step was retired).
    is_retired = models.BooleanField(default=False, editable=False, verbose_name=_("retired"))
    # Review: who approved or rejected the item and when (``quizzes.services.item_review``).
    # The reviewer is a course admin; deleting their account keeps the decision.
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.DRAFT, verbose_name=_("status")
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("reviewed by"),
    )
    reviewed_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        verbose_name=pgettext_lazy("when an exam item was approved or rejected", "reviewed on"),
    )
    # The decision a regeneration undid when it changed the item's content, with the hash of the
    # content it vouched for: the same content again brings the decision back (an undo).
    # {} when there is none; any new decision clears it (``item_review.review_fields``).
    review_before_change = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        verbose_name=_("decision before the last content change"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated"))

    objects = ExamItemQuerySet.as_manager()

    class Meta:
        verbose_name = _("exam item")
        verbose_name_plural = _("exam items")
        ordering = ["module", "step", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["module", "generator_key"],
                condition=Q(generator_key__isnull=False),
                name="examitem_generator_key_unique",
            ),
            models.CheckConstraint(
                condition=(Q(origin="generated") & Q(generator_key__isnull=False))
                | (Q(origin="hand_written") & Q(generator_key__isnull=True)),
                name="examitem_generated_has_key",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=ITEM_KINDS),
                name="examitem_kind_known",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "approved", "rejected"]),
                name="examitem_status_known",
            ),
            # A decision has a time; a draft has none (editing an approved item clears it).
            models.CheckConstraint(
                condition=(Q(status="draft") & Q(reviewed_at__isnull=True))
                | (~Q(status="draft") & Q(reviewed_at__isnull=False)),
                name="examitem_reviewed_when_decided",
            ),
        ]
        indexes = [models.Index(fields=["module", "is_active", "is_retired"])]

    def clean(self) -> None:
        """The options and correct keys must fit the kind (admin forms call this)."""
        # An empty JSON field in the admin's form arrives as None; the columns hold [] and {}.
        self.options = [] if self.options is None else self.options
        self.correct_keys = [] if self.correct_keys is None else self.correct_keys
        self.answer_key = {} if self.answer_key is None else self.answer_key
        errors = {}
        shape = exam_item_shape_errors(
            kind=self.kind, options=self.options, correct_keys=self.correct_keys
        )
        if shape:
            errors["options"] = shape
        key_errors = answer_key_errors(kind=self.kind, answer_key=self.answer_key)
        if key_errors:
            errors["answer_key"] = key_errors
        if self.step_id and self.module_id and self.step.module_id != self.module_id:
            errors["step"] = ["The step must belong to the item's module."]
        if errors:
            raise ValidationError(errors)

    def plain_prompt(self) -> str:
        """The prompt as one line of text (an HTML item without its tags), for lists and titles."""
        if self.text_format != "html":
            return self.prompt
        return " ".join(unescape(strip_tags(self.prompt)).split())

    def __str__(self) -> str:
        return self.plain_prompt()[:80]


def exam_item_shape_errors(*, kind: str, options, correct_keys) -> list[str]:
    """What is wrong with an item's options/correct keys for its kind (empty list: fine)."""
    if kind in TYPED_KINDS:
        # Their answer is the answer key (``answer_key_errors``); options are drawn from it.
        if options or correct_keys:
            return ["A short-answer, numerical or matching item has no options or correct keys."]
        return []
    errors: list[str] = []
    if not isinstance(options, list) or not all(
        isinstance(o, dict)
        and isinstance(o.get("key"), str)
        and o["key"]
        and isinstance(o.get("text"), str)
        and o["text"].strip()
        for o in options
    ):
        return ['Options must be a list of {"key": "...", "text": "..."} with non-empty values.']
    keys = [o["key"] for o in options]
    if len(set(keys)) != len(keys):
        errors.append("Option keys must be distinct.")
    texts = [" ".join(o["text"].casefold().split()) for o in options]
    if len(set(texts)) != len(texts):
        errors.append("Option texts must be distinct.")
    if not isinstance(correct_keys, list) or not all(isinstance(k, str) for k in correct_keys):
        return [*errors, "Correct keys must be a list of option keys."]
    if not set(correct_keys) <= set(keys) or len(set(correct_keys)) != len(correct_keys):
        errors.append("Every correct key must be one of the option keys, once.")
    if kind == ExamItem.Kind.TRUE_FALSE and sorted(keys) != ["false", "true"]:
        errors.append('A true/false item has exactly the options "true" and "false".')
    if kind in (ExamItem.Kind.SINGLE_CHOICE, ExamItem.Kind.TRUE_FALSE) and len(correct_keys) != 1:
        errors.append("This kind has exactly one correct key.")
    if kind == ExamItem.Kind.MULTIPLE_CHOICE and not correct_keys:
        errors.append("A multiple-choice item needs at least one correct key.")
    if kind != ExamItem.Kind.TRUE_FALSE and len(keys) < 2:
        errors.append("A choice item needs at least two options.")
    return errors


class ExamPolicy(models.Model):
    """How a module's exam runs; created with the defaults on first use, edited in the admin."""

    class GradingMethod(models.TextChoices):
        HIGHEST = "highest", _("highest attempt")
        LAST = "last", _("last attempt")
        FIRST = "first", _("first attempt")
        AVERAGE = "average", _("average of all attempts")

    class ReviewContent(models.TextChoices):
        SCORE_ONLY = "score_only", _("score only")
        CORRECTNESS = "correctness", _("correctness per item")
        CORRECT_ANSWERS = "correct_answers", _("correctness and the correct answers")

    class ReviewTiming(models.TextChoices):
        IMMEDIATELY = "immediately", _("immediately after the attempt")
        AFTER_PASSING = "after_passing", _("once the learner has passed")
        AFTER_LAST_ATTEMPT = "after_last_attempt", _("once no attempt is left (or passed)")

    module = models.OneToOneField(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    items_per_attempt = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(200)],
        verbose_name=_("items per attempt"),
    )
    time_limit_minutes = models.PositiveSmallIntegerField(
        default=20,
        validators=[MinValueValidator(1), MaxValueValidator(600)],
        verbose_name=_("time limit (minutes)"),
    )
    pass_mark_percent = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("80.00"),
        validators=[MinValueValidator(Decimal(0)), MaxValueValidator(Decimal(100))],
        verbose_name=_("pass mark (%)"),
    )
    max_attempts = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        verbose_name=_("maximum attempts"),
    )
    wait_between_attempts_minutes = models.PositiveIntegerField(
        default=0,
        help_text=_("Minutes between finishing an attempt and starting the next."),
        verbose_name=_("wait between attempts (minutes)"),
    )
    grading_method = models.CharField(
        max_length=10,
        choices=GradingMethod.choices,
        default=GradingMethod.HIGHEST,
        verbose_name=_("grading method"),
    )
    review_content = models.CharField(
        max_length=20,
        choices=ReviewContent.choices,
        default=ReviewContent.CORRECTNESS,
        verbose_name=_("review content"),
    )
    review_timing = models.CharField(
        max_length=20,
        choices=ReviewTiming.choices,
        default=ReviewTiming.AFTER_LAST_ATTEMPT,
        verbose_name=_("review timing"),
    )
    # Share of the module's active steps a learner must have completed before starting.
    required_step_share = models.PositiveSmallIntegerField(
        _("required share of steps completed (%)"),
        default=100,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text=_("0: no steps needed; 100: every step (the default)."),
    )
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated"))

    class Meta:
        verbose_name = _("exam policy")
        verbose_name_plural = _("exam policies")
        constraints = [
            models.CheckConstraint(
                condition=Q(items_per_attempt__gte=1), name="exampolicy_items_positive"
            ),
            models.CheckConstraint(
                condition=Q(time_limit_minutes__gte=1), name="exampolicy_time_positive"
            ),
            models.CheckConstraint(
                condition=Q(max_attempts__gte=1), name="exampolicy_attempts_positive"
            ),
            models.CheckConstraint(
                condition=Q(pass_mark_percent__gte=0) & Q(pass_mark_percent__lte=100),
                name="exampolicy_pass_mark_range",
            ),
            models.CheckConstraint(
                condition=Q(required_step_share__lte=100), name="exampolicy_step_share_range"
            ),
        ]

    def __str__(self) -> str:
        return _("Exam policy · module %(module)s") % {"module": self.module.number}

    @property
    def requires_all_steps_completed(self) -> bool:
        return self.required_step_share >= 100


class ExamAttempt(models.Model):
    """One try at a module's exam. It is finalized once it has its ``ExamResult``."""

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="exam_attempts",
        verbose_name=_("learner"),
    )
    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    policy = models.ForeignKey(
        ExamPolicy, on_delete=models.PROTECT, related_name="attempts", verbose_name=_("exam policy")
    )
    number = models.PositiveSmallIntegerField(
        help_text=_("1 for the learner's first attempt."), verbose_name=_("attempt number")
    )
    # Seed of the draw and of the option order: the attempt can be reproduced from it.
    seed = models.BigIntegerField(verbose_name=_("seed"))
    item_count = models.PositiveSmallIntegerField(verbose_name=_("items"))
    # Graded with the pass mark in force when the attempt started.
    pass_mark_percent = models.DecimalField(
        max_digits=5, decimal_places=2, verbose_name=_("pass mark (%)")
    )
    # Decided at the start: certifying (approved items only) or practice.
    certifying = models.BooleanField(verbose_name=_("certifying"))
    started_at = models.DateTimeField(verbose_name=_("started"))
    deadline_at = models.DateTimeField(verbose_name=_("deadline"))

    class Meta:
        verbose_name = _("exam attempt")
        verbose_name_plural = _("exam attempts")
        ordering = ["learner", "module", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["learner", "module", "number"], name="examattempt_number_unique"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="examattempt_number_positive"),
            models.CheckConstraint(
                condition=Q(deadline_at__gt=models.F("started_at")),
                name="examattempt_deadline_after_start",
            ),
        ]
        indexes = [models.Index(fields=["deadline_at"])]

    def __str__(self) -> str:
        return _("Attempt %(number)d by %(learner)s · module %(module)s") % {
            "number": self.number,
            "learner": self.learner.certificate_name,
            "module": self.module.number,
        }


class ExamAttemptItem(models.Model):
    """An item as one attempt showed it, with the learner's saved answer. Updated in place on
    unindexed columns, so the table has fillfactor 70 (HOT updates)."""

    attempt = models.ForeignKey(
        ExamAttempt,
        on_delete=models.CASCADE,
        related_name="items",
        db_index=False,
        verbose_name=_("attempt"),
    )
    position = models.PositiveSmallIntegerField(verbose_name=_("position"))
    item = models.ForeignKey(
        ExamItem,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="attempt_items",
        verbose_name=_("bank item"),
    )
    kind = models.CharField(max_length=20, choices=ExamItem.Kind.choices, verbose_name=_("kind"))
    prompt = models.TextField(verbose_name=_("prompt"))
    options = models.JSONField(
        help_text=_("The options in the order this attempt showed them."), verbose_name=_("options")
    )
    correct_keys = models.JSONField(verbose_name=_("correct options"))
    explanation = models.TextField(blank=True, verbose_name=_("explanation"))
    # The bank item's text format and feedback on single answers, keyed as this copy's
    # options (relabelled) or accepted answers: shown when the review reveals the answers.
    text_format = models.CharField(max_length=10, default="plain", verbose_name=_("text format"))
    answer_feedback = models.JSONField(
        default=dict, blank=True, verbose_name=_("feedback on single answers")
    )
    selected_keys = models.JSONField(null=True, blank=True, verbose_name=_("selected options"))
    # --- the typed kinds (quizzes/answers.py); NULL for the choice kinds ---
    # Matching: the answers to choose from, in the order shown ([{"key": "1", "text": ...}]).
    choices = models.JSONField(null=True, blank=True, verbose_name=_("choices"))
    # The answer key as this attempt shows the item (matching: {"pairs": {"a": "2", ...}}).
    answer_key = models.JSONField(null=True, blank=True, verbose_name=_("answer key"))
    # Short answer and numerical: what the learner typed (a number as typed: "7,5").
    answer_text = models.TextField(null=True, blank=True, verbose_name=_("answer text"))
    # Matching: the learner's pairs, {"a": "2", ...} (option key -> choice key).
    answer_pairs = models.JSONField(null=True, blank=True, verbose_name=_("answer pairs"))
    # --- end of the typed kinds ---
    answered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("answered"))
    # Set when the attempt is finalized.
    is_correct = models.BooleanField(null=True, blank=True, verbose_name=_("correct"))

    class Meta:
        verbose_name = _("item of an attempt")
        verbose_name_plural = _("items of attempts")
        ordering = ["attempt", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["attempt", "position"], name="examattemptitem_position_unique"
            ),
        ]

    def __str__(self) -> str:
        return _("Question %(position)d of the attempt") % {"position": self.position}


class ExamResult(models.Model):
    """The one graded result of an attempt: the OneToOne key makes a second grading impossible."""

    class Reason(models.TextChoices):
        SUBMITTED = attempt_rules.SUBMITTED, _("submitted by the learner")
        EXPIRED = attempt_rules.EXPIRED, _("finalized after the deadline")

    attempt = models.OneToOneField(
        ExamAttempt, on_delete=models.CASCADE, related_name="result", verbose_name=_("attempt")
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("learner"),
    )
    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    score_percent = models.DecimalField(max_digits=5, decimal_places=2, verbose_name=_("score (%)"))
    correct_count = models.PositiveSmallIntegerField(verbose_name=_("correct answers"))
    item_count = models.PositiveSmallIntegerField(verbose_name=_("items"))
    passed = models.BooleanField(verbose_name=_("passed"))
    reason = models.CharField(max_length=10, choices=Reason.choices, verbose_name=_("reason"))
    finalized_at = models.DateTimeField(verbose_name=_("finalized"))

    class Meta:
        verbose_name = _("exam result")
        verbose_name_plural = _("exam results")
        constraints = [
            models.CheckConstraint(
                condition=Q(score_percent__gte=0) & Q(score_percent__lte=100),
                name="examresult_score_range",
            ),
            models.CheckConstraint(
                condition=Q(correct_count__lte=models.F("item_count")),
                name="examresult_correct_le_items",
            ),
        ]
        indexes = [models.Index(fields=["module", "learner"])]

    def __str__(self) -> str:
        return _("Result of %(attempt)s: %(score)s %%") % {
            "attempt": self.attempt,
            "score": self.score_percent,
        }


class Certificate(models.Model):
    """Proof that a learner passed a module's exam; anyone with the code can verify it."""

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="certificates",
        verbose_name=_("learner"),
    )
    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    attempt = models.OneToOneField(
        ExamAttempt, on_delete=models.PROTECT, related_name="+", verbose_name=_("attempt")
    )
    # secrets.token_urlsafe: unguessable, so the public page cannot be enumerated.
    code = models.CharField(max_length=64, unique=True, verbose_name=_("code"))
    # Snapshots at issue: renaming the account later leaves the certificate's name as it is.
    learner_name = models.CharField(max_length=200, verbose_name=_("name on the certificate"))
    score_percent = models.DecimalField(max_digits=5, decimal_places=2, verbose_name=_("score (%)"))
    issued_at = models.DateTimeField(verbose_name=_("issued"))
    # Revoked by a course admin: the row stays, the public page says so.
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked"))
    revocation_reason = models.CharField(
        max_length=200, blank=True, db_default="", verbose_name=_("revocation reason")
    )

    class Meta:
        verbose_name = _("certificate")
        verbose_name_plural = _("certificates")
        constraints = [
            models.UniqueConstraint(fields=["learner", "module"], name="certificate_unique"),
        ]

    def __str__(self) -> str:
        return _("Certificate of %(name)s · module %(module)s") % {
            "name": self.learner_name,
            "module": self.module.number,
        }


class ExamAccommodation(models.Model):
    """A learner's own exam conditions in one module: extra minutes per attempt, extra attempts."""

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="exam_accommodations",
        verbose_name=_("learner"),
    )
    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    extra_time_minutes = models.PositiveSmallIntegerField(
        default=0,
        validators=[MaxValueValidator(600)],
        help_text=_("Added to the policy's time limit of every attempt this learner starts."),
        verbose_name=_("extra time (minutes)"),
    )
    extra_attempts = models.PositiveSmallIntegerField(
        default=0,
        validators=[MaxValueValidator(100)],
        help_text=_("Added to the policy's maximum number of attempts."),
        verbose_name=_("extra attempts"),
    )
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated"))

    class Meta:
        verbose_name = _("exam accommodation")
        verbose_name_plural = _("exam accommodations")
        constraints = [
            models.UniqueConstraint(fields=["learner", "module"], name="examaccommodation_unique"),
            models.CheckConstraint(
                condition=Q(extra_time_minutes__lte=600) & Q(extra_attempts__lte=100),
                name="examaccommodation_range",
            ),
        ]

    def __str__(self) -> str:
        return _("%(learner)s in module %(module)s: +%(minutes)d min, +%(attempts)d attempt(s)") % {
            "learner": self.learner.certificate_name,
            "module": self.module.number,
            "minutes": self.extra_time_minutes,
            "attempts": self.extra_attempts,
        }


class ArchivedItemResponse(models.Model):
    """An anonymous answer kept when a learner deletes the account, so item statistics stay
    right; ``respondent`` groups one former learner's answers."""

    item = models.ForeignKey(
        ExamItem,
        on_delete=models.CASCADE,
        related_name="archived_responses",
        verbose_name=_("item"),
    )
    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    respondent = models.UUIDField(verbose_name=_("respondent"))
    attempt_number = models.PositiveSmallIntegerField(verbose_name=_("attempt number"))
    attempt_score = models.DecimalField(
        max_digits=5, decimal_places=2, verbose_name=_("attempt score")
    )
    is_correct = models.BooleanField(verbose_name=_("correct"))
    # Where the attempt showed the item: the exam's internal consistency counts by position.
    # Empty for answers kept before positions were.
    position = models.PositiveSmallIntegerField(null=True, verbose_name=_("position"))

    class Meta:
        verbose_name = _("archived item response")
        verbose_name_plural = _("archived item responses")
        indexes = [models.Index(fields=["module", "respondent"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(attempt_score__gte=0) & Q(attempt_score__lte=100),
                name="archiveditemresponse_score_range",
            ),
        ]

    def __str__(self) -> str:
        return gettext("Kept anonymous answer to item %(item)s") % {"item": self.item_id}


class ExamRegrade(models.Model):
    """The audit line of one regrade: who corrected which item's key and regraded, when, with
    the key the attempts were regraded to (``quizzes.services.regrade``)."""

    item = models.ForeignKey(
        ExamItem,
        on_delete=models.SET_NULL,
        null=True,
        related_name="regrades",
        verbose_name=_("item"),
    )
    # Snapshots: the audit line stays readable when the item or the admin's account is gone.
    item_prompt = models.TextField(verbose_name=_("question"))
    key = models.JSONField(verbose_name=_("key regraded to"))
    performed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("regraded by"),
    )
    performed_by_name = models.CharField(max_length=150, verbose_name=_("regraded by"))
    performed_at = models.DateTimeField(verbose_name=_("regraded"))
    attempts_changed = models.PositiveIntegerField(verbose_name=_("attempts changed"))

    class Meta:
        verbose_name = _("regrade")
        verbose_name_plural = _("regrades")
        ordering = ["-performed_at", "-id"]

    def __str__(self) -> str:
        return _("Regrade of question %(item)s by %(name)s") % {
            "item": self.item_id or "–",
            "name": self.performed_by_name,
        }


class ExamRegradeLearner(models.Model):
    """One learner's final result before and after a regrade, and what it did to their
    certificate; ``attempts`` lists each changed attempt's score before and after."""

    class CertificateAction(models.TextChoices):
        NONE = "none", _("unchanged")
        ISSUED = "issued", pgettext_lazy("certificate action", "issued")
        REVOKED = "revoked", pgettext_lazy("certificate action", "revoked")
        REINSTATED = "reinstated", pgettext_lazy("certificate action", "reinstated")
        SCORE_UPDATED = "score_updated", pgettext_lazy("certificate action", "score updated")

    regrade = models.ForeignKey(
        ExamRegrade, on_delete=models.CASCADE, related_name="learners", verbose_name=_("regrade")
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("learner"),
    )
    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    # [{"attempt_id", "number", "score_before", "score_after"}], scores as decimal strings.
    attempts = models.JSONField(verbose_name=_("attempts"))
    grade_before = models.DecimalField(
        max_digits=5, decimal_places=2, null=True, verbose_name=_("grade before")
    )
    grade_after = models.DecimalField(
        max_digits=5, decimal_places=2, null=True, verbose_name=_("grade after")
    )
    passed_before = models.BooleanField(verbose_name=_("passed before"))
    passed_after = models.BooleanField(verbose_name=_("passed after"))
    certificate = models.ForeignKey(
        Certificate,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("certificate"),
    )
    certificate_action = models.CharField(
        max_length=20,
        choices=CertificateAction.choices,
        verbose_name=_("certificate"),
    )

    class Meta:
        verbose_name = _("regraded learner")
        verbose_name_plural = _("regraded learners")
        constraints = [
            models.UniqueConstraint(
                fields=["regrade", "learner", "module"], name="examregradelearner_unique"
            ),
            models.CheckConstraint(
                condition=Q(
                    certificate_action__in=[
                        "none",
                        "issued",
                        "revoked",
                        "reinstated",
                        "score_updated",
                    ]
                ),
                name="examregradelearner_action_known",
            ),
        ]

    def __str__(self) -> str:
        return _("%(learner)s: %(before)s → %(after)s") % {
            "learner": self.learner.certificate_name,
            "before": "–" if self.grade_before is None else number_format(self.grade_before, 2),
            "after": "–" if self.grade_after is None else number_format(self.grade_after, 2),
        }
