"""The course admin's import workspace: upload → preview → publish, the import history, and
the module as a document."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from courses import api as courses_api
from publishing.forms import DocumentUploadForm
from publishing.models import CourseImport, ImportDocument
from publishing.preview import ImportPreview, base_texts, import_preview
from publishing.services import (
    ImportNotDraft,
    ImportStale,
    course_import_again,
    course_import_draft_create,
    course_import_publish,
)

KIND_LABELS = {
    "added": gettext_lazy("added"),
    "changed": gettext_lazy("changed"),
    "renumbered": gettext_lazy("renumbered"),
    "unchanged": gettext_lazy("unchanged"),
    "retired": gettext_lazy("retired"),
}

# Why an item returns to review: the fields whose substance changed (``quizzes`` CONTENT_FIELDS).
REVIEW_REASON_LABELS = {
    "kind": pgettext_lazy("what changed in an exam item", "kind"),
    "prompt": pgettext_lazy("what changed in an exam item", "prompt"),
    "options": pgettext_lazy("what changed in an exam item", "options"),
    "correct_keys": pgettext_lazy("what changed in an exam item", "correct options"),
    "explanation": pgettext_lazy("what changed in an exam item", "explanation"),
}
REVIEW_STATUS_LABELS = {
    "approved": gettext_lazy("approved"),
    "rejected": gettext_lazy("rejected"),
}


def _returned_items(exam) -> list[dict]:
    """The items an import would send back to review, with their decision and why."""
    return [
        {
            "id": item["id"],
            "prompt": item["prompt"],
            "status": item["status"],
            "status_label": REVIEW_STATUS_LABELS.get(item["status"], item["status"]),
            "reasons": [REVIEW_REASON_LABELS.get(name, name) for name in item["reasons"]],
        }
        for item in exam.returned_items
    ]


def _download(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text.encode("utf-8"), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


def preview_context(preview: ImportPreview) -> dict:
    """The preview as the template shows it: per module its counts, the steps that change
    (with the learners affected and the diff), quick checks, exam items; the term cards."""
    modules = []
    for module in preview.content.modules:
        steps = []
        for step in module.steps:
            if step.kind == "unchanged":
                continue
            who = preview.learners_of(step.step_id)
            steps.append(
                {
                    "kind": step.kind,
                    "label": KIND_LABELS[step.kind],
                    "number": step.number,
                    "old_number": step.old_number,
                    "moved": bool(
                        step.old_number and step.number and step.old_number != step.number
                    ),
                    "term": step.term,
                    "restored": step.restored,
                    "learners": who if step.kind in ("changed", "retired") else None,
                    "admin_edited": step.admin_edited and step.kind in ("changed", "renumbered"),
                    "diff": [
                        {"text": line, "sign": line[:1] if line[:1] in "+-@" else " "}
                        for line in step.diff
                    ],
                }
            )
        counts = module.counts
        modules.append(
            {
                "slug": module.slug,
                "header": module.header,
                "is_new": module.is_new,
                "fields_changed": module.fields_changed,
                "counts": [(KIND_LABELS[kind], kind, counts[kind]) for kind in counts],
                "steps": steps,
                "quick_checks_added": module.quick_checks_added,
                "quick_checks_removed": module.quick_checks_removed,
                "repetition": module.repetition,
                "exam": preview.exam[module.slug],
                "exam_returned": _returned_items(preview.exam[module.slug]),
                "admin_edits": module.admin_edits_overwritten,
            }
        )
    cards = [
        {"label": KIND_LABELS.get(card.kind, card.kind), **card.__dict__}
        for card in preview.content.cards
    ]
    return {
        "modules": modules,
        "cards": cards,
        "fingerprint": preview.fingerprint,
        "writes_nothing": preview.content.writes_nothing,
    }


@admin.register(CourseImport)
class CourseImportAdmin(admin.ModelAdmin):
    # Few columns: the changes must fit beside the filters.
    list_display = ("__str__", "status", "created_by", "published_at", "changes")
    list_filter = ("status", "origin")
    list_select_related = ("created_by",)
    fields = (
        "status",
        "origin",
        "modules",
        "created_by",
        "created_at",
        "published_by",
        "published_at",
        "again_of",
        "rows_written",
        "exam_items_regenerated",
        "plan_text",
    )
    readonly_fields = fields

    @admin.display(description=gettext_lazy("modules"))
    def modules(self, course_import: CourseImport) -> str:
        return ", ".join(course_import.module_slugs) or "—"

    @admin.display(description=gettext_lazy("exam items regenerated"))
    def exam_items_regenerated(self, course_import: CourseImport) -> str:
        if not course_import.exam_items:
            return "—"
        return "; ".join(
            _(
                "%(slug)s: %(created)s new, %(updated)s regenerated, %(retired)s retired, "
                "%(restored)s restored, %(to_draft)s back to review"
            )
            % {
                "slug": slug,
                "created": report.get("created", 0),
                "updated": report.get("updated", 0),
                "retired": report.get("retired", 0),
                "restored": report.get("restored", 0),
                "to_draft": report.get("returned_to_draft", 0),
            }
            for slug, report in course_import.exam_items.items()
        )

    @admin.display(description=gettext_lazy("changes"))
    def changes(self, course_import: CourseImport) -> str:
        parts = []
        for slug, counts in course_import.counts.items():
            if slug == "term_cards":
                continue
            parts.append(
                _("%(slug)s: +%(added)s ~%(changed)s −%(retired)s")
                % {
                    "slug": slug,
                    "added": counts.get("added", 0),
                    "changed": counts.get("changed", 0),
                    "retired": counts.get("retired", 0),
                }
            )
        return "; ".join(parts) or "—"

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    # An import may change any module: a course admin scoped to some modules
    # (``courses.api.administered_module_ids``) may not open the workspace (403); a superuser or
    # an unscoped course admin brings their documents in.
    def _scoped(self, request) -> bool:
        return courses_api.administered_module_ids(request.user) is not None

    def has_module_permission(self, request) -> bool:
        return not self._scoped(request) and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return not self._scoped(request) and super().has_view_permission(request, obj)

    def has_add_permission(self, request) -> bool:
        return not self._scoped(request) and super().has_add_permission(request)

    def _may_import(self, request) -> bool:
        return self.has_add_permission(request) and request.user.has_perm("courses.change_module")

    def _refused(self, request) -> PermissionDenied:
        """The 403 of the workspace, saying why when the admin administers some modules only."""
        if self._scoped(request):
            return PermissionDenied(
                _(
                    "An import can change every module: course admins of single modules "
                    "cannot open the import workspace."
                )
            )
        return PermissionDenied()

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("upload/", view(self.upload_view), name="publishing_courseimport_upload"),
            path(
                "<int:pk>/preview/",
                view(self.preview_view),
                name="publishing_courseimport_preview",
            ),
            path("<int:pk>/again/", view(self.again_view), name="publishing_courseimport_again"),
            path(
                "<int:pk>/document/<int:document_pk>/",
                view(self.document_view),
                name="publishing_courseimport_document",
            ),
            path(
                "module/<int:module_pk>/document/",
                view(self.module_document_view),
                name="publishing_module_document",
            ),
            *super().get_urls(),
        ]

    def add_view(self, request, form_url="", extra_context=None):
        # "Add course import" is an upload: the same page.
        return self.upload_view(request)

    def _context(self, request, **extra) -> dict:
        return {**self.admin_site.each_context(request), "opts": self.model._meta, **extra}

    def change_view(self, request, object_id, form_url="", extra_context=None):
        documents = ImportDocument.objects.filter(course_import_id=object_id).only(
            "pk", "name", "kind", "module_slug", "course_import_id"
        )
        course_import = CourseImport.objects.filter(pk=object_id).only("status").first()
        extra = {
            "documents": list(documents),
            "may_import": self._may_import(request),
            "is_draft": bool(course_import and course_import.status == CourseImport.Status.DRAFT),
            **(extra_context or {}),
        }
        return super().change_view(request, object_id, form_url, extra)

    def upload_view(self, request):
        """Upload → draft with its preview; broken documents show every problem, store nothing."""
        if not self._may_import(request):
            raise self._refused(request)
        template = "admin/publishing/courseimport/upload.html"
        context = self._context(request, title=_("Import documents"))
        form = DocumentUploadForm(request.POST or None, request.FILES or None)
        if request.method != "POST":
            return TemplateResponse(request, template, {**context, "form": form})
        if not form.is_valid():
            return TemplateResponse(request, template, {**context, "form": form}, status=400)
        try:
            draft, _preview = course_import_draft_create(
                documents=form.cleaned_data["documents"], user_id=request.user.pk
            )
        except courses_api.DocumentErrors as failed:
            problems = [error.localized(_) for error in failed.errors]
            return TemplateResponse(
                request, template, {**context, "form": form, "problems": problems}, status=400
            )
        return HttpResponseRedirect(
            reverse("admin:publishing_courseimport_preview", args=[draft.pk])
        )

    def preview_view(self, request, pk: int):
        """GET: the draft's preview (computed now). POST: publish exactly the preview shown
        (its fingerprint); a changed course shows the new preview instead."""
        if not self._may_import(request):
            raise self._refused(request)
        course_import = get_object_or_404(CourseImport, pk=pk)
        change_url = reverse("admin:publishing_courseimport_change", args=[pk])
        if course_import.status != CourseImport.Status.DRAFT:
            return HttpResponseRedirect(change_url)
        status = 200
        stale = False
        converted = []
        if request.method == "POST":
            try:
                done = course_import_publish(
                    course_import_id=pk,
                    fingerprint=request.POST.get("fingerprint", ""),
                    user_id=request.user.pk,
                )
            except ImportStale as refused:
                preview, stale, status = refused.preview, True, 409
            except ImportNotDraft:
                messages.warning(request, _("This import was published already."))
                return HttpResponseRedirect(change_url)
            except courses_api.DocumentErrors as failed:
                return self._no_longer_importable(request, failed)
            else:
                messages.success(
                    request,
                    _("Published: %(modules)s (%(rows)s rows written).")
                    % {"modules": ", ".join(done.module_slugs), "rows": done.rows_written},
                )
                return HttpResponseRedirect(change_url)
        else:
            stored = list(course_import.documents.order_by("position"))
            converted = [(d.name, d.source_encoding) for d in stored if d.source_encoding]
            try:
                _plan, preview = import_preview(documents=[(d.name, d.text) for d in stored])
            except courses_api.DocumentErrors as failed:
                return self._no_longer_importable(request, failed)
        context = self._context(
            request,
            title=_("Preview of import #%(pk)s") % {"pk": pk},
            course_import=course_import,
            stale=stale,
            converted=converted,
            **preview_context(preview),
        )
        return TemplateResponse(
            request, "admin/publishing/courseimport/preview.html", context, status=status
        )

    def _no_longer_importable(self, request, failed):
        """A draft whose documents no longer import (the course changed under it, e.g. a
        card's module is gone): its problems, nothing written."""
        return TemplateResponse(
            request,
            "admin/publishing/courseimport/upload.html",
            {
                **self._context(request, title=_("Import documents")),
                "form": DocumentUploadForm(),
                "problems": [error.localized(_) for error in failed.errors],
            },
            status=409,
        )

    def again_view(self, request, pk: int):
        """Publish an earlier import again (the undo): a new draft of its documents."""
        if not self._may_import(request):
            raise self._refused(request)
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:publishing_courseimport_change", args=[pk]))
        get_object_or_404(CourseImport, pk=pk)
        try:
            draft, _preview = course_import_again(course_import_id=pk, user_id=request.user.pk)
        except courses_api.DocumentErrors as failed:
            for error in failed.errors:
                messages.error(request, error.localized(_))
            return HttpResponseRedirect(reverse("admin:publishing_courseimport_change", args=[pk]))
        return HttpResponseRedirect(
            reverse("admin:publishing_courseimport_preview", args=[draft.pk])
        )

    def document_view(self, request, pk: int, document_pk: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        document = get_object_or_404(ImportDocument, pk=document_pk, course_import_id=pk)
        return _download(document.text, document.name)

    def module_document_view(self, request, module_pk: int):
        """The module as a document, admin edits written back (``courses.api.module_document``
        over the document last published for it)."""
        if not request.user.has_perm("courses.view_module"):
            raise PermissionDenied
        module = courses_api.modules_by_ids([module_pk]).get(module_pk)
        if module is None or not courses_api.module_administered(request.user, module.id):
            raise Http404(_("No such module."))
        text = courses_api.module_document(
            module_id=module.id, base_text=base_texts([module.slug]).get(module.slug)
        )
        return _download(text, f"{module.slug}.txt")
