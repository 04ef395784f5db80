"""The reading pages' query counts, pinned: the same with one completed step and its cards as
with every step completed, hundreds of cards, reviews, notes and ratings (issue 18: the step
page made 17 queries and the dashboard 13 before).

Counted warm, as on a busy server (the per-process content caches of a second are filled).
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.web.test_web_queries import MODULE, fill_learner_data, warm_count_queries

pytestmark = pytest.mark.django_db

# Session and user (2); the learner's status, sections read and both notes, carrying the
# ratings of its quick checks (progress.selectors.step_reader_state with
# quizzes.selectors.quick_check_ratings_column, 1; before: a query of its own). The step, its
# sections and quick checks come from the process's copy of a second
# (courses.selectors.step_get; 3 queries when cold). The GET records nothing (the opening is
# the page's progress event).
STEP_PAGE_QUERIES = 3
# Session and user (2); the enrollments with every progress row (progress.selectors.
# learner_progress_get, 1; before issue 19's second part: the enrolled modules' ids, then each
# module's progress, a statement each); per module the exam policy with the accommodation,
# item count, attempts and certificate (quizzes.sql.exam_overview_read, 1) - the completed
# steps come from the progress read; the reviews due (reviews.selectors.due_summary, 1); the
# exam date with its module plan for the readiness (reviews.selectors.exam_date_for, 1). The
# modules come from the process's copy of a second (courses.selectors.module_catalog; 1 query
# when cold).
DASHBOARD_QUERIES = 6
# Session and user (2); the learner's outline status with the sections read (1); the exam
# date form (web.views.fsrs.exam_date_context: the learner's date and the module's plan in one,
# reviews.selectors.exam_date_for, 1; no readiness without a date). Module, steps and sections
# (courses.selectors.module_get; 3 queries when cold) and the exam's rule
# (quizzes.selectors.exam_rule_get; 1) come from the process's copies of a second. Before
# issue 19: 8 (the rule, and the date read twice in two queries each).
MODULE_PAGE_QUERIES = 4


def _first_step_done(learner, course) -> None:
    from progress.services.step_events import step_event_record
    from reviews.api import cards_for_step_ensure

    first = course.steps.get(number=1)
    for kind in first.sections.values_list("kind", flat=True):
        step_event_record(
            learner_id=learner.pk,
            module_slug=course.slug,
            number=1,
            kind="section_viewed",
            section=kind,
        )
    step_event_record(learner_id=learner.pk, module_slug=course.slug, number=1, kind="completed")
    cards_for_step_ensure(learner_id=learner.pk, step_id=first.pk, at=timezone.now())


def _counts(client) -> dict[str, int]:
    return {
        "step": warm_count_queries(client, MODULE + "steps/1/"),
        "step_12": warm_count_queries(client, MODULE + "steps/12/"),
        "dashboard": warm_count_queries(client, "/"),
        "module": warm_count_queries(client, MODULE),
    }


def test_reading_pages_are_pinned_and_constant(client, enrolled, course):
    from progress.models import StepProgress
    from quizzes.services.items import exam_policy_get

    exam_policy_get(module_id=course.pk)  # the policy is saved, as once an admin saw it
    client.force_login(enrolled)
    _first_step_done(enrolled, course)
    expected = {
        "step": STEP_PAGE_QUERIES,
        "step_12": STEP_PAGE_QUERIES,
        "dashboard": DASHBOARD_QUERIES,
        "module": MODULE_PAGE_QUERIES,
    }
    assert _counts(client) == expected
    StepProgress.objects.filter(learner=enrolled).delete()
    fill_learner_data(enrolled, course)
    assert _counts(client) == expected


def test_the_module_page_with_an_exam_date_is_pinned_and_constant(client, enrolled, course):
    """With an exam date the page also shows the readiness: the parameters (own, pooled), the
    cards and the steps (reviews.selectors.exam_readiness, given the date the form read)."""
    import datetime

    from progress.models import StepProgress
    from reviews.models import ExamDate

    now = timezone.now()
    ExamDate.objects.create(
        learner=enrolled, module=course, exam_on=now.date() + datetime.timedelta(days=9), set_at=now
    )
    client.force_login(enrolled)
    _first_step_done(enrolled, course)
    few = warm_count_queries(client, MODULE)
    StepProgress.objects.filter(learner=enrolled).delete()
    fill_learner_data(enrolled, course)
    assert warm_count_queries(client, MODULE) == few == MODULE_PAGE_QUERIES + 4
