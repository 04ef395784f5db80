"""Course content: modules, their steps, sections, quick checks and term cards.

Rows are identified by natural keys (module slug, term slug) so learner data that points at a
step survives re-imports. Steps that leave a document are retired, never deleted.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.functions import RandomUUID
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from courses import quick_check_roles


class ModuleManager(models.Manager):
    def get_by_natural_key(self, slug: str) -> Module:
        return self.get(slug=slug)


class Module(models.Model):
    """One course module, e.g. "Self-Hosting 27: GPU, CUDA und Inferenzoptimierung"."""

    slug = models.SlugField(max_length=120, unique=True, verbose_name=_("slug"))
    series = models.CharField(max_length=120, verbose_name=_("series"))
    number = models.PositiveIntegerField(verbose_name=_("number"))
    title = models.CharField(max_length=255, verbose_name=_("title"))
    header = models.CharField(
        max_length=400, help_text=_("The header line as in the document."), verbose_name=_("header")
    )
    source_path = models.CharField(max_length=400, verbose_name=_("source file"))
    exam_header = models.CharField(max_length=400, blank=True, verbose_name=_("exam header"))
    exam_heading = models.CharField(max_length=200, blank=True, verbose_name=_("exam heading"))
    exam_blocks = models.JSONField(default=list, blank=True, verbose_name=_("exam blocks"))
    exam_block_count = models.PositiveIntegerField(default=0, verbose_name=_("exam blocks"))
    # Renewed by every write of the module's content: the key of its cached content. The
    # database default also fills rows written by older migrations' models.
    content_version = models.UUIDField(
        default=uuid.uuid4, db_default=RandomUUID(), editable=False, verbose_name=_("version")
    )

    objects = ModuleManager()

    class Meta:
        verbose_name = _("module")
        verbose_name_plural = _("modules")
        ordering = ["series", "number"]
        constraints = [
            models.UniqueConstraint(fields=["series", "number"], name="module_series_number_unique")
        ]

    def natural_key(self) -> tuple[str]:
        return (self.slug,)

    def __str__(self) -> str:
        return self.header


STEP_ACTIVE = "active"


def active_step_q(path: str = "") -> Q:
    """``Q`` for "the step is active", for a query that reaches the step through ``path``
    (``"step__"`` from a row with a step foreign key; ``""`` on Step itself)."""
    return Q(**{f"{path}status": STEP_ACTIVE})


class StepQuerySet(models.QuerySet):
    def active(self) -> StepQuerySet:
        """Steps still in their document (retired ones are kept for their learner data)."""
        return self.filter(active_step_q())

    def retired(self) -> StepQuerySet:
        return self.exclude(active_step_q())


class StepManager(models.Manager.from_queryset(StepQuerySet)):
    def get_by_natural_key(self, module_slug: str, slug: str) -> Step:
        return self.get(module__slug=module_slug, slug=slug)


class Step(models.Model):
    """A step of a module: one term with its lead, level and sections."""

    class Status(models.TextChoices):
        ACTIVE = STEP_ACTIVE, _("active")
        RETIRED = "retired", _("retired (gone from the document)")

    module = models.ForeignKey(
        Module, on_delete=models.CASCADE, related_name="steps", verbose_name=_("module")
    )
    slug = models.SlugField(
        max_length=120, help_text=_("Stable key: the term, slugified."), verbose_name=_("slug")
    )
    number = models.PositiveIntegerField(verbose_name=_("number"))
    total = models.PositiveIntegerField(
        help_text=_("The n of 'Schritt i / n' in the source."),
        verbose_name=_("steps in the document"),
    )
    term = models.CharField(max_length=200, verbose_name=_("term"))
    lead = models.TextField(
        help_text=_("Lead paragraph; its first sentence is the definition."), verbose_name=_("lead")
    )
    definition = models.TextField(verbose_name=_("definition"))
    level = models.CharField(max_length=10, verbose_name=_("level"))
    as_of = models.DateField(null=True, blank=True, verbose_name=_("as of"))
    source_count = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("number of sources")
    )
    source_status = models.CharField(max_length=60, blank=True, verbose_name=_("source status"))
    footer = models.CharField(max_length=400, blank=True, verbose_name=_("footer"))
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.ACTIVE, verbose_name=_("status")
    )
    retired_at = models.DateTimeField(null=True, blank=True, verbose_name=_("retired"))
    source_line = models.PositiveIntegerField(default=0, verbose_name=_("source line"))
    # Hash of the document block last imported: an unchanged block is skipped on re-import, so
    # admin edits survive until the document itself changes.
    source_hash = models.CharField(max_length=64, editable=False, verbose_name=_("source hash"))
    # Hash of the content as served (the ETag); recomputed whenever the content changes.
    content_hash = models.CharField(max_length=64, editable=False, verbose_name=_("content hash"))

    objects = StepManager()

    class Meta:
        verbose_name = _("step")
        verbose_name_plural = _("steps")
        ordering = ["module", "number"]
        constraints = [
            models.UniqueConstraint(fields=["module", "slug"], name="step_module_slug_unique"),
            models.UniqueConstraint(
                fields=["module", "number"],
                condition=active_step_q(),
                name="step_active_number_unique",
            ),
        ]
        indexes = [
            models.Index(fields=["module", "status", "number"]),
            # The few retired steps, for the due queue (courses.api.retired_content).
            models.Index(fields=["id"], condition=~active_step_q(), name="step_not_active"),
        ]

    def natural_key(self) -> tuple[str, str]:
        return (*self.module.natural_key(), self.slug)

    natural_key.dependencies = ["courses.module"]

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    def __str__(self) -> str:
        return f"{self.number}. {self.term}"


class TermCardManager(models.Manager):
    def get_by_natural_key(self, module_slug: str, slug: str) -> TermCard:
        return self.get(module__slug=module_slug, slug=slug)


class TermCard(models.Model):
    """A "Lernbegriff" card; it belongs to the step of the same term in the same module."""

    module = models.ForeignKey(
        Module, on_delete=models.CASCADE, related_name="term_cards", verbose_name=_("module")
    )
    step = models.OneToOneField(
        Step, on_delete=models.CASCADE, related_name="term_card", verbose_name=_("step")
    )
    slug = models.SlugField(max_length=120, verbose_name=_("slug"))
    term = models.CharField(max_length=200, verbose_name=_("term"))
    kind_line = models.CharField(max_length=60, default="Lernbegriff", verbose_name=_("kind line"))
    title_line = models.CharField(max_length=400, verbose_name=_("title line"))
    lead = models.TextField(verbose_name=_("lead"))
    command = models.CharField(max_length=200, blank=True, verbose_name=_("command"))
    source_path = models.CharField(max_length=400, verbose_name=_("source file"))
    source_hash = models.CharField(max_length=64, editable=False, verbose_name=_("source hash"))
    content_hash = models.CharField(max_length=64, editable=False, verbose_name=_("content hash"))

    objects = TermCardManager()

    class Meta:
        verbose_name = _("term card")
        verbose_name_plural = _("term cards")
        ordering = ["module", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["module", "slug"], name="termcard_module_slug_unique")
        ]

    def natural_key(self) -> tuple[str, str]:
        return (*self.module.natural_key(), self.slug)

    natural_key.dependencies = ["courses.module", "courses.step"]

    def __str__(self) -> str:
        return self.title_line


class SectionManager(models.Manager):
    def get_by_natural_key(self, owner: str, module_slug: str, slug: str, position: int):
        if owner == "step":
            return self.get(step__module__slug=module_slug, step__slug=slug, position=position)
        return self.get(card__module__slug=module_slug, card__slug=slug, position=position)


class Section(models.Model):
    """A section of a step or of a term card, in document order, with its original heading."""

    class Kind(models.TextChoices):
        # Module steps
        VERSTEHEN = "verstehen", "1. Verstehen"
        ANWENDEN = "anwenden", "2. Anwenden"
        UEBUNG = "uebung", "Übung"
        EINORDNEN = "einordnen", "3. Technisch einordnen"
        VERTIEFEN = "vertiefen", "4. Vertiefen"
        PRUEFEN = "pruefen", "5. Prüfen"
        ZUSAMMENFASSUNG = "zusammenfassung", "Zusammenfassung"
        PRAXISAUFGABE = "praxisaufgabe", "Optionale Praxisaufgabe"
        LERNAUFTRAG = "lernauftrag", "Lernauftrag für diesen Schritt"
        # Term cards
        ORIENTIERUNG = "orientierung", "Orientierung"
        PRAKTISCHE_ANWENDUNG = "praktische_anwendung", "Praktische Anwendung"
        TECHNISCHES_VERSTAENDNIS = "technisches_verstaendnis", "Technisches Verständnis"
        BETRIEB_DEBUGGING = "betrieb_debugging", "Betrieb und Debugging"
        QUICK_CHECK = "quick_check", "Quick-Check"

    step = models.ForeignKey(
        Step,
        on_delete=models.CASCADE,
        related_name="sections",
        null=True,
        blank=True,
        verbose_name=_("step"),
    )
    card = models.ForeignKey(
        TermCard,
        on_delete=models.CASCADE,
        related_name="sections",
        null=True,
        blank=True,
        verbose_name=_("term card"),
    )
    position = models.PositiveIntegerField(verbose_name=_("position"))
    kind = models.CharField(max_length=30, choices=Kind.choices, verbose_name=_("kind"))
    heading = models.CharField(max_length=200, verbose_name=_("heading"))
    body = models.TextField(
        blank=True, help_text=_("The section's lines, one per line."), verbose_name=_("text")
    )
    is_truncated = models.BooleanField(
        default=False,
        help_text=_("The source cut this text off with '...'."),
        verbose_name=_("cut off"),
    )
    commands = models.JSONField(default=list, blank=True, verbose_name=_("commands"))

    objects = SectionManager()

    class Meta:
        verbose_name = _("section")
        verbose_name_plural = _("sections")
        ordering = ["position"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(step__isnull=False) & Q(card__isnull=True))
                | (Q(step__isnull=True) & Q(card__isnull=False)),
                name="section_has_one_owner",
            ),
            models.UniqueConstraint(fields=["step", "position"], name="section_step_position"),
            models.UniqueConstraint(fields=["card", "position"], name="section_card_position"),
        ]

    def natural_key(self) -> tuple:
        if self.step_id:
            return ("step", *self.step.natural_key(), self.position)
        return ("card", *self.card.natural_key(), self.position)

    natural_key.dependencies = ["courses.step", "courses.termcard"]

    @property
    def lines(self) -> list[str]:
        return self.body.split("\n") if self.body else []

    def __str__(self) -> str:
        return self.heading


class QuickCheckManager(models.Manager):
    def get_by_natural_key(self, module_slug: str, text_hash: str) -> QuickCheck:
        return self.get(module__slug=module_slug, text_hash=text_hash)


def quick_check_makes_no_card_q() -> Q:
    """``Q`` for "this quick check makes no review card": it left its module or is no flashcard.
    One definition for the partial index and the query."""
    return Q(is_active=False) | ~Q(role=quick_check_roles.FLASHCARD)


class QuickCheck(models.Model):
    """A distinct question/answer line of a module, stored once however many steps show it."""

    class Role(models.TextChoices):
        FLASHCARD = quick_check_roles.FLASHCARD, _("flashcard (a review card)")
        DEFINITION = quick_check_roles.DEFINITION, _("the step's definition (its definition card)")
        GENERIC = quick_check_roles.GENERIC, _("reflection prompt (recurs in most steps)")
        INSTRUCTION = quick_check_roles.INSTRUCTION, _("reflection prompt (an instruction)")

    module = models.ForeignKey(
        Module, on_delete=models.CASCADE, related_name="quick_checks", verbose_name=_("module")
    )
    question = models.TextField(verbose_name=_("question"))
    answer = models.TextField(verbose_name=_("answer"))
    text_hash = models.CharField(
        max_length=64, help_text=_("sha256 of question + answer."), verbose_name=_("text hash")
    )
    is_active = models.BooleanField(default=True, verbose_name=_("active"))
    # Decided from the module's content (courses.quick_check_roles); a database default for
    # bulk loads that name only the columns they fill.
    role = models.CharField(
        max_length=12,
        choices=Role.choices,
        default=Role.FLASHCARD,
        db_default=Role.FLASHCARD,
        verbose_name=_("role"),
    )
    steps = models.ManyToManyField(
        Step, through="StepQuickCheck", related_name="quick_checks", verbose_name=_("steps")
    )

    objects = QuickCheckManager()

    class Meta:
        verbose_name = _("quick check")
        verbose_name_plural = _("quick checks")
        ordering = ["module", "id"]
        constraints = [
            models.UniqueConstraint(fields=["module", "text_hash"], name="quickcheck_module_text"),
            models.CheckConstraint(
                condition=Q(role__in=quick_check_roles.ROLES), name="quickcheck_role_known"
            ),
        ]
        # The few quick checks whose cards leave the queue (courses.api.retired_content).
        indexes = [
            models.Index(
                fields=["id"], condition=quick_check_makes_no_card_q(), name="quickcheck_no_card"
            )
        ]

    @property
    def makes_card(self) -> bool:
        return self.is_active and self.role == quick_check_roles.FLASHCARD

    @property
    def is_reflection_prompt(self) -> bool:
        return self.role in quick_check_roles.REFLECTION_ROLES

    def natural_key(self) -> tuple[str, str]:
        return (*self.module.natural_key(), self.text_hash)

    natural_key.dependencies = ["courses.module"]

    def __str__(self) -> str:
        return self.question


class StepQuickCheckManager(models.Manager):
    def get_by_natural_key(self, module_slug: str, slug: str, position: int):
        return self.get(step__module__slug=module_slug, step__slug=slug, position=position)


class StepQuickCheck(models.Model):
    """Where a quick check stands in a step's "5. Prüfen" block."""

    step = models.ForeignKey(
        Step, on_delete=models.CASCADE, related_name="quick_check_links", verbose_name=_("step")
    )
    quick_check = models.ForeignKey(
        QuickCheck, on_delete=models.CASCADE, related_name="links", verbose_name=_("quick check")
    )
    position = models.PositiveIntegerField(verbose_name=_("position"))

    objects = StepQuickCheckManager()

    class Meta:
        verbose_name = _("quick check of a step")
        verbose_name_plural = _("quick checks of steps")
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["step", "position"], name="stepquickcheck_position"),
        ]

    def natural_key(self) -> tuple:
        return (*self.step.natural_key(), self.position)

    natural_key.dependencies = ["courses.step", "courses.quickcheck"]

    def __str__(self) -> str:
        return f"#{self.position}"


