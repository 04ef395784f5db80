"""The course dashboard per module, in the admin: learners, completion, exam and reviews.
It joins four apps, so it lives in quizzes, the highest of them; charts are server-drawn SVG."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.utils.formats import date_format, number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from courses import api as courses_api
from lms.errors import ModuleNotFound
from lms.svg_charts import Bar, bar_chart
from progress import api as progress_api
from quizzes.selectors import module_exam_stats
from reviews import api as reviews_api

REVIEW_DAYS = 90


def _percent(share: float | None) -> str:
    return "–" if share is None else f"{round(share * 100)} %"


class ModuleDashboardMixin:
    """``ExamAttemptAdmin`` mixes this in: ``dashboard/<module slug>/``."""

    def dashboard_urls(self):
        return [
            path(
                "dashboard/",
                self.admin_site.admin_view(self.dashboard_first_view),
                name="quizzes_module_dashboard_first",
            ),
            path(
                "dashboard/<slug:module>/",
                self.admin_site.admin_view(self.dashboard_view),
                name="quizzes_module_dashboard",
            ),
        ]

    def dashboard_first_view(self, request):
        """Where a course admin lands after logging in: the first module's dashboard (the
        admin's index when there is no module yet)."""
        modules = courses_api.modules_administered(request.user)
        if not modules:
            return redirect("admin:index")
        return redirect("admin:quizzes_module_dashboard", module=modules[0].slug)

    def dashboard_view(self, request, module: str):
        if not (
            request.user.has_perm("courses.view_module")
            and request.user.has_perm("progress.view_enrollment")
        ):
            raise PermissionDenied
        try:
            # Another module than the admin's is a 404 (courses.api.administered_module_ids).
            module_data = courses_api.administered_module_by_slug(request.user, module)
        except ModuleNotFound as error:
            raise Http404(error.message) from error
        now = timezone.now()
        learners = progress_api.module_learner_stats(module_id=module_data.id, now=now)
        exam = module_exam_stats(module_id=module_data.id)
        reviews = reviews_api.module_review_stats(
            module_id=module_data.id,
            now=now,
            days=REVIEW_DAYS,
            time_zone=timezone.get_current_timezone(),
        )
        funnel = [
            Bar(
                label=str(step.number),
                value=step.learners,
                title=ngettext(
                    "Step %(number)d · %(term)s: %(count)d learner completed it",
                    "Step %(number)d · %(term)s: %(count)d learners completed it",
                    step.learners,
                )
                % {"number": step.number, "term": step.term, "count": step.learners},
            )
            for step in learners.funnel
        ]
        histogram = [
            Bar(
                label=f"{low}–{low + 9 if low < 90 else 100}",
                value=count,
                title=ngettext(
                    "%(count)d attempt scored %(low)d–%(high)d %%",
                    "%(count)d attempts scored %(low)d–%(high)d %%",
                    count,
                )
                % {"count": count, "low": low, "high": low + 9 if low < 90 else 100},
            )
            for low, count in zip(range(0, 100, 10), exam.score_histogram, strict=True)
        ]
        per_day = [
            Bar(
                label=date_format(day.day, "d.m.") if index % 15 == 0 else "",
                value=day.reviews,
                title=_("%(day)s: %(reviews)d reviews, %(recalled)d recalled")
                % {
                    "day": date_format(day.day, "SHORT_DATE_FORMAT"),
                    "reviews": day.reviews,
                    "recalled": day.recalled,
                },
            )
            for index, day in enumerate(reviews.days)
        ]
        median = learners.median_days_to_completion
        figures = [
            (_("enrolled learners"), learners.enrolled),
            (_("active in the last 7 days"), learners.active_7_days),
            (_("active in the last 30 days"), learners.active_30_days),
            (_("completed every step"), learners.completed_all),
            (
                _("median days from enrolling to completing"),
                "–" if median is None else number_format(round(median, 1), 1),
            ),
            (_("exam attempts"), exam.attempts),
            (_("pass rate (learners)"), _percent(exam.pass_rate)),
            (_("valid certificates"), exam.certificates),
            (_("reviews in the last 90 days"), reviews.reviews),
            (_("true retention (share recalled)"), _percent(reviews.retention)),
            (_("reviews due now"), reviews.due_now),
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": _("Dashboard: %(module)s") % {"module": module_data.title},
            "opts": self.model._meta,
            "module": module_data,
            "figures": figures,
            "learners": learners,
            "exam": exam,
            "reviews": reviews,
            "funnel_chart": bar_chart(
                funnel,
                label=_("Learners who completed each step"),
                every_label=max(1, len(funnel) // 16),
            ),
            "histogram_chart": bar_chart(
                histogram, label=_("Finalized attempts by score"), width=520
            ),
            "reviews_chart": bar_chart(per_day, label=_("Reviews per day, last 90 days")),
        }
        return TemplateResponse(request, "admin/quizzes/module_dashboard.html", context)
