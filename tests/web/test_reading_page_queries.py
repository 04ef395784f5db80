"""The reading pages' queries: the same with one completed step and its cards as with every step
completed, hundreds of cards, reviews, notes and ratings, and under a budget.

Counted warm, as on a busy server (the content read a moment before is not read again).
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.helpers.queries import assert_queries_constant
from tests.web.test_web_queries import MODULE, fill_learner_data

pytestmark = pytest.mark.django_db

# The content version, session and user; the enrollment, the step's progress row and its notes
# (three plain reads cost less than one with a subquery per note prompt); the quick-check ratings.
STEP_PAGE_BUDGET = 7
# Session and user; enrollments with progress; the module list; per module the exam overview
# (with the content version it is cached by); reviews due; the exam date for the readiness.
DASHBOARD_BUDGET = 14
# Session and user; the content version; the outline status with sections read; the exam rule;
# the exam date form.
MODULE_PAGE_BUDGET = 8


def _first_step_done(learner, course) -> None:
    from reviews.api import cards_for_step_ensure
    from tests.factories import steps_complete_through_rules

    first = course.steps.get(number=1)
    steps_complete_through_rules(learner, course.slug, count=1)
    cards_for_step_ensure(learner_id=learner.pk, step_id=first.pk, at=timezone.now())


def _warm_get(client, url: str) -> None:
    assert client.get(url).status_code == 200, url


@pytest.mark.parametrize(
    ("url", "budget"),
    [
        (MODULE + "steps/1/", STEP_PAGE_BUDGET),
        (MODULE + "steps/12/", STEP_PAGE_BUDGET),
        ("/", DASHBOARD_BUDGET),
        (MODULE, MODULE_PAGE_BUDGET),
    ],
)
def test_reading_pages_make_few_queries_whatever_the_learners_data(
    client, enrolled, course, url, budget
):
    from progress.models import StepProgress
    from quizzes.services.items import exam_policy_get

    exam_policy_get(module_id=course.pk)  # the policy is saved, as once an admin saw it
    client.force_login(enrolled)
    _first_step_done(enrolled, course)
    _warm_get(client, url)

    def grow() -> None:
        StepProgress.objects.filter(learner=enrolled).delete()
        fill_learner_data(enrolled, course)
        _warm_get(client, url)

    assert_queries_constant(lambda: _warm_get(client, url), grow=grow, budget=budget)


def test_the_module_page_with_an_exam_date_makes_few_queries(client, enrolled, course):
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
    _warm_get(client, MODULE)

    def grow() -> None:
        StepProgress.objects.filter(learner=enrolled).delete()
        fill_learner_data(enrolled, course)
        _warm_get(client, MODULE)

    assert_queries_constant(
        lambda: _warm_get(client, MODULE), grow=grow, budget=MODULE_PAGE_BUDGET + 5
    )
