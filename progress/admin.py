"""Admin for learner progress: enrollments per module with their progress, and progress rows.
Apps above progress add columns to the enrollments list and CSV (``extra_column_add``).
"""

from __future__ import annotations

import datetime
from typing import Any, Protocol

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.contrib.auth import get_user_model
from django.db.models import Case, Exists, F, IntegerField, OuterRef, Value, When
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from courses import api as courses_api
from lms.csv_export import table_response
from progress.models import Enrollment, StepProgress
from progress.selectors import enrollments_with_progress
from progress.services.enrollment import enrollments_bulk_create

# The enrollments export's headers; another app's column adds its own (``csv_header``).
ENROLLMENTS_EXPORT_HEADER = (
    _("Username"),
    _("E-mail"),
    _("Full name"),
    _("Module"),
    _("Enrolled by"),
    _("Enrolled"),
    _("Last activity"),
    _("Steps completed"),
    _("Steps"),
    _("Complete (%)"),
)


class ActivityFilter(admin.SimpleListFilter):
    """Filter learners by their last activity in the module."""

    title = _("last activity")
    parameter_name = "activity"

    def lookups(self, request, model_admin):
        return [
            ("7d", _("in the last 7 days")),
            ("older", _("longer ago")),
            ("never", _("never")),
        ]

    def queryset(self, request, queryset):
        week_ago = timezone.now() - datetime.timedelta(days=7)
        if self.value() == "7d":
            return queryset.filter(last_activity_at__gte=week_ago)
        if self.value() == "older":
            return queryset.filter(last_activity_at__lt=week_ago)
        if self.value() == "never":
            return queryset.filter(last_activity_at__isnull=True)
        return queryset


def local_time(value: datetime.datetime | None) -> str:
    """A time as the admin reads it: in the admin's zone (``lms.admin_site``), to the minute."""
    if value is None:
        return ""
    return date_format(timezone.localtime(value), "SHORT_DATETIME_FORMAT")


class EnrollmentColumn(Protocol):
    """A column another app adds to the enrollments list and its CSV."""

    name: str
    description: Any
    csv_header: tuple[str, ...]

    def load(self, enrollments: list[Enrollment]) -> None:
        """Read the values of these rows at once (a fixed number of queries)."""

    def cell(self, enrollment: Enrollment) -> str: ...

    def csv_values(self, enrollment: Enrollment) -> list: ...


class EnrollmentChangeList(ChangeList):
    def get_results(self, request):
        super().get_results(request)
        rows = list(self.result_list)
        for column in self.model_admin.extra_columns:
            column.load(rows)


class EnrollmentAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
    """Per module: learners with percent complete and last activity; CSV export. Enrolling is
    an action on the users list; here enrollments are read and deleted."""

    # Fits 1280 px with the exam column: the e-mail is searchable, the source a filter.
    list_display = (
        "learner_name",
        "module_number",
        "progress_display",
        "last_activity",
        "enrolled_on",
    )
    list_filter = ("module", "source", ActivityFilter)
    search_fields = ("learner__username", "learner__email", "learner__display_name")
    list_select_related = ("learner", "module")
    ordering = ("module", "learner__username")
    date_hierarchy = "enrolled_at"
    actions = ("export_csv", "export_xlsx")
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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.extra_columns: list[EnrollmentColumn] = []

    def extra_column_add(self, column: EnrollmentColumn) -> None:
        """Add a column (another app's data) to the list and the CSV export."""
        self.extra_columns.append(column)

    def get_list_display(self, request):
        columns = []
        for column in self.extra_columns:

            def cell(enrollment, column=column):
                return column.cell(enrollment)

            cell.short_description = column.description
            cell.__name__ = column.name
            columns.append(cell)
        display = list(super().get_list_display(request))
        return (*display[:3], *columns, *display[3:])

    def get_changelist(self, request, **kwargs):
        return EnrollmentChangeList

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

    @admin.display(
        description=pgettext_lazy("enrollment column", "last active"), ordering="last_activity_at"
    )
    def last_activity(self, enrollment: Enrollment) -> str:
        # The admin localizes only fields, not a method's value.
        return local_time(enrollment.last_activity_at) or "—"

    @admin.display(description=_("module"), ordering="module__title")
    def module_title(self, enrollment: Enrollment) -> str:
        return enrollment.module.title

    @admin.display(description=_("learner"), ordering="learner__username")
    def learner_name(self, enrollment: Enrollment) -> str:
        """The full name (as on a certificate), the username beside it when they differ."""
        learner = enrollment.learner
        name = learner.certificate_name
        return name if name == learner.username else f"{name} ({learner.username})"

    @admin.display(description=_("module"), ordering="module__number")
    def module_number(self, enrollment: Enrollment) -> int:
        return enrollment.module.number

    @admin.display(description=pgettext_lazy("enrollment column", "since"), ordering="enrolled_at")
    def enrolled_on(self, enrollment: Enrollment) -> str:
        """The day, in the admin's zone: the time of day says nothing here."""
        return date_format(timezone.localtime(enrollment.enrolled_at), "SHORT_DATE_FORMAT")

    @admin.display(description=_("progress"), ordering="percent_complete")
    def progress_display(self, enrollment: Enrollment) -> str:
        done, total = enrollment.completed_steps, enrollment.total_steps
        return f"{enrollment.percent_complete} % · {done}/{total}"

    @admin.display(description=_("e-mail"), ordering="learner__email")
    def learner_email(self, enrollment: Enrollment) -> str:
        return enrollment.learner.email

    @admin.display(description=_("complete"), ordering="percent_complete")
    def percent_display(self, enrollment: Enrollment) -> str:
        return f"{enrollment.percent_complete} %"

    @admin.display(description=_("steps done"), ordering="completed_steps")
    def completed_display(self, enrollment: Enrollment) -> str:
        return f"{enrollment.completed_steps} / {enrollment.total_steps}"

    @admin.display(description=_("step-by-step progress"))
    def step_progress_table(self, enrollment: Enrollment) -> str:
        steps = courses_api.module_steps(enrollment.module_id)
        kinds = courses_api.section_kind_labels()
        rows = {
            row.step_id: row
            for row in StepProgress.objects.filter(
                learner_id=enrollment.learner_id, step__module_id=enrollment.module_id
            )
        }
        not_started = StepProgress()  # a step without a row: not started, nothing viewed
        cells = []
        for step in steps:
            row = rows.get(step.id, not_started)
            cells.append(
                (
                    step.number,
                    step.term,
                    row.get_status_display(),
                    ", ".join(kinds.get(kind, kind) for kind in row.sections_viewed),
                    local_time(row.first_opened_at),
                    local_time(row.completed_at),
                )
            )
        body = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            cells,
        )
        return format_html(
            "<table><thead><tr><th>#</th><th>{}</th><th>{}</th><th>{}</th>"
            "<th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody></table>",
            gettext("step"),
            gettext("status"),
            gettext("sections viewed"),
            gettext("first opened"),
            gettext("completed"),
            body,
        )

    @admin.action(description=_("Export selected enrollments as CSV"))
    def export_csv(self, request, queryset):
        return self._export(queryset, "csv")

    @admin.action(description=_("Export selected enrollments as Excel (.xlsx)"))
    def export_xlsx(self, request, queryset):
        return self._export(queryset, "xlsx")

    def _export(self, queryset, export_format: str):
        """The selected enrollments with the other apps' columns; the full name a certificate
        states, not the nickname; times in the admin's zone to the minute."""
        enrollments = list(queryset.select_related("learner", "module").order_by("module", "id"))
        for column in self.extra_columns:
            column.load(enrollments)
        extra_header = [name for column in self.extra_columns for name in column.csv_header]
        return table_response(
            export_format=export_format,
            filename_stem="enrollments",
            header=(*ENROLLMENTS_EXPORT_HEADER, *extra_header),
            rows=(
                [
                    enrollment.learner.username,
                    enrollment.learner.email,
                    enrollment.learner.certificate_name,
                    enrollment.module.slug,
                    enrollment.get_source_display(),
                    enrollment.enrolled_at,
                    enrollment.last_activity_at,
                    enrollment.completed_steps,
                    enrollment.total_steps,
                    enrollment.percent_complete,
                    *(
                        value
                        for column in self.extra_columns
                        for value in column.csv_values(enrollment)
                    ),
                ]
                for enrollment in enrollments
            ),
        )


class StepProgressAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
    """Every progress row: filter by module and status, search by learner."""

    module_path = "step__module"
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
        "quick_checks_answered",
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

    @admin.display(description=_("module"), ordering="step__module")
    def module(self, progress: StepProgress) -> str:
        return progress.step.module.slug


admin.site.register(Enrollment, EnrollmentAdmin)
admin.site.register(StepProgress, StepProgressAdmin)


class BulkEnrollForm(forms.Form):
    module = forms.TypedChoiceField(coerce=int, label=_("Module"))

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        # A scoped course admin enrolls only in the modules they administer.
        self.fields["module"].choices = [
            (module.id, module.header) for module in courses_api.modules_administered(user)
        ]


@admin.action(description=_("Enroll selected users in a module…"), permissions=["change"])
def enroll_in_module(modeladmin, request, queryset):
    """Intermediate page: choose the module, then enroll every selected user."""
    form = BulkEnrollForm(request.POST if "apply" in request.POST else None, user=request.user)
    if form.is_bound and form.is_valid():
        module_id = form.cleaned_data["module"]
        learner_ids = list(queryset.values_list("pk", flat=True))
        created = enrollments_bulk_create(learner_ids=learner_ids, module_id=module_id)
        modeladmin.message_user(
            request,
            gettext("Enrolled %(created)d user(s); %(already)d were enrolled already.")
            % {"created": created, "already": len(learner_ids) - created},
            messages.SUCCESS,
        )
        return None
    return TemplateResponse(
        request,
        "admin/progress/bulk_enroll.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": gettext("Enroll in a module"),
            "opts": modeladmin.model._meta,
            "users": queryset.order_by("username"),
            "form": form,
        },
    )


# The action belongs to the app whose rows it writes, offered on the users list (registered by
# accounts.admin, earlier in INSTALLED_APPS).
_user_admin = admin.site.get_model_admin(get_user_model())
_user_admin.actions = (*(_user_admin.actions or ()), enroll_in_module)


def users_enrolled_in_administered_modules(request, queryset):
    """A scoped course admin's users list: the learners enrolled in their modules (one
    subquery, whatever the page lists)."""
    module_ids = courses_api.administered_module_ids(request.user)
    if module_ids is None:
        return queryset
    return queryset.filter(
        Exists(Enrollment.objects.filter(learner=OuterRef("pk"), module_id__in=module_ids))
    )


_user_admin.queryset_scope_add(users_enrolled_in_administered_modules)
