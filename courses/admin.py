"""Admin for course content: modules, steps, sections, quick checks and term cards."""

from django.contrib import admin

from courses.models import Module, QuickCheck, Section, Step, StepQuickCheck, TermCard
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


@admin.register(Module)
class ModuleAdmin(admin.ModelAdmin):
    list_display = ("header", "slug", "exam_block_count")
    search_fields = ("title", "series", "slug")
    readonly_fields = ("slug", "source_path", "exam_header", "exam_heading", "exam_blocks")
    inlines = [StepInline]


class SectionInline(admin.StackedInline):
    model = Section
    fk_name = "step"
    fields = ("position", "kind", "heading", "body", "is_truncated", "commands")
    ordering = ("position",)
    extra = 0


class StepQuickCheckInline(admin.TabularInline):
    model = StepQuickCheck
    fields = ("position", "quick_check")
    raw_id_fields = ("quick_check",)
    ordering = ("position",)
    extra = 0


@admin.register(Step)
class StepAdmin(admin.ModelAdmin):
    list_display = ("number", "term", "module", "level", "status", "as_of", "has_term_card")
    list_display_links = ("number", "term")
    list_filter = ("module", "level", "status")
    search_fields = ("term", "definition")
    list_select_related = ("module", "term_card")
    ordering = ("module", "status", "number")
    readonly_fields = (
        "module",
        "slug",
        "source_line",
        "source_hash",
        "content_hash",
        "retired_at",
        "term_card_link",
    )
    fieldsets = (
        (None, {"fields": ("module", "number", "total", "term", "slug", "level", "status")}),
        ("Text", {"fields": ("lead", "definition")}),
        ("Source", {"fields": ("as_of", "source_count", "source_status", "footer")}),
        (
            "Import (read-only)",
            {"fields": ("source_line", "source_hash", "content_hash", "retired_at")},
        ),
        ("Term card", {"fields": ("term_card_link",)}),
    )
    inlines = [SectionInline, StepQuickCheckInline]

    @admin.display(boolean=True, description="term card")
    def has_term_card(self, step: Step) -> bool:
        return hasattr(step, "term_card")

    @admin.display(description="term card")
    def term_card_link(self, step: Step) -> str:
        card = getattr(step, "term_card", None)
        return card.title_line if card else "—"

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # An edit changes what the API serves, so the ETag must change with it.
        step_refresh_content_hash(step=form.instance)
        # … and a changed definition or quick-check list can change what each quick check is.
        quick_check_roles_refresh(module_id=form.instance.module_id)


class CardSectionInline(admin.StackedInline):
    model = Section
    fk_name = "card"
    fields = ("position", "kind", "heading", "body", "commands")
    ordering = ("position",)
    extra = 0


@admin.register(TermCard)
class TermCardAdmin(admin.ModelAdmin):
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
class QuickCheckAdmin(admin.ModelAdmin):
    list_display = ("question", "answer", "module", "role", "is_active")
    list_filter = ("module", "role", "is_active")
    search_fields = ("question", "answer")
    # The role follows from the content (courses.quick_check_roles), never typed in.
    readonly_fields = ("module", "text_hash", "role")

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        quick_check_roles_refresh(module_id=obj.module_id)
