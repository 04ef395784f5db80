"""The learner's dashboard: modules with a progress ring, where to resume, reviews due, exams."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from courses.selectors import module_catalog
from progress.selectors import enrollment_list, module_progress_get
from reviews.selectors import due_count, exam_readiness
from web.views.exam import exam_status_for_dashboard


def dashboard(request: HttpRequest) -> HttpResponse:
    """Every enrolled module with percent, resume step and exam status; the due review count.

    Per enrolled module the progress selector runs its fixed queries and the exam overview
    reuses its completed steps (DASHBOARD_QUERIES in tests/web/test_web_queries.py); nothing
    grows with the number of steps, progress rows or review cards.
    """
    learner = request.user
    now = timezone.now()
    enrolled = []
    for enrollment in enrollment_list(learner_id=learner.pk):
        progress = module_progress_get(learner_id=learner.pk, module_slug=enrollment.module.slug)
        completed_ids = frozenset(s.id for s in progress.steps if s.status == "completed")
        enrolled.append(
            {
                "module": enrollment.module,
                "percent": progress.percent_complete,
                "completed": progress.completed_steps,
                "total": progress.total_steps,
                "next_step": progress.next_step,
                "exam": exam_status_for_dashboard(
                    learner=learner,
                    module_slug=enrollment.module.slug,
                    completed_step_ids=completed_ids,
                ),
                "readiness": exam_readiness(
                    learner=learner, module_id=enrollment.module.pk, at=now
                ),
            }
        )
    enrolled_ids = {item["module"].pk for item in enrolled}
    others = [module for module in module_catalog() if module.pk not in enrolled_ids]
    return render(
        request,
        "web/dashboard.html",
        {
            "nav": "dashboard",
            "enrolled": enrolled,
            "others": others,
            "due": due_count(learner=learner, at=now),
        },
    )
