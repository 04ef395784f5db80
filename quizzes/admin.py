"""Admin of quick-check ratings and exams: item bank, policies, attempts, grades CSV, statistics."""

from __future__ import annotations

import csv
from dataclasses import asdict

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import path

from courses import api as courses_api
from quizzes.models import (
    Certificate,
    ExamAttempt,
    ExamAttemptItem,
    ExamItem,
    ExamPolicy,
    QuickCheckRating,
)
from quizzes.selectors import grades_rows, item_statistics_rows
from quizzes.services.certificates import certificates_reinstate, certificates_revoke

GRADES_CSV_COLUMNS = (
    "module",
    "username",
    "name",
    "email",
    "attempts",
    "scores",
    "grading_method",
    "final_grade",
    "passed",
    "last_finalized_at",
    "certificate_issued",
)


@admin.register(ExamItem)
class ExamItemAdmin(admin.ModelAdmin):
    """The item bank. Generated items are rewritten by the next regeneration; copy one to keep
    an edit (action "Copy as hand-written")."""

    change_list_template = "admin/quizzes/examitem/change_list.html"
    list_display = (
        "id",
        "short_prompt",
        "module",
        "step",
        "kind",
        "origin",
        "is_active",
        "is_retired",
    )
    list_display_links = ("id", "short_prompt")
    list_filter = (
        "module",
        ("step", admin.RelatedOnlyFieldListFilter),
        "kind",
        "origin",
        "is_active",
        "is_retired",
    )
    list_select_related = ("module", "step")
    search_fields = ("prompt", "generator_key")
    raw_id_fields = ("step",)
    readonly_fields = ("origin", "generator_key", "is_retired", "created_at", "updated_at")
    fields = (
        "module",
        "step",
        "kind",
        "prompt",
        "options",
        "correct_keys",
        "explanation",
        "is_active",
        "origin",
        "generator_key",
        "is_retired",
        "created_at",
        "updated_at",
    )
    actions = ["copy_as_hand_written"]

    @admin.display(description="prompt")
    def short_prompt(self, item: ExamItem) -> str:
        return item.prompt if len(item.prompt) <= 90 else item.prompt[:89] + "…"

    @admin.action(description="Copy as hand-written (and deactivate the generated original)")
    def copy_as_hand_written(self, request, queryset):
        copied = 0
        for item in queryset.filter(origin=ExamItem.Origin.GENERATED):
            ExamItem.objects.create(
                module_id=item.module_id,
                step_id=item.step_id,
                kind=item.kind,
                prompt=item.prompt,
                options=item.options,
                correct_keys=item.correct_keys,
                explanation=item.explanation,
                origin=ExamItem.Origin.HAND_WRITTEN,
            )
            item.is_active = False
            item.save(update_fields=["is_active", "updated_at"])
            copied += 1
        self.message_user(request, f"{copied} item(s) copied as hand-written.", messages.SUCCESS)

    def get_urls(self):
        return [
            path(
                "statistics/",
                self.admin_site.admin_view(self.statistics_view),
                name="quizzes_examitem_statistics",
            ),
            *super().get_urls(),
        ]

    def statistics_view(self, request):
        """Per item: times answered, share correct, discrimination (upper vs lower 27%)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        slugs = courses_api.module_slugs()
        slug = request.GET.get("module") or (slugs[0] if slugs else None)
        rows = []
        if slug in slugs:
            module = courses_api.module_by_slug(slug)
            rows = item_statistics_rows(module_id=module.id)
        context = {
            **self.admin_site.each_context(request),
            "title": "Exam item statistics",
            "opts": self.model._meta,
            "modules": slugs,
            "module": slug,
            "rows": rows,
        }
        return TemplateResponse(request, "admin/quizzes/examitem/statistics.html", context)


@admin.register(ExamPolicy)
class ExamPolicyAdmin(admin.ModelAdmin):
    list_display = (
        "module",
        "items_per_attempt",
        "time_limit_minutes",
        "pass_mark_percent",
        "max_attempts",
        "wait_between_attempts_minutes",
        "grading_method",
        "review_content",
        "review_timing",
        "requires_all_steps_completed",
    )
    list_select_related = ("module",)
    readonly_fields = ("updated_at",)


class ExamAttemptItemInline(admin.TabularInline):
    model = ExamAttemptItem
    fields = (
        "position",
        "item",
        "kind",
        "prompt",
        "options",
        "correct_keys",
        "selected_keys",
        "is_correct",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("position",)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ExamAttempt)
class ExamAttemptAdmin(admin.ModelAdmin):
    """Attempts with their scores; read-only (grading happens on the server only)."""

    change_list_template = "admin/quizzes/examattempt/change_list.html"
    list_display = (
        "id",
        "learner",
        "module",
        "number",
        "started_at",
        "deadline_at",
        "score",
        "passed",
        "finalized_reason",
    )
    list_filter = ("module", "result__passed", "result__reason")
    list_select_related = ("learner", "module", "result")
    search_fields = ("learner__username", "learner__email")
    date_hierarchy = "started_at"
    readonly_fields = (
        "learner",
        "module",
        "policy",
        "number",
        "seed",
        "item_count",
        "pass_mark_percent",
        "started_at",
        "deadline_at",
    )
    fields = readonly_fields
    inlines = [ExamAttemptItemInline]

    @admin.display(description="score %", ordering="result__score_percent")
    def score(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return result.score_percent if result else None

    @admin.display(description="passed", boolean=True)
    def passed(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return result.passed if result else None

    @admin.display(description="finalized")
    def finalized_reason(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return result.get_reason_display() if result else "in progress"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_urls(self):
        return [
            path(
                "grades.csv",
                self.admin_site.admin_view(self.grades_csv_view),
                name="quizzes_examattempt_grades_csv",
            ),
            *super().get_urls(),
        ]

    def grades_csv_view(self, request):
        """Final grades per learner and module as CSV (``?module=<slug>`` for one module)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        module_ids = None
        if request.GET.get("module"):
            module_ids = [courses_api.module_by_slug(request.GET["module"]).id]
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="exam-grades.csv"'
        writer = csv.DictWriter(response, fieldnames=GRADES_CSV_COLUMNS)
        writer.writeheader()
        for row in grades_rows(module_ids=module_ids):
            writer.writerow(asdict(row))
        return response


