"""Admin of quick-check ratings and exams: item bank, policies, attempts, grades CSV, statistics."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from courses import api as courses_api
from lms.csv_export import csv_response
from lms.errors import ModuleNotFound
from lms.svg_charts import Point, scatter_chart
from progress import api as progress_api
from quizzes.admin_dashboard import ModuleDashboardMixin
from quizzes.admin_enrollments import exam_column_install
from quizzes.admin_gift import GiftImportExportMixin
from quizzes.models import (
    Certificate,
    ExamAccommodation,
    ExamAttempt,
    ExamAttemptItem,
    ExamItem,
    ExamPolicy,
    QuickCheckRating,
)
from quizzes.selectors import exam_bank_states, grades_rows, item_statistics_rows
from quizzes.services.certificates import certificates_reinstate, certificates_revoke
from quizzes.services.item_review import exam_item_edit_review, exam_items_review

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
class ExamItemAdmin(GiftImportExportMixin, admin.ModelAdmin):
    """The item bank: review (approve, reject, back to draft) and edit items; generated items are
    rewritten by the next regeneration, so copy one to keep an edit."""

    change_list_template = "admin/quizzes/examitem/change_list.html"
    list_display = (
        "id",
        "short_prompt",
        "module",
        "step",
        "kind",
        "origin",
        "status",
        "reviewed_by",
        "is_active",
        "is_retired",
    )
    list_display_links = ("id", "short_prompt")
    list_filter = (
        "module",
        ("step", admin.RelatedOnlyFieldListFilter),
        "kind",
        "origin",
        "status",
        "is_active",
        "is_retired",
    )
    list_select_related = ("module", "step", "reviewed_by")
    search_fields = ("prompt", "generator_key")
    raw_id_fields = ("step",)
    readonly_fields = (
        "origin",
        "generator_key",
        "is_retired",
        "reviewed_by",
        "reviewed_at",
        "created_at",
        "updated_at",
    )
    fields = (
        "module",
        "step",
        "kind",
        "prompt",
        "options",
        "correct_keys",
        "answer_key",
        "title",
        "explanation",
        "status",
        "reviewed_by",
        "reviewed_at",
        "is_active",
        "origin",
        "generator_key",
        "is_retired",
        "created_at",
        "updated_at",
    )
    actions = ["copy_as_hand_written", "approve", "reject", "back_to_draft", "export_gift"]

    @admin.display(description=gettext_lazy("prompt"))
    def short_prompt(self, item: ExamItem) -> str:
        return item.prompt if len(item.prompt) <= 90 else item.prompt[:89] + "…"

    @admin.action(
        description=gettext_lazy("Copy as hand-written (and deactivate the generated original)")
    )
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
                answer_key=item.answer_key,
                title=item.title,
                explanation=item.explanation,
                origin=ExamItem.Origin.HAND_WRITTEN,
                # The same text: the review of the original holds for the copy.
                status=item.status,
                reviewed_by_id=item.reviewed_by_id,
                reviewed_at=item.reviewed_at,
            )
            item.is_active = False
            item.save(update_fields=["is_active", "updated_at"])
            copied += 1
        self.message_user(
            request,
            _("%(count)d item(s) copied as hand-written.") % {"count": copied},
            messages.SUCCESS,
        )

    # --- review of the bank ---

    def _review(self, request, queryset, status: str, message: str) -> None:
        module_ids = set(queryset.values_list("module_id", flat=True))
        changed = exam_items_review(
            item_ids=queryset.values_list("id", flat=True),
            status=status,
            reviewer_id=request.user.pk,
        )
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)
        self._bank_message(request, module_ids)

    def _bank_message(self, request, module_ids) -> None:
        """Say, per module touched, whether its exam now certifies or runs as practice."""
        modules = courses_api.modules_by_ids(module_ids)
        for state in exam_bank_states(module_ids=module_ids):
            title = modules[state.module_id].title if state.module_id in modules else "?"
            values = {
                "title": title,
                "approved": state.approved,
                "drawn": state.items_per_attempt,
            }
            if state.certifying:
                text = (
                    _(
                        "%(title)s: %(approved)d approved items, an attempt draws %(drawn)d: "
                        "new attempts are certifying."
                    )
                    % values
                )
                level = messages.INFO
            else:
                text = (
                    _(
                        "%(title)s: only %(approved)d approved items, an attempt draws "
                        "%(drawn)d: new attempts are practice exams without a certificate "
                        "until enough items are approved."
                    )
                    % values
                )
                level = messages.WARNING
            self.message_user(request, text, level)

    @admin.action(description=gettext_lazy("Approve the selected items (they can certify)"))
    def approve(self, request, queryset):
        self._review(request, queryset, ExamItem.Status.APPROVED, _("%(count)d item(s) approved."))

    @admin.action(description=gettext_lazy("Reject the selected items (never drawn)"))
    def reject(self, request, queryset):
        self._review(request, queryset, ExamItem.Status.REJECTED, _("%(count)d item(s) rejected."))

    @admin.action(description=gettext_lazy("Send the selected items back to draft"))
    def back_to_draft(self, request, queryset):
        self._review(
            request,
            queryset,
            ExamItem.Status.DRAFT,
            _("%(count)d item(s) sent back to draft."),
        )

    def save_model(self, request, obj, form, change):
        """Record who decided on the item; an edit of an approved item's text returns it to
        draft (``quizzes.services.item_review.exam_item_edit_review``)."""
        previous = form.initial.get("status") if change else None
        returned = exam_item_edit_review(
            item=obj,
            previous_status=previous,
            changed_fields=form.changed_data,
            editor_id=request.user.pk,
        )
        super().save_model(request, obj, form, change)
        if returned:
            self.message_user(
                request,
                _(
                    "The item's text changed, so it is a draft again: approve it once you "
                    "stand behind the new text."
                ),
                messages.WARNING,
            )
        if returned or "status" in form.changed_data or not change:
            self._bank_message(request, {obj.module_id})

    def get_urls(self):
        return [
            path(
                "statistics/",
                self.admin_site.admin_view(self.statistics_view),
                name="quizzes_examitem_statistics",
            ),
            *self.gift_urls(),
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
        kinds = dict(ExamItem.Kind.choices)
        origins = dict(ExamItem.Origin.choices)
        shown = [
            {
                "row": row,
                "kind": kinds.get(row.kind, row.kind),
                "origin": origins.get(row.origin, row.origin),
                "flags": item_flags(row),
            }
            for row in rows
        ]
        measured = [item for item in shown if item["row"].discrimination is not None]
        chart = scatter_chart(
            [
                Point(
                    x=item["row"].correct_share,
                    y=item["row"].discrimination,
                    title=_("Item %(id)d (%(kind)s): share correct %(p).2f, discrimination %(d).2f")
                    % {
                        "id": item["row"].id,
                        "kind": item["kind"],
                        "p": item["row"].correct_share,
                        "d": item["row"].discrimination,
                    },
                    flagged=bool(item["flags"]),
                )
                for item in measured
            ],
            label=_("Share correct against discrimination, one point per item"),
            x_label=_("share correct (easier →)"),
            y_label=_("discrimination"),
            y_threshold=DISCRIMINATION_FLAG_BELOW,
        )
        context = {
            **self.admin_site.each_context(request),
            "title": _("Exam item statistics"),
            "opts": self.model._meta,
            "modules": slugs,
            "module": slug,
            "rows": rows,
            "shown": shown,
            "chart": chart,
            "measured": len(measured),
            "flagged": [item for item in measured if item["flags"]],
        }
        return TemplateResponse(request, "admin/quizzes/examitem/statistics.html", context)


# An item is flagged when it hardly separates strong from weak learners, or when (nearly)
# everyone or (nearly) no one answers it right.
DISCRIMINATION_FLAG_BELOW = 0.2
EASY_ABOVE = 0.95
HARD_BELOW = 0.2


def item_flags(row) -> list[str]:
    """Why an item's statistics call for a look (empty: none, or too few answers)."""
    if row.discrimination is None or row.correct_share is None:
        return []
    flags = []
    if row.discrimination < DISCRIMINATION_FLAG_BELOW:
        flags.append(_("hardly discriminates"))
    if row.correct_share > EASY_ABOVE:
        flags.append(_("almost everyone right"))
    if row.correct_share < HARD_BELOW:
        flags.append(_("almost no one right"))
    return flags


