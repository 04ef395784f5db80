"""Admin for course content (modules, steps, sections, quick checks) and learner progress."""

import csv
import datetime

from django.contrib import admin
from django.db.models import Case, F, IntegerField, Value, When
from django.http import HttpResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from courses.models import (
    Enrollment,
    Module,
    QuickCheck,
    Section,
    Step,
    StepProgress,
    StepQuickCheck,
    TermCard,
)
from courses.selectors.progress import enrollments_with_progress
from courses.services.importing import card_refresh_content_hash, step_refresh_content_hash


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
    list_display = ("question", "answer", "module", "is_active")
    list_filter = ("module", "is_active")
    search_fields = ("question", "answer")
    readonly_fields = ("module", "text_hash")


# --- learner progress (courses/models/progress.py) -----------------------------------------


class ActivityFilter(admin.SimpleListFilter):
    """Filter learners by their last activity in the module."""

    title = "last activity"
    parameter_name = "activity"

    def lookups(self, request, model_admin):
        return [("7d", "in the last 7 days"), ("older", "longer ago"), ("never", "never")]

    def queryset(self, request, queryset):
        week_ago = timezone.now() - datetime.timedelta(days=7)
        if self.value() == "7d":
            return queryset.filter(last_activity_at__gte=week_ago)
        if self.value() == "older":
            return queryset.filter(last_activity_at__lt=week_ago)
        if self.value() == "never":
            return queryset.filter(last_activity_at__isnull=True)
        return queryset


class EnrollmentAdmin(admin.ModelAdmin):
    """Per module: learners with percent complete and last activity; CSV export.

    Enrollments are added with the "Enroll in a module" action on the users list; here they
    are read and, to unenroll, deleted.
    """

    list_display = (
        "learner",
        "learner_email",
        "module",
        "percent_display",
        "completed_display",
        "last_activity",
        "enrolled_at",
        "source",
        "exam_status",
    )
    list_filter = ("module", "source", ActivityFilter)
    search_fields = ("learner__username", "learner__email", "learner__display_name")
    list_select_related = ("learner", "module")
    ordering = ("module", "learner__username")
    date_hierarchy = "enrolled_at"
    actions = ("export_csv",)
    fields = (
        "learner",
        "module",
        "source",
        "enrolled_at",
        "last_activity",
        "percent_display",
        "exam_status",
        "step_progress_table",
    )
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def get_queryset(self, request):
        queryset = enrollments_with_progress(super().get_queryset(request))
        # Percent as SQL, so the column sorts; integer division rounds down like percent().
        return queryset.annotate(
            percent_complete=Case(
                When(total_steps=0, then=Value(0)),
                default=F("completed_steps") * 100 / F("total_steps"),
                output_field=IntegerField(),
            )
        )

    @admin.display(description="last activity", ordering="last_activity_at")
    def last_activity(self, enrollment: Enrollment):
        return enrollment.last_activity_at

    @admin.display(description="e-mail", ordering="learner__email")
    def learner_email(self, enrollment: Enrollment) -> str:
        return enrollment.learner.email

    @admin.display(description="complete", ordering="percent_complete")
    def percent_display(self, enrollment: Enrollment) -> str:
        return f"{enrollment.percent_complete} %"

    @admin.display(description="steps done", ordering="completed_steps")
    def completed_display(self, enrollment: Enrollment) -> str:
        return f"{enrollment.completed_steps} / {enrollment.total_steps}"

    @admin.display(description="exam")
    def exam_status(self, enrollment: Enrollment) -> str:
        # Placeholder until the final-exam app offers a status through quizzes.api.
        return "—"

    @admin.display(description="step-by-step progress")
    def step_progress_table(self, enrollment: Enrollment) -> str:
        steps = enrollment.module.steps.filter(status=Step.Status.ACTIVE).order_by("number")
        rows = {
            row.step_id: row
            for row in StepProgress.objects.filter(
                learner_id=enrollment.learner_id, step__module_id=enrollment.module_id
            )
        }
        body = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    step.number,
                    step.term,
                    rows[step.pk].get_status_display() if step.pk in rows else "not started",
                    ", ".join(rows[step.pk].sections_viewed) if step.pk in rows else "",
                    rows[step.pk].first_opened_at or "" if step.pk in rows else "",
                    rows[step.pk].completed_at or "" if step.pk in rows else "",
                )
                for step in steps
            ),
        )
        return format_html(
            "<table><thead><tr><th>#</th><th>step</th><th>status</th><th>sections viewed</th>"
            "<th>first opened</th><th>completed</th></tr></thead><tbody>{}</tbody></table>",
            body,
        )

    @admin.action(description="Export selected enrollments as CSV")
    def export_csv(self, request, queryset):
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="enrollments.csv"'
        writer = csv.writer(response)
        writer.writerow(
            [
                "username",
                "email",
                "display_name",
                "module",
                "source",
                "enrolled_at",
                "last_activity_at",
                "completed_steps",
                "total_steps",
                "percent_complete",
                "exam_status",
            ]
        )
        for enrollment in queryset.select_related("learner", "module").order_by("module", "id"):
            writer.writerow(
                [
                    _csv_safe(enrollment.learner.username),
                    _csv_safe(enrollment.learner.email),
                    _csv_safe(enrollment.learner.display_name),
                    enrollment.module.slug,
                    enrollment.source,
                    enrollment.enrolled_at.isoformat(),
                    enrollment.last_activity_at.isoformat() if enrollment.last_activity_at else "",
                    enrollment.completed_steps,
                    enrollment.total_steps,
                    enrollment.percent_complete,
                    "",
                ]
            )
        return response


def _csv_safe(value: str) -> str:
    """Defuse spreadsheet formulas: a learner-chosen name like '=HYPERLINK(...)' stays text."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


class StepProgressAdmin(admin.ModelAdmin):
    """Every progress row: filter by module and status, search by learner."""

    list_display = (
        "learner",
        "step",
        "module",
        "status",
        "first_opened_at",
        "completed_at",
        "updated_at",
    )
    list_filter = ("status", "step__module", "step__status")
    search_fields = ("learner__username", "learner__email", "step__term")
    list_select_related = ("learner", "step__module")
    ordering = ("learner", "step__module", "step__number")
    readonly_fields = (
        "learner",
        "step",
        "status",
        "first_opened_at",
        "completed_at",
        "sections_viewed",
        "last_section",
        "status_changed_at",
        "last_event_at",
        "updated_at",
    )
    fields = readonly_fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="module", ordering="step__module")
    def module(self, progress: StepProgress) -> str:
        return progress.step.module.slug


admin.site.register(Enrollment, EnrollmentAdmin)
admin.site.register(StepProgress, StepProgressAdmin)
