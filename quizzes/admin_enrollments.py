"""The enrollments list's exam column (and CSV columns): best score, passed, certificate.
Quizzes sits above progress, so it adds the column rather than progress reaching up."""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.selectors import LearnerExamSummary, learner_exam_summaries


class ExamColumn:
    name = "exam"
    description = _("exam")
    csv_header = (
        _("Exam attempts"),
        _("Best score (%)"),
        _("Exam passed"),
        _("Certificate code"),
    )

    def load(self, enrollments) -> None:
        summaries = learner_exam_summaries(
            (enrollment.learner_id, enrollment.module_id) for enrollment in enrollments
        )
        for enrollment in enrollments:
            enrollment.exam_summary = summaries.get((enrollment.learner_id, enrollment.module_id))

    def _summary(self, enrollment) -> LearnerExamSummary | None:
        return getattr(enrollment, "exam_summary", None)

    def cell(self, enrollment) -> str:
        summary = self._summary(enrollment)
        if summary is None:
            return gettext("no attempt")
        score = (
            f"{number_format(summary.best_score, 0)} %"
            if summary.best_score is not None
            else gettext("in progress")
        )
        verdict = gettext("passed") if summary.passed else gettext("not passed")
        certificate = ""
        if summary.certificate_code:
            certificate = format_html(
                ' · <a href="{}?q={}">{}</a>',
                reverse("admin:quizzes_certificate_changelist"),
                summary.certificate_code,
                gettext("certificate"),
            )
        return format_html(
            '<span title="{}">{} · {}</span>{}',
            gettext("best score of %(attempts)d attempt(s)") % {"attempts": summary.attempts},
            score,
            verdict,
            certificate,
        )

    def csv_values(self, enrollment) -> list:
        summary = self._summary(enrollment)
        if summary is None:
            return [0, None, False, None]
        return [summary.attempts, summary.best_score, summary.passed, summary.certificate_code]


def exam_column_install() -> None:
    """Add the column to the enrollments list (progress.admin registers it first:
    ``progress`` comes before ``quizzes`` in INSTALLED_APPS)."""
    enrollment_admin = admin.site.get_model_admin(apps.get_model("progress", "Enrollment"))
    enrollment_admin.extra_column_add(ExamColumn())
