"""The item bank's GIFT import (preview, then all or nothing) and export in the admin."""

from __future__ import annotations

from pathlib import PurePath

from django import forms
from django.contrib import admin, messages
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from courses import api as courses_api
from lms.errors import DomainError
from quizzes.models import ExamItem
from quizzes.selectors import item_bank_gift
from quizzes.services.gift_import import (
    MAX_GIFT_BYTES,
    GiftImportFailed,
    exam_items_gift_import,
    exam_items_gift_plan,
)

# The confirmation carries the previewed file, signed (for an hour): what is imported is
# exactly what the admin saw.
PREVIEW_SALT = "quizzes.gift-import"
PREVIEW_MAX_AGE = 3600
GIFT_SUFFIXES = (".gift", ".txt")


class GiftUploadForm(forms.Form):
    module = forms.ChoiceField(label=gettext_lazy("Module"))
    file = forms.FileField(
        label=gettext_lazy("GIFT file"),
        help_text=gettext_lazy("A .gift or .txt file in Moodle's GIFT format, UTF-8."),
    )
    approve = forms.BooleanField(
        required=False,
        label=gettext_lazy("Approve the imported questions"),
        help_text=gettext_lazy(
            "Without this they start as drafts of the bank review, like generated items."
        ),
    )

    def __init__(self, *args, modules, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["module"].choices = [(m.slug, f"{m.title} ({m.slug})") for m in modules]

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith(GIFT_SUFFIXES):
            raise forms.ValidationError(_("Choose a .gift or .txt file."))
        if upload.size > MAX_GIFT_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(limit)s kB.") % {"limit": MAX_GIFT_BYTES // 1000}
            )
        return upload


def _download(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class GiftImportExportMixin:
    """Adds ``gift-import/``, ``gift-export/`` and the action "Export selected as GIFT"."""

    @admin.action(description=gettext_lazy("Export selected items as GIFT"))
    def export_gift(self, request, queryset):
        text = item_bank_gift(item_ids=queryset.values_list("pk", flat=True))
        return _download(text, "exam-items.gift")

    def gift_urls(self):
        return [
            path(
                "gift-import/",
                self.admin_site.admin_view(self.gift_import_view),
                name="quizzes_examitem_gift_import",
            ),
            path(
                "gift-export/",
                self.admin_site.admin_view(self.gift_export_view),
                name="quizzes_examitem_gift_export",
            ),
        ]

    def _gift_context(self, request, **extra) -> dict:
        return {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            **extra,
        }

    def gift_import_view(self, request):
        """Upload → preview → import; a broken file shows its problems and imports nothing."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        modules = courses_api.modules_administered(request.user)
        template = "admin/quizzes/examitem/gift_import.html"
        context = self._gift_context(request, title=_("Import questions (GIFT)"))
        if request.method == "POST" and "payload" in request.POST:
            return self._gift_import_confirmed(request, context, modules)
        form = GiftUploadForm(request.POST or None, request.FILES or None, modules=modules)
        if request.method != "POST" or not form.is_valid():
            return TemplateResponse(request, template, {**context, "form": form})
        upload = form.cleaned_data["file"]
        source = PurePath(upload.name).name[:100]
        module = courses_api.module_by_slug(form.cleaned_data["module"])
        try:
            plan = exam_items_gift_plan(module_id=module.id, data=upload.read(), source=source)
        except GiftImportFailed as failed:
            return TemplateResponse(
                request, template, {**context, "form": form, "problems": failed.problems}
            )
        kinds = dict(ExamItem.Kind.choices)
        payload = signing.dumps(
            {
                "module": module.slug,
                "source": source,
                "text": plan.text,
                "approve": bool(form.cleaned_data.get("approve")),
            },
            salt=PREVIEW_SALT,
            compress=True,
        )
        return TemplateResponse(
            request,
            "admin/quizzes/examitem/gift_preview.html",
            {
                **context,
                "title": _("Import questions (GIFT): preview"),
                "module": module,
                "plan": plan,
                "rows": [
                    (
                        item.line,
                        kinds.get(item.kind, item.kind),
                        item.title,
                        item.category,
                        item.prompt,
                        len(item.answer_feedback),
                    )
                    for item in plan.items
                ],
                "payload": payload,
                "approve": bool(form.cleaned_data.get("approve")),
            },
        )

    def _gift_import_confirmed(self, request, context, modules):
        template = "admin/quizzes/examitem/gift_import.html"
        form = GiftUploadForm(modules=modules)
        try:
            payload = signing.loads(
                request.POST["payload"], salt=PREVIEW_SALT, max_age=PREVIEW_MAX_AGE
            )
        except signing.BadSignature:
            problems = [_("The preview is too old or was changed; upload the file again.")]
            return TemplateResponse(
                request, template, {**context, "form": form, "problems": problems}
            )
        if payload["module"] not in {module.slug for module in modules}:
            raise Http404(_("No such module."))
        try:
            module = courses_api.module_by_slug(payload["module"])
            report = exam_items_gift_import(
                module_id=module.id,
                data=payload["text"],
                source=payload["source"],
                approved_by_id=request.user.pk if payload["approve"] else None,
            )
        except GiftImportFailed as failed:
            return TemplateResponse(
                request, template, {**context, "form": form, "problems": failed.problems}
            )
        except DomainError as error:
            return TemplateResponse(
                request, template, {**context, "form": form, "problems": [error.message]}
            )
        messages.success(
            request,
            _(
                "%(created)s question(s) imported from %(source)s into %(module)s "
                "(%(skipped)s already in the bank)."
            )
            % {
                "created": report.created,
                "source": payload["source"],
                "module": module.slug,
                "skipped": len(report.plan.duplicates),
            },
        )
        changelist = reverse("admin:quizzes_examitem_changelist")
        return redirect(f"{changelist}?module__id__exact={module.id}")

    def gift_export_view(self, request):
        """``?module=<slug>``: the module's drawable bank as a .gift download; without it, a
        page to choose the module."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        slug = request.GET.get("module")
        if slug:
            try:
                module = courses_api.administered_module_by_slug(request.user, slug)
            except DomainError as error:
                raise Http404(error.message) from error
            return _download(item_bank_gift(module_id=module.id), f"{module.slug}.gift")
        return TemplateResponse(
            request,
            "admin/quizzes/examitem/gift_export.html",
            self._gift_context(
                request,
                title=_("Export questions (GIFT)"),
                modules=courses_api.modules_administered(request.user),
            ),
        )