class ExamPolicyForm(forms.ModelForm):
    """The exam policy and, beside it, the rule that decides when a step counts as completed
    (the exam's completion gate counts those steps). The rule belongs to the progress app,
    below this one: the form reads and writes it through ``progress.api``."""

    step_completion_rule = forms.ChoiceField(
        label=gettext_lazy("step completion rule"),
        choices=progress_api.COMPLETION_RULE_CHOICES,
        help_text=gettext_lazy(
            "What a learner must have done before a step counts as completed. Steps completed "
            "before a change stay completed."
        ),
    )
    step_reading_time_share = forms.IntegerField(
        label=gettext_lazy("minimum time (% of reading time)"),
        min_value=0,
        max_value=100,
        help_text=gettext_lazy(
            "Percent of a step's estimated reading time the learner must have had the step open "
            "before completing it (0: no minimum). Not for the free rule."
        ),
    )

    # No Meta: the admin builds the form's Meta from ExamPolicyAdmin (modelform_factory).

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        module_id = self.instance.module_id if self.instance.pk else None
        rule = progress_api.completion_rule_get(module_id=module_id)
        self.fields["step_completion_rule"].initial = rule.rule
        self.fields["step_reading_time_share"].initial = rule.reading_time_share


@admin.register(ExamPolicy)
class ExamPolicyAdmin(admin.ModelAdmin):
    form = ExamPolicyForm
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
        "required_step_share",
    )
    list_select_related = ("module",)
    readonly_fields = ("updated_at",)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        progress_api.completion_rule_set(
            module_id=obj.module_id,
            rule=form.cleaned_data["step_completion_rule"],
            reading_time_share=form.cleaned_data["step_reading_time_share"],
        )


