"""Admin of quick-check ratings and exams: item bank, policies, attempts, grades CSV, statistics."""

from __future__ import annotations

import json
from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from courses import api as courses_api
from lms.csv_export import EXPORT_FORMATS, table_response
from lms.errors import Conflict, ModuleNotFound
from lms.svg_charts import Point, scatter_chart
from progress import api as progress_api
from quizzes.admin_dashboard import ModuleDashboardMixin
from quizzes.admin_enrollments import exam_column_install
from quizzes.admin_gift import GiftImportExportMixin
from quizzes.admin_item_form import ExamItemForm
from quizzes.answers import accepted_answers
from quizzes.item_analysis import (
    CIC_SATISFACTORY_FROM,
    CIC_UNSATISFACTORY_BELOW,
    DOUBTFUL_EFFICIENCY_BELOW,
    ERROR_RATIO_ACCEPTABLE_BELOW,
    ItemFigures,
)
from quizzes.models import (
    Certificate,
    ExamAccommodation,
    ExamAttempt,
    ExamItem,
    ExamPolicy,
    ExamRegrade,
    ExamRegradeLearner,
    QuickCheckRating,
)
from quizzes.selectors import (
    attempt_admin_review,
    exam_bank_states,
    grades_rows,
    item_analysis,
    item_regrade_plan,
    lookup_risk_ids,
)
from quizzes.services.certificates import certificates_reinstate, certificates_revoke
from quizzes.services.item_review import exam_item_edit_review, exam_items_review
from quizzes.services.regrade import exam_item_regrade

# The grades export's columns: (GradesRow field, header).
GRADES_COLUMNS = (
    ("module", gettext_lazy("Module")),
    ("username", gettext_lazy("Username")),
    ("name", gettext_lazy("Full name")),
    ("email", gettext_lazy("E-mail")),
    ("attempts", gettext_lazy("Attempts")),
    ("scores", gettext_lazy("Scores (%)")),
    ("grading_method", gettext_lazy("Grading method")),
    ("final_grade", gettext_lazy("Final grade (%)")),
    ("passed", gettext_lazy("Passed")),
    ("last_finalized_at", gettext_lazy("Last attempt finished")),
    ("certificate_issued", gettext_lazy("Certificate issued")),
)


def _grades_cells(row) -> list:
    """A grades row's cells: the scores as "60,00 / 80,00", the grading method in words."""
    shown = {
        "scores": " / ".join(number_format(score, 2) for score in row.scores),
        "grading_method": dict(ExamPolicy.GradingMethod.choices).get(
            row.grading_method, row.grading_method
        ),
    }
    return [shown.get(field, getattr(row, field, None)) for field, _label in GRADES_COLUMNS]