@admin.register(Certificate)
class CertificateAdmin(admin.ModelAdmin):
    list_display = (
        "learner_name",
        "learner",
        "module",
        "score_percent",
        "issued_at",
        "revoked_at",
    )
    list_filter = ("module", ("revoked_at", admin.EmptyFieldListFilter))
    list_select_related = ("learner", "module")
    search_fields = ("learner__username", "learner_name", "code")
    readonly_fields = (
        "learner",
        "module",
        "attempt",
        "code",
        "learner_name",
        "score_percent",
        "issued_at",
        "revoked_at",
    )
    actions = ["revoke", "reinstate"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Revoke selected certificates", permissions=["change"])
    def revoke(self, request, queryset):
        count = certificates_revoke(
            certificate_ids=queryset.values_list("pk", flat=True),
            reason=f"revoked by {request.user.get_username()}",
        )
        self.message_user(request, f"{count} certificate(s) revoked.", messages.SUCCESS)

    @admin.action(description="Reinstate selected certificates", permissions=["change"])
    def reinstate(self, request, queryset):
        count = certificates_reinstate(certificate_ids=queryset.values_list("pk", flat=True))
        self.message_user(request, f"{count} certificate(s) reinstated.", messages.SUCCESS)


@admin.register(QuickCheckRating)
class QuickCheckRatingAdmin(admin.ModelAdmin):
    list_display = ("learner", "quick_check", "step", "rating", "times_rated", "updated_at")
    list_filter = ("rating",)
    list_select_related = ("learner", "quick_check", "step")
    search_fields = ("learner__username",)
    readonly_fields = (
        "learner",
        "quick_check",
        "step",
        "rating",
        "times_rated",
        "first_rated_at",
        "updated_at",
    )

    def has_add_permission(self, request):
        return False
