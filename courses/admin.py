"""Admin for course content: modules, steps, sections, quick checks and term cards. Every
save renews what depends on the content (hashes, quick check roles, the content version)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from courses.models import (
    Module,
    ModuleAdministrator,
    QuickCheck,
    Section,
    Step,
    StepQuickCheck,
    TermCard,
)
from courses.module_scope import ModuleChoicesMixin, ModuleScopedAdminMixin
from courses.selectors import module_repetition, step_preview_context
from courses.services.content_versions import module_content_version_renew
from courses.services.importing import (
    card_refresh_content_hash,
    quick_check_roles_refresh,
    step_refresh_content_hash,
)


class StepInline(admin.TabularInline):
    model = Step
    fields = ("number", "term", "level", "status")
    readonly_fields = ("number", "term", "level", "status")
    show_change_link = True
    extra = 0
    can_delete = False
    ordering = ("status", "number")

    def has_add_permission(self, request, obj=None):
        return False


class ModuleAdministratorInline(admin.TabularInline):
    """Who administers this module alone (superusers assign them; a course admin with such a
    row sees only their modules)."""

    model = ModuleAdministrator
    fields = ("user", "source", "created_at")
    readonly_fields = ("created_at",)
    autocomplete_fields = ("user",)
    extra = 0

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser

    has_add_permission = has_change_permission = has_delete_permission = has_view_permission


@admin.register(Module)
class ModuleAdmin(ModuleScopedAdminMixin, admin.ModelAdmin):
    module_path = "pk"
    list_display = ("header", "slug", "exam_block_count", "dashboard_link")
    search_fields = ("title", "series", "slug")
    readonly_fields = (
        "dashboard_link",
        "slug",
        "source_path",
        "exam_header",
        "exam_heading",
        "exam_blocks",
        "repetition",
    )
    inlines = [StepInline, ModuleAdministratorInline]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        module_content_version_renew(module_ids=[obj.pk])

    @admin.display(description=_("repeated across steps"))
    def repetition(self, module: Module) -> str:
        report = module_repetition(module_id=module.pk) if module.pk else None
        if not report:
            return "—"
        return render_to_string("admin/courses/includes/repetition.html", {"repetition": report})

    @admin.display(description=_("dashboard"))
    def dashboard_link(self, module: Module) -> str:
        # The dashboard is quizzes' (above every app it shows): content knows only its URL name.
        try:
            url = reverse("admin:quizzes_module_dashboard", args=[module.slug])
        except NoReverseMatch:
            return "—"
        return format_html('<a class="button" href="{}">{}</a>', url, gettext("Dashboard"))


class CommandLinesField(forms.CharField):
    """A section's commands as one line each (stored as a JSON list of strings)."""

    widget = forms.Textarea(attrs={"rows": 3, "class": "vLargeTextField"})

    def prepare_value(self, value):
        if isinstance(value, list):
            return "\n".join(value)
        return value

    def to_python(self, value):
        text = super().to_python(value) or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


class SectionForm(forms.ModelForm):
    commands = CommandLinesField(
        required=False,
        label=_("commands"),
        help_text=_("One command per line; a text line that equals a command is shown as code."),
    )

    class Meta:
        model = Section
        fields = ("position", "kind", "heading", "body", "is_truncated", "commands")
        widgets = {
            "position": forms.NumberInput(attrs={"class": "vIntegerField"}),
            "body": forms.Textarea(attrs={"rows": 6, "class": "vLargeTextField"}),
        }


class SectionInline(admin.StackedInline):
    model = Section
    form = SectionForm
    fk_name = "step"
    # Position, kind and heading on one row: the text is what a course admin edits.
    fields = (("position", "kind", "heading"), "body", "commands", "is_truncated")
    ordering = ("position",)
    extra = 0


class StepQuickCheckInline(ModuleChoicesMixin, admin.TabularInline):
    model = StepQuickCheck
    fields = ("position", "quick_check", "answer")
    readonly_fields = ("answer",)
    autocomplete_fields = ("quick_check",)
    ordering = ("position",)
    extra = 0

    @admin.display(description=_("answer"))
    def answer(self, link: StepQuickCheck) -> str:
        return link.quick_check.answer if link.quick_check_id else "—"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("quick_check")