@admin.register(ExamItem)
class ExamItemAdmin(courses_api.ModuleScopedAdminMixin, GiftImportExportMixin, admin.ModelAdmin):
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

    def get_list_display(self, request):
        """The columns and the look-up risk: the items a script answers right from the public
        course text alone (quizzes.lookup_solver), worked out once per module and request."""
        risky: dict[int, set[int]] = {}

        @admin.display(description=gettext_lazy("look-up risk"), boolean=True)
        def lookup_risk(item):
            if item.module_id not in risky:
                risky[item.module_id] = lookup_risk_ids(module_id=item.module_id)
            return item.pk in risky[item.module_id]

        return (*self.list_display, lookup_risk)

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
    # One set of answer fields per kind (quizzes/admin_item_form.py); item_editor.js shows the
    # chosen kind's and keeps the learner's preview beside them.
    form = ExamItemForm
    change_form_template = "admin/quizzes/examitem/change_form.html"
    fieldsets = (
        (None, {"fields": ("module", "step", "kind", "title", "prompt", "text_format")}),
        (
            gettext_lazy("Options (single and multiple choice)"),
            {"fields": ("choice_rows",), "classes": ("kind-single_choice", "kind-multiple_choice")},
        ),
        (
            gettext_lazy("True or false"),
            {
                "fields": (
                    "true_false_correct",
                    "true_false_feedback_true",
                    "true_false_feedback_false",
                ),
                "classes": ("kind-true_false",),
            },
        ),
        (
            gettext_lazy("Accepted answers (short answer)"),
            {"fields": ("accepted_rows", "case_sensitive"), "classes": ("kind-short_answer",)},
        ),
        (
            gettext_lazy("Right numbers (numerical)"),
            {"fields": ("number_rows",), "classes": ("kind-numerical",)},
        ),
        (
            gettext_lazy("Pairs (matching)"),
            {"fields": ("pair_rows",), "classes": ("kind-matching",)},
        ),
        (None, {"fields": ("explanation",)}),
        (
            gettext_lazy("Review"),
            {"fields": ("status", "reviewed_by", "reviewed_at", "is_active")},
        ),
        (
            gettext_lazy("Origin"),
            {
                "fields": (
                    "origin",
                    "generator_key",
                    "is_retired",
                    "category",
                    "gift_comment",
                    "created_at",
                    "updated_at",
                ),
                "classes": ("collapse",),
            },
        ),
    )
    actions = [
        "copy_as_hand_written",
        "approve",
        "reject",
        "back_to_draft",
        "regrade",
        "export_gift",
    ]

    @admin.display(description=gettext_lazy("prompt"))
    def short_prompt(self, item: ExamItem) -> str:
        prompt = item.plain_prompt()
        return prompt if len(prompt) <= 90 else prompt[:89] + "…"

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
                text_format=item.text_format,
                answer_feedback=item.answer_feedback,
                category=item.category,
                gift_comment=item.gift_comment,
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

    @admin.action(
        description=gettext_lazy("Regrade the attempts that drew the selected item…"),
        permissions=["change"],
    )
    def regrade(self, request, queryset):
        """The regrade page of the one selected item (a dry run first, as in Moodle)."""
        ids = list(queryset.values_list("pk", flat=True)[:2])
        if len(ids) != 1:
            self.message_user(request, _("Select exactly one item to regrade."), messages.ERROR)
            return None
        return redirect("admin:quizzes_examitem_regrade", ids[0])

    def regrade_view(self, request, object_id):
        """GET: what a regrade would change, per learner before → after (a dry run); POST:
        regrade, then show what changed."""
        item = self.get_object(request, object_id)
        if item is None:
            raise Http404
        if not self.has_change_permission(request, item):
            raise PermissionDenied
        done = None
        if request.method == "POST":
            try:
                done = exam_item_regrade(item_id=item.pk, admin=request.user)
            except Conflict as error:
                self.message_user(request, error.message, messages.ERROR)
                return redirect("admin:quizzes_examitem_regrade", item.pk)
            plan = done.plan
            if done.regrade is None:
                self.message_user(
                    request,
                    _("Nothing to regrade: every attempt already has this key."),
                    messages.INFO,
                )
            else:
                self.message_user(
                    request,
                    ngettext(
                        "%(count)d attempt regraded.",
                        "%(count)d attempts regraded.",
                        done.regrade.attempts_changed,
                    )
                    % {"count": done.regrade.attempts_changed},
                    messages.SUCCESS,
                )
        else:
            plan = item_regrade_plan(item_id=item.pk)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Regrade question %(id)d") % {"id": item.pk},
            "opts": self.model._meta,
            "original": item,
            "plan": plan,
            "done": done,
        }
        return TemplateResponse(request, "admin/quizzes/examitem/regrade.html", context)

    def save_model(self, request, obj, form, change):
        """Record who decided on the item; an edit of an approved item's text returns it to
        draft (``quizzes.services.item_review.exam_item_edit_review``)."""
        previous = form.initial.get("status") if change else None
        returned = exam_item_edit_review(
            item=obj,
            previous_status=previous,
            changed_fields=form.changed_item_fields(),
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
        key_fields = {"options", "correct_keys", "answer_key", "kind"}
        if change and key_fields & set(form.changed_item_fields()) and obj.attempt_items.exists():
            self.message_user(
                request,
                format_html(
                    '{} <a href="{}">{}</a>',
                    _("Attempts that drew this item keep their grade until you regrade them."),
                    reverse("admin:quizzes_examitem_regrade", args=[obj.pk]),
                    _("Regrade now"),
                ),
                messages.WARNING,
            )

    def get_urls(self):
        return [
            path(
                "statistics/",
                self.admin_site.admin_view(self.statistics_view),
                name="quizzes_examitem_statistics",
            ),
            path(
                "preview/",
                self.admin_site.admin_view(self.preview_view),
                name="quizzes_examitem_preview",
            ),
            path(
                "<path:object_id>/regrade/",
                self.admin_site.admin_view(self.regrade_view),
                name="quizzes_examitem_regrade",
            ),
            *self.gift_urls(),
            *super().get_urls(),
        ]

    def preview_view(self, request):
        """The editor's form data (POST) as the learner's exam page shows the question: the
        same template, whether or not the form is valid yet. Writes nothing."""
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            raise PermissionDenied
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        item = ExamItemForm(request.POST).preview_fields()
        return TemplateResponse(request, "admin/quizzes/examitem/preview.html", {"item": item})

    def statistics_view(self, request):
        """Moodle's item analysis of the certifying exam (quizzes.item_analysis): the test's
        figures, and per item its figures now and before its last edit."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        modules = {module.slug: module for module in courses_api.modules_administered(request.user)}
        slugs = list(modules)
        slug = request.GET.get("module") or (slugs[0] if slugs else None)
        if slug not in modules and courses_api.administered_module_ids(request.user) is not None:
            raise Http404(_("No such module."))
        analysis = None
        if slug in modules:
            analysis = item_analysis(module_id=modules[slug].id)
        kinds = dict(ExamItem.Kind.choices)
        statuses = dict(ExamItem.Status.choices)
        shown = [
            {
                "row": row,
                "kind": kinds.get(row.kind, row.kind),
                "status": statuses.get(row.status, row.status),
                "flags": item_flags(row.figures),
            }
            for row in (analysis.rows if analysis else [])
        ]
        measured = [
            item
            for item in shown
            if item["row"].figures and item["row"].figures.discriminative_efficiency is not None
        ]
        chart = scatter_chart(
            [
                Point(
                    x=item["row"].figures.facility / 100,
                    y=item["row"].figures.discriminative_efficiency / 100,
                    title=_(
                        "Item %(id)d (%(kind)s): facility %(f).0f %%, discriminative "
                        "efficiency %(e).0f %%"
                    )
                    % {
                        "id": item["row"].id,
                        "kind": item["kind"],
                        "f": item["row"].figures.facility,
                        "e": item["row"].figures.discriminative_efficiency,
                    },
                    flagged=bool(item["flags"]),
                )
                for item in measured
            ],
            label=_("Facility against discriminative efficiency, one point per item"),
            x_label=_("facility (easier →)"),
            y_label=_("discriminative efficiency"),
            y_threshold=DOUBTFUL_EFFICIENCY_BELOW / 100,
        )
        context = {
            **self.admin_site.each_context(request),
            "title": _("Item analysis of the exam"),
            "opts": self.model._meta,
            "modules": slugs,
            "module": slug,
            "exam": analysis.exam if analysis else None,
            "shown": shown,
            "chart": chart,
            "measured": len(measured),
            "flagged": [item for item in measured if item["flags"]],
            "doubtful_below": DOUBTFUL_EFFICIENCY_BELOW,
            "cic_satisfactory_from": CIC_SATISFACTORY_FROM,
            "cic_unsatisfactory_below": CIC_UNSATISFACTORY_BELOW,
            "error_ratio_below": ERROR_RATIO_ACCEPTABLE_BELOW,
        }
        return TemplateResponse(request, "admin/quizzes/examitem/statistics.html", context)


# Besides Moodle's doubtful efficiency: an item (nearly) everyone or (nearly) no one answers
# right tells little, and one the weaker learners answer better than the stronger is likely
# miskeyed.
EASY_ABOVE = 95.0
HARD_BELOW = 20.0


def item_flags(figures: ItemFigures | None) -> list[str]:
    """Why an item's figures call for a look (empty: none, or too few answers to say)."""
    if figures is None or figures.discriminative_efficiency is None:
        return []
    flags = []
    if figures.doubtful:
        flags.append(_("doubtful: discriminative efficiency below 15 %"))
    if figures.discrimination_index is not None and figures.discrimination_index < 0:
        flags.append(_("weaker learners do better: check the key"))
    if figures.facility > EASY_ABOVE:
        flags.append(_("almost everyone right"))
    if figures.facility < HARD_BELOW:
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
class ExamPolicyAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
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
class ExamAccommodationAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
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


@admin.register(ExamAttempt)
class ExamAttemptAdmin(courses_api.ModuleScopedAdminMixin, ModuleDashboardMixin, admin.ModelAdmin):
    """Attempts with their scores; read-only (grading happens on the server only). An
    attempt's page is its review: every question as the learner saw it, their answer, the key."""

    change_list_template = "admin/quizzes/examattempt/change_list.html"
    list_display = (
        "attempt_title",
        "module_number",
        "started_at",
        "score",
        "passed",
        "finalized_reason",
    )
    list_filter = ("module", "result__passed", "result__reason")
    list_select_related = ("learner", "module", "result")
    search_fields = ("learner__username", "learner__email", "learner__full_name")
    date_hierarchy = "started_at"

    @admin.display(description=gettext_lazy("attempt"), ordering="learner__username")
    def attempt_title(self, attempt: ExamAttempt) -> str:
        return _("%(name)s · attempt %(number)d") % {
            "name": attempt.learner.certificate_name,
            "number": attempt.number,
        }

    @admin.display(description=gettext_lazy("module"), ordering="module__number")
    def module_number(self, attempt: ExamAttempt) -> int:
        return attempt.module.number

    @admin.display(description=gettext_lazy("score"), ordering="result__score_percent")
    def score(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return f"{number_format(result.score_percent, 0)} %" if result else "–"

    @admin.display(description=gettext_lazy("passed"), boolean=True)
    def passed(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return result.passed if result else None

    @admin.display(description=gettext_lazy("outcome"))
    def finalized_reason(self, attempt: ExamAttempt):
        result = getattr(attempt, "result", None)
        return result.get_reason_display() if result else _("in progress")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The attempt's review (read-only: there is nothing to change in an attempt)."""
        if not object_id.isdigit():
            raise Http404
        attempt = self.get_queryset(request).filter(pk=object_id).first()
        if attempt is None:
            raise Http404
        if not self.has_view_permission(request, attempt):
            raise PermissionDenied
        review = attempt_admin_review(attempt_id=attempt.pk)
        context = {
            **self.admin_site.each_context(request),
            "title": str(review.attempt),
            "opts": self.model._meta,
            "review": review,
            "can_edit_items": request.user.has_perm("quizzes.change_examitem"),
        }
        return TemplateResponse(request, "admin/quizzes/examattempt/review.html", context)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_urls(self):
        return [
            path(
                "grades.<str:export_format>",
                self.admin_site.admin_view(self.grades_view),
                name="quizzes_examattempt_grades",
            ),
            *self.dashboard_urls(),
            *super().get_urls(),
        ]

    def grades_view(self, request, export_format: str):
        """Final grades per learner and module as CSV or .xlsx (``?module=<slug>`` for one
        module), headers in the admin's language."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        if export_format not in EXPORT_FORMATS:
            raise Http404
        scope = courses_api.administered_module_ids(request.user)
        module_ids = None if scope is None else sorted(scope)
        if request.GET.get("module"):
            try:
                module = courses_api.administered_module_by_slug(
                    request.user, request.GET["module"]
                )
            except ModuleNotFound as error:
                # The admin's 404 page, not a 500 (the domain error is the API's to answer).
                raise Http404(error.message) from error
            module_ids = [module.id]
        return table_response(
            export_format=export_format,
            filename_stem="exam-grades",
            header=[label for _field, label in GRADES_COLUMNS],
            rows=(_grades_cells(row) for row in grades_rows(module_ids=module_ids)),
        )


@admin.register(Certificate)
class CertificateAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
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
class QuickCheckRatingAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
    module_path = "step__module"
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


# --- regrades: the audit lines ---------------------------------------------------------------


class ExamRegradeLearnerInline(admin.TabularInline):
    model = ExamRegradeLearner
    fields = (
        "learner_name",
        "attempts_text",
        "grade_before",
        "grade_after",
        "passed_before",
        "passed_after",
        "certificate_action",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False

    @admin.display(description=gettext_lazy("learner"))
    def learner_name(self, line: ExamRegradeLearner) -> str:
        return line.learner.certificate_name

    @admin.display(description=gettext_lazy("attempts"))
    def attempts_text(self, line: ExamRegradeLearner) -> str:
        def score(value: str | None) -> str:
            return "–" if value is None else number_format(Decimal(value), 2)

        return "; ".join(
            _("attempt %(number)d: %(before)s → %(after)s")
            % {
                "number": attempt["number"],
                "before": score(attempt["score_before"]),
                "after": score(attempt["score_after"]),
            }
            for attempt in line.attempts
        )

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("learner")


@admin.register(ExamRegrade)
class ExamRegradeAdmin(courses_api.ModuleScopedAdminMixin, admin.ModelAdmin):
    """Every regrade: who, when, which question and key, each learner before → after."""

    module_path = "item__module"

    list_display = ("performed_at", "performed_by_name", "short_prompt", "attempts_changed")
    list_select_related = ("item",)
    readonly_fields = (
        "item",
        "item_prompt",
        "key_text",
        "performed_by_name",
        "performed_at",
        "attempts_changed",
    )
    fields = readonly_fields
    inlines = [ExamRegradeLearnerInline]

    @admin.display(description=gettext_lazy("key regraded to"))
    def key_text(self, regrade: ExamRegrade) -> str:
        """The key in words: the right options' texts, or the accepted answers."""
        key, item = regrade.key, regrade.item
        if key.get("correct_keys") and item is not None:
            texts = {option["key"]: option["text"] for option in item.options}
            return " · ".join(texts.get(k, k) for k in key["correct_keys"])
        if item is not None:
            shown = accepted_answers(kind=item.kind, answer_key=key.get("answer_key"))
            if shown:
                return " · ".join(shown)
        return json.dumps(key, ensure_ascii=False)

    @admin.display(description=gettext_lazy("question"))
    def short_prompt(self, regrade: ExamRegrade) -> str:
        prompt = regrade.item_prompt
        return prompt if len(prompt) <= 70 else prompt[:69] + "…"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


exam_column_install()