class ModuleContentVersion(models.Model):
    """The manifest of a module content version, kept so a bundle can send only what changed
    since the version an app holds (``?since=``); recorded when first read, no learner data."""

    module = models.ForeignKey(
        Module,
        on_delete=models.CASCADE,
        related_name="content_versions",
        verbose_name=_("module"),
    )
    version = models.CharField(max_length=24, verbose_name=_("version"))
    manifest = models.JSONField(verbose_name=_("manifest"))
    created_at = models.DateTimeField(verbose_name=_("created at"))

    class Meta:
        verbose_name = _("module content version")
        verbose_name_plural = _("module content versions")
        constraints = [
            models.UniqueConstraint(fields=["module", "version"], name="module_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.module_id}@{self.version}"


class ModuleAdministrator(models.Model):
    """A course admin who administers this module only: a course admin with at least one row
    sees and changes only their modules in the admin (``courses.api.administered_module_ids``);
    one without a row, as before, every module."""

    class Source(models.TextChoices):
        PLATFORM = "platform", _("LTI platform")
        ADMIN = "admin", _("admin")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="administered_modules",
        verbose_name=_("user"),
    )
    module = models.ForeignKey(
        Module,
        on_delete=models.CASCADE,
        related_name="administrators",
        verbose_name=_("module"),
    )
    source = models.CharField(
        max_length=20,
        choices=Source.choices,
        default=Source.ADMIN,
        verbose_name=_("assigned by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("assigned at"))

    class Meta:
        verbose_name = _("module administrator")
        verbose_name_plural = _("module administrators")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "module"], name="module_administrator_user_module_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.module}"
