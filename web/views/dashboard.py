"""The learner's dashboard: modules with a progress ring, where to resume, reviews due, exams."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from courses.selectors import module_catalog, module_list
from lms.content_cache import ContentCache
from progress.selectors import learner_progress_get
from reviews.selectors import due_count, exam_readiness
from web.templatetags.lernpfad import progress_ring
from web.views.exam import exam_status_for_dashboard

# A module the learner may enroll in, as the dashboard lists it, is the same for every learner:
# rendered once per module's shown content and language, it is two strings around the page's
# CSRF token. Rendering the ~50 of the benchmark's catalogue (two URL reversals, a plural
# translation and a form each) was most of the dashboard's template time (bench.profile
# web_dashboard).
_offers = ContentCache(name="dashboard module offers", max_entries=2000)
_CSRF_SLOT = "\x00csrf\x00"


def _offer(module, *, language: str | None, script_prefix: str) -> dict:
    """The module's list entry before and after its CSRF token, in ``language`` (the active one)
    under ``script_prefix`` (the request's): the caller reads both once for the whole list (each
    a look-up in the request's thread-local state, ~100 a page)."""
    key = (
        module.pk,
        module.slug,
        module.header,
        module.step_count,
        language,
        script_prefix,
    )
    offer = _offers.get(key)
    if offer is None:
        html = render_to_string(
            "web/includes/module_offer.html", {"module": module, "csrf_token": _CSRF_SLOT}
        ).rstrip("\n")
        before, after = html.split(_CSRF_SLOT)
        offer = {"before": mark_safe(before), "after": mark_safe(after)}
        _offers.put(key, offer)
    return offer


# A progress ring depends only on its percentage and the language (its label): drawn once per
# pair instead of once per module card (an inclusion tag's template, a translation).
_rings = ContentCache(name="dashboard progress rings", max_entries=1000)


def _ring(percent: int, *, language: str | None) -> str:
    """``{% progress_ring percent %}``'s markup, in ``language`` (the active one)."""
    key = (percent, language)
    ring = _rings.get(key)
    if ring is None:
        ring = mark_safe(render_to_string("web/includes/ring.html", progress_ring(percent)))
        _rings.put(key, ring)
    return ring


def enrolled_modules(module_ids: list[int]) -> list:
    """The learner's modules by the ids of their enrollments (``LearnerProgress.module_ids``,
    newest first): from the course list this process trusts for a second (``module_catalog``),
    or read when one is newer than that copy."""
    ids = module_ids
    by_id = {module.pk: module for module in module_catalog()}
    missing = [pk for pk in ids if pk not in by_id]
    if missing:
        by_id.update((module.pk, module) for module in module_list().filter(pk__in=missing))
    return [by_id[pk] for pk in ids if pk in by_id]


def dashboard(request: HttpRequest) -> HttpResponse:
    """Every enrolled module with percent, resume step and exam status; the due review count.

    The enrollments and progress come in one statement (``learner_progress_get``); per
    enrolled module the exam overview reuses its completed steps (DASHBOARD_QUERIES in
    tests/web/test_reading_page_queries.py);
    nothing grows with the number of steps, progress rows or review cards.
    """
    learner = request.user
    now = timezone.now()
    language = get_language()
    enrolled = []
    learner_progress = learner_progress_get(learner_id=learner.pk)
    for module in enrolled_modules(learner_progress.module_ids):
        progress = learner_progress.module(module.slug)
        completed_ids = frozenset(s.id for s in progress.steps if s.status == "completed")
        enrolled.append(
            {
                "module": module,
                "percent": progress.percent_complete,
                "ring": _ring(progress.percent_complete, language=language),
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
    script_prefix = get_script_prefix()
    others = [
        _offer(module, language=language, script_prefix=script_prefix)
        for module in module_catalog()
        if module.pk not in enrolled_ids
    ]
    # The entries joined here, each with this request's CSRF token (a mask of the same secret as
    # the page's other forms'): three template look-ups per entry were a tenth of the page.
    token = get_token(request)
    others_markup = mark_safe(
        "".join(f"\n      {offer['before']}{token}{offer['after']}\n    " for offer in others)
    )
    return render(
        request,
        "web/dashboard.html",
        {
            "nav": "dashboard",
            "enrolled": enrolled,
            "others": others,
            "others_markup": others_markup,
            "due": due_count(learner=learner, at=now),
        },
    )
