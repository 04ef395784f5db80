"""Admin for spaced repetition: cards, review log, reminder claims, notifications, exam dates
and FSRS fits."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from courses import api as courses_api
from reviews.models import (
    ExamDate,
    LearnerParameters,
    ModuleExamPlan,
    ModuleParameters,
    Notification,
    ParameterFit,
    ReminderDigest,
    ReviewCard,
    ReviewLog,
)


class _ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by the app only: the review log, the FSRS fits and parameters."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ReviewCard)
class ReviewCardAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
    list_display = ("id", "learner", "kind", "step", "state", "due", "last_review", "suspended")
    list_filter = ("kind", "state", "suspended")
    search_fields = ("learner__username", "step__term")
    list_select_related = ("learner", "step")
    raw_id_fields = ("learner", "step", "quick_check")
    readonly_fields = (
        "module",
        "state",
        "learning_step",
        "stability",
        "difficulty",
        "due",
        "last_review",
        "created_at",
    )
    actions = ["suspend", "unsuspend"]

    @admin.action(description=_("Suspend the selected cards"))
    def suspend(self, request, queryset):
        queryset.update(suspended=True)

    @admin.action(description=_("Unsuspend the selected cards"))
    def unsuspend(self, request, queryset):
        queryset.update(suspended=False)


@admin.register(ReviewLog)
class ReviewLogAdmin(courses_api.ModuleScopedAdminMixin, _ReadOnlyAdmin):
    module_path = "card__module"

    list_display = ("id", "learner", "card", "source", "rating", "reviewed_at", "duration_ms")
    list_filter = ("source", "rating")
    search_fields = ("learner__username", "client_review_id")
    list_select_related = ("learner", "card")
    date_hierarchy = "reviewed_at"


@admin.register(ReminderDigest)
class ReminderDigestAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "learner",
        "local_date",
        "kind",
        "status",
        "attempts",
        "claimed_at",
        "sent_at",
    )
    list_filter = ("status", "kind", "local_date")
    search_fields = ("learner__username", "learner__email")
    list_select_related = ("learner",)
    readonly_fields = ("claimed_at", "enqueued_at", "sent_at", "attempts", "due_count")

    def has_add_permission(self, request):
        return False


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("id", "learner", "kind", "title", "created_at", "read_at")
    list_filter = ("kind",)
    search_fields = ("learner__username", "title")
    list_select_related = ("learner",)
    raw_id_fields = ("learner", "digest")


@admin.register(ModuleExamPlan)
class ModuleExamPlanAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
    """The course admin's exam date for a module and how far ahead its learners may set one."""

    list_display = ("module", "exam_on", "max_days_ahead")
    list_select_related = ("module",)


@admin.register(ExamDate)
class ExamDateAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
    list_display = ("learner", "module", "exam_on", "set_at")
    search_fields = ("learner__username",)
    list_select_related = ("learner", "module")
    raw_id_fields = ("learner",)


@admin.register(ParameterFit)
class ParameterFitAdmin(courses_api.ModuleScopedAdminMixin, _ReadOnlyAdmin):
    list_display = (
        "id",
        "learner",
        "module",
        "run_key",
        "fitted_at",
        "review_count",
        "log_loss",
        "log_loss_before",
        "adopted",
    )
    list_filter = ("adopted",)
    search_fields = ("learner__username", "run_key")
    list_select_related = ("learner", "module")


@admin.register(LearnerParameters)
class LearnerParametersAdmin(courses_api.ModuleScopedAdminMixin, _ReadOnlyAdmin):
    # A learner's own parameters, not a module's: none for a per-module course admin.
    module_path = None

    list_display = ("learner", "version", "fit")
    search_fields = ("learner__username",)


@admin.register(ModuleParameters)
class ModuleParametersAdmin(courses_api.ModuleScopedAdminMixin, _ReadOnlyAdmin):
    list_display = ("module", "version", "fit")
