"""The learner's dashboard: modules with a progress ring, where to resume, reviews due, exams."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from courses.selectors import module_catalog
from progress.selectors import learner_progress_get
from reviews.selectors import due_count, exam_readiness
from web.views.exam import exam_status_for_dashboard


def enrolled_modules(module_ids: list[int], catalog: list) -> list:
    """The learner's modules of ``catalog`` (``module_catalog()``) by the ids of their
    enrollments (``LearnerProgress.module_ids``, newest first)."""
    by_id = {module.pk: module for module in catalog}
    return [by_id[pk] for pk in module_ids if pk in by_id]


def dashboard(request: HttpRequest) -> HttpResponse:
    """Every enrolled module with percent, resume step and exam status; the due review count.

    The enrollments and progress come in one statement (``learner_progress_get``); per
    enrolled module the exam overview reuses its completed steps; nothing grows with the
    number of steps, progress rows or review cards.
    """
    learner = request.user
    now = timezone.now()
    enrolled = []
    learner_progress = learner_progress_get(learner_id=learner.pk)
    catalog = module_catalog()
    for module in enrolled_modules(learner_progress.module_ids, catalog):
        progress = learner_progress.module(module.slug)
        completed_ids = frozenset(s.id for s in progress.steps if s.status == "completed")
        enrolled.append(
            {
                "module": module,
                "percent": progress.percent_complete,
                "completed": progress.completed_steps,
                "total": progress.total_steps,
                "next_step": progress.next_step,
                "exam": exam_status_for_dashboard(
                    learner=learner,
                    module_slug=module.slug,
                    completed_step_ids=completed_ids,
                ),
                "readiness": exam_readiness(learner=learner, module_id=module.pk, at=now),
            }
        )
    enrolled_ids = {item["module"].pk for item in enrolled}
    return render(
        request,
        "web/dashboard.html",
        {
            "nav": "dashboard",
            "enrolled": enrolled,
            "others": [module for module in catalog if module.pk not in enrolled_ids],
            "due": due_count(learner=learner, at=now),
        },
    )