@admin.register(Step)
class StepAdmin(ModuleScopedAdminMixin, admin.ModelAdmin):
    list_display = ("number", "term", "module", "level", "status", "as_of", "has_term_card")
    list_display_links = ("number", "term")
    list_filter = ("module", "level", "status")
    search_fields = ("term", "definition")
    list_select_related = ("module", "term_card")
    ordering = ("module", "status", "number")
    readonly_fields = (
        "module",
        "status",
        "total",
        "slug",
        "source_line",
        "source_hash",
        "content_hash",
        "retired_at",
        "term_card_link",
        "preview_link",
    )
    fieldsets = (
        (None, {"fields": ("module", "number", "term", "level", "status", "preview_link")}),
        (_("Text"), {"fields": ("lead", "definition")}),
        (_("Source"), {"fields": ("as_of", "source_count", "source_status", "footer")}),
        (_("Term card"), {"fields": ("term_card_link",)}),
        (
            _("Import (read-only)"),
            {
                "classes": ("collapse",),
                "fields": (
                    "slug",
                    "total",
                    "source_line",
                    "source_hash",
                    "content_hash",
                    "retired_at",
                ),
            },
        ),
    )
    inlines = [SectionInline, StepQuickCheckInline]

    @admin.display(boolean=True, description=_("term card"))
    def has_term_card(self, step: Step) -> bool:
        return hasattr(step, "term_card")

    @admin.display(description=_("term card"))
    def term_card_link(self, step: Step) -> str:
        card = getattr(step, "term_card", None)
        if not card:
            return "—"
        url = reverse("admin:courses_termcard_change", args=[card.pk])
        return format_html('<a href="{}">{}</a>', url, card.title_line)

    @admin.display(description=_("preview"))
    def preview_link(self, step: Step) -> str:
        if not step.pk:
            return "—"
        url = reverse("admin:courses_step_preview", args=[step.pk])
        return format_html(
            '<a class="button" href="{}" target="_blank" rel="noopener">{}</a> '
            '<span class="help">{}</span>',
            url,
            gettext("Preview the learner's page"),
            gettext("The step as a learner sees it, with the saved changes."),
        )

    def get_urls(self):
        return [
            path(
                "<int:step_id>/preview/",
                self.admin_site.admin_view(self.preview_view),
                name="courses_step_preview",
            ),
            *super().get_urls(),
        ]

    def preview_view(self, request, step_id: int):
        """The learner's step page for any step, retired ones too, without the learner's forms."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        if not self.get_queryset(request).filter(pk=step_id).exists():
            raise Http404(gettext("No such step."))
        context = step_preview_context(step_id=step_id)
        if context is None:
            raise Http404(gettext("No such step."))
        return TemplateResponse(request, "web/courses/step.html", context)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # An edit changes what the API serves, so the ETag must change with it.
        step_refresh_content_hash(step=form.instance)
        # … and a changed definition or quick-check list can change what each quick check is.
        quick_check_roles_refresh(module_id=form.instance.module_id)


class CardSectionInline(SectionInline):
    fk_name = "card"
    fields = (("position", "kind", "heading"), "body", "commands")


@admin.register(TermCard)
class TermCardAdmin(ModuleScopedAdminMixin, admin.ModelAdmin):
    list_display = ("term", "module", "step")
    list_filter = ("module",)
    search_fields = ("term", "lead")
    list_select_related = ("module", "step")
    readonly_fields = ("module", "step", "slug", "source_path", "source_hash", "content_hash")
    inlines = [CardSectionInline]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        card_refresh_content_hash(card=form.instance)


@admin.register(QuickCheck)
class QuickCheckAdmin(ModuleScopedAdminMixin, admin.ModelAdmin):
    list_display = ("question", "answer", "module", "role", "is_active")
    list_filter = ("module", "role", "is_active")
    list_select_related = ("module",)
    search_fields = ("question", "answer")
    # The role follows from the content (courses.quick_check_roles), never typed in.
    readonly_fields = ("module", "text_hash", "role")

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        quick_check_roles_refresh(module_id=obj.module_id)


@admin.register(ModuleAdministrator)
class ModuleAdministratorAdmin(admin.ModelAdmin):
    """Every per-module course admin (superusers only: ``lms.admin_site.SUPERUSER_ONLY``)."""

    list_display = ("user", "module", "source", "created_at")
    list_filter = ("module", "source")
    list_select_related = ("user", "module")
    search_fields = ("user__username", "user__email", "module__title", "module__slug")
    autocomplete_fields = ("user", "module")
    readonly_fields = ("created_at",)