# --- accommodations ----------------------------------------------------------------


@admin.register(ExamAccommodation)
class ExamAccommodationAdmin(admin.ModelAdmin):
    """A learner's own exam conditions per module: extra minutes per attempt, extra attempts.
    They apply to attempts started afterwards (a running attempt keeps its deadline)."""

    list_display = ("learner", "module", "extra_time_minutes", "extra_attempts", "updated_at")
    list_filter = ("module",)
    list_select_related = ("learner", "module")
    search_fields = (
        "learner__username",
        "learner__email",
        "learner__display_name",
        "module__title",
    )
    autocomplete_fields = ("learner", "module")
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
        "choices",
        "answer_key",
        "answer_text",
        "answer_pairs",
        "is_correct",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("position",)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ExamAttempt)
class ExamAttemptAdmin(ModuleDashboardMixin, admin.ModelAdmin):
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

    @admin.display(description=gettext_lazy("score %"), ordering="result__score_percent")
    def score(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return result.score_percent if result else None

    @admin.display(description=gettext_lazy("passed"), boolean=True)
    def passed(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return result.passed if result else None

    @admin.display(description=gettext_lazy("outcome"))
    def finalized_reason(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return result.get_reason_display() if result else _("in progress")

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
            *self.dashboard_urls(),
            *super().get_urls(),
        ]

    def grades_csv_view(self, request):
        """Final grades per learner and module as CSV (``?module=<slug>`` for one module)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        module_ids = None
        if request.GET.get("module"):
            try:
                module_ids = [courses_api.module_by_slug(request.GET["module"]).id]
            except ModuleNotFound as error:
                # The admin's 404 page, not a 500 (the domain error is the API's to answer).
                raise Http404(error.message) from error
        return csv_response(
            filename="exam-grades.csv",
            header=GRADES_CSV_COLUMNS,
            rows=(
                [getattr(row, column) for column in GRADES_CSV_COLUMNS]
                for row in grades_rows(module_ids=module_ids)
            ),
        )


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

    @admin.action(description=gettext_lazy("Revoke selected certificates"), permissions=["change"])
    def revoke(self, request, queryset):
        count = certificates_revoke(
            certificate_ids=queryset.values_list("pk", flat=True),
            reason=f"revoked by {request.user.get_username()}",
        )
        self.message_user(
            request,
            ngettext("%(count)d certificate revoked.", "%(count)d certificates revoked.", count)
            % {"count": count},
            messages.SUCCESS,
        )

    @admin.action(
        description=gettext_lazy("Reinstate selected certificates"), permissions=["change"]
    )
    def reinstate(self, request, queryset):
        count = certificates_reinstate(certificate_ids=queryset.values_list("pk", flat=True))
        self.message_user(
            request,
            ngettext(
                "%(count)d certificate reinstated.", "%(count)d certificates reinstated.", count
            )
            % {"count": count},
            messages.SUCCESS,
        )


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


exam_column_install()
