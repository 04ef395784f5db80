"""Admin for learner progress: enrollments per module with their progress, and progress rows."""

import datetime

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db.models import Case, F, IntegerField, Value, When
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from courses import api as courses_api
from lms.csv_export import csv_response
from progress.models import Enrollment, StepProgress
from progress.selectors import enrollments_with_progress
from progress.services.enrollment import enrollments_bulk_create

ENROLLMENTS_CSV_COLUMNS = (
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
)


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

    @admin.display(description="step-by-step progress")
    def step_progress_table(self, enrollment: Enrollment) -> str:
        steps = courses_api.module_steps(enrollment.module_id)
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
                    rows[step.id].get_status_display() if step.id in rows else "not started",
                    ", ".join(rows[step.id].sections_viewed) if step.id in rows else "",
                    rows[step.id].first_opened_at or "" if step.id in rows else "",
                    rows[step.id].completed_at or "" if step.id in rows else "",
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
        enrollments = queryset.select_related("learner", "module").order_by("module", "id")
        return csv_response(
            filename="enrollments.csv",
            header=ENROLLMENTS_CSV_COLUMNS,
            rows=(
                [
                    enrollment.learner.username,
                    enrollment.learner.email,
                    enrollment.learner.display_name,
                    enrollment.module.slug,
                    enrollment.source,
                    enrollment.enrolled_at.isoformat(),
                    enrollment.last_activity_at.isoformat() if enrollment.last_activity_at else "",
                    enrollment.completed_steps,
                    enrollment.total_steps,
                    enrollment.percent_complete,
                ]
                for enrollment in enrollments
            ),
        )


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


# --- "Enroll selected users in a module…" on the users list ---------------------------------


class BulkEnrollForm(forms.Form):
    module = forms.TypedChoiceField(coerce=int, label="Module")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["module"].choices = [
            (module.id, module.header) for module in courses_api.modules_all()
        ]


@admin.action(description="Enroll selected users in a module…", permissions=["change"])
def enroll_in_module(modeladmin, request, queryset):
    """Intermediate page: choose the module, then enroll every selected user."""
    form = BulkEnrollForm(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        module_id = form.cleaned_data["module"]
        learner_ids = list(queryset.values_list("pk", flat=True))
        created = enrollments_bulk_create(learner_ids=learner_ids, module_id=module_id)
        modeladmin.message_user(
            request,
            f"Enrolled {created} user(s); {len(learner_ids) - created} were enrolled already.",
            messages.SUCCESS,
        )
        return None
    return TemplateResponse(
        request,
        "admin/progress/bulk_enroll.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": "Enroll in a module",
            "opts": modeladmin.model._meta,
            "users": queryset.order_by("username"),
            "form": form,
        },
    )


# The action belongs to the app whose rows it writes; it is offered where the admin selects the
# learners, on the users list (accounts.admin registers that list, earlier in INSTALLED_APPS).
_user_admin = admin.site.get_model_admin(get_user_model())
_user_admin.actions = (*(_user_admin.actions or ()), enroll_in_module)
