"""The import history: every upload of course documents, its preview and whether it was
published; stored documents can be downloaded or published again."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class CourseImport(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("previewed, not published")
        PUBLISHED = "published", _("published")

    class Origin(models.TextChoices):
        ADMIN = "admin", _("upload in the admin")
        COMMAND = "command", _("manage.py import_course")
        AGAIN = "again", _("an earlier import published again")

    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    origin = models.CharField(_("origin"), max_length=10, choices=Origin.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("uploaded by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("uploaded at"))
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("published by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    again_of = models.ForeignKey(
        "self",
        verbose_name=_("published again from"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # The modules the documents hold (slugs), for the list and the module's history.
    module_slugs = models.JSONField(_("modules"), default=list)
    # The plan as published: its text (as import_course --dry-run prints it) and its counts.
    plan_text = models.TextField(_("plan"), blank=True)
    counts = models.JSONField(_("counts"), default=dict, blank=True)
    exam_items = models.JSONField(_("exam items regenerated"), default=dict, blank=True)
    rows_written = models.PositiveIntegerField(_("rows written"), default=0)

    class Meta:
        verbose_name = _("course import")
        verbose_name_plural = _("course imports")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status="draft")
                | models.Q(status="published", published_at__isnull=False),
                name="courseimport_published_has_time",
            )
        ]

    def __str__(self) -> str:
        modules = ", ".join(self.module_slugs) or "—"
        return f"#{self.pk} {modules}"


class ImportDocument(models.Model):
    class Kind(models.TextChoices):
        MODULE = "module", _("module document")
        CARD = "card", _("term card")

    course_import = models.ForeignKey(
        CourseImport,
        verbose_name=_("course import"),
        on_delete=models.CASCADE,
        related_name="documents",
    )
    position = models.PositiveIntegerField(_("position"))
    name = models.CharField(_("file name"), max_length=255)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    # The module the document is (or whose step the card explains).
    module_slug = models.SlugField(_("module"), max_length=120, blank=True)
    text = models.TextField(_("text"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    # The encoding the upload was converted from ("Windows-1252"); empty for UTF-8.
    source_encoding = models.CharField(_("converted from"), max_length=40, blank=True, default="")

    class Meta:
        verbose_name = _("import document")
        verbose_name_plural = _("import documents")
        ordering = ["course_import", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["course_import", "position"], name="importdocument_position"
            )
        ]
        indexes = [models.Index(fields=["module_slug", "kind"])]

    def __str__(self) -> str:
        return self.name
