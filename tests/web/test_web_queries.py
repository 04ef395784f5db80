"""Pages load with a constant number of queries, whatever the amount of learner data.

Each page is measured for a learner with (almost) nothing and again with many rows (all steps
completed, hundreds of review cards and reviews, notes, ratings); the count must not change.
"""

from __future__ import annotations

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.helpers.queries import assert_queries_constant, assert_queries_within

pytestmark = pytest.mark.django_db

MODULE = "/modules/self-hosting-27/"


def count_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as context:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(context.captured_queries)


def warm_count_queries(client, url: str) -> int:
    """The queries of a page visited right before, as on a busy server: the cached content of
    the module's version is warm."""
    count_queries(client, url)
    return count_queries(client, url)


def fill_learner_data(learner, course) -> None:
    """All 32 steps completed, their review cards created and reviewed, notes and ratings."""
    from progress.models import StepProgress
    from progress.services.notes import step_notes_put
    from quizzes.selectors import quick_check_ratings_for_step
    from quizzes.services.quick_checks import quick_check_rate
    from reviews.api import cards_for_step_ensure
    from reviews.models import ReviewCard
    from reviews.services.reviewing import review_record
    from tests.factories import flashcard_quick_check_add

    now = timezone.now()
    steps = list(course.steps.filter(status="active").order_by("number"))
    StepProgress.objects.bulk_create(
        [
            StepProgress(
                learner=learner,
                step=step,
                status="completed",
                first_opened_at=now - datetime.timedelta(days=40 - step.number),
                completed_at=now - datetime.timedelta(days=40 - step.number),
                status_changed_at=now,
                sections_viewed=list(step.sections.values_list("kind", flat=True)),
                updated_at=now,
            )
            for step in steps
        ]
    )
    # Flashcards of their own for every step (the seed's quick checks make definition cards
    # only), so the learner has hundreds of cards.
    for step in steps:
        for index in range(3):
            flashcard_quick_check_add([step], f"{step.term}: Frage {index}?", f"Antwort {index}.")
    for step in steps:
        cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=now)
    assert ReviewCard.objects.filter(learner=learner).count() == 32 * 4
    step_notes_put(
        learner_id=learner.pk,
        module_slug=course.slug,
        number=1,
        notes={"praxisaufgabe": "Notiz A", "lernauftrag": "Notiz B"},
    )
    for row in quick_check_ratings_for_step(
        learner_id=learner.pk, module_slug=course.slug, step_number=1
    ):
        if not row.takes_rating:
            continue  # a reflection prompt
        quick_check_rate(
            learner_id=learner.pk,
            module_slug=course.slug,
            step_number=1,
            quick_check_id=row.id,
            rating="partly",
        )
    for index, card_id in enumerate(
        ReviewCard.objects.filter(learner=learner).values_list("id", flat=True)[:60]
    ):
        review_record(
            learner=learner,
            card_id=card_id,
            rating=1 + index % 4,
            duration_ms=1000,
            client_review_id=f"r{index}",
            at=now - datetime.timedelta(days=index % 80),
        )


PAGES = [
    "/",
    MODULE,
    MODULE + "steps/1/",
    MODULE + "steps/12/",
    # A refused completion's page: what is missing, with links.
    MODULE + "steps/12/?missing=1",
    "/review/",
    "/stats/",
    "/settings/",
    MODULE + "exam/",
]


def test_learner_pages_use_a_constant_number_of_queries(client, enrolled, course):
    client.force_login(enrolled)
    # One completed step with its cards: the "one row" case.
    from reviews.api import cards_for_step_ensure
    from tests.factories import steps_complete_through_rules

    first = course.steps.get(number=1)
    steps_complete_through_rules(enrolled, course.slug, count=1)
    cards_for_step_ensure(learner_id=enrolled.pk, step_id=first.pk, at=timezone.now())
    for url in PAGES:
        count_queries(client, url)  # warm-up: first visits record progress, create policies
    few = {url: warm_count_queries(client, url) for url in PAGES}

    from progress.models import StepProgress

    StepProgress.objects.filter(learner=enrolled).delete()
    fill_learner_data(enrolled, course)
    many = {url: warm_count_queries(client, url) for url in PAGES}
    assert many == few
    # And the budgets stay small.
    for url, count in few.items():
        assert count <= 25, (url, count)


def test_visitor_pages_make_few_queries(client, course):
    # A visitor has no session to read; the module's content and version, cold.
    assert_queries_within(lambda: client.get("/"), budget=2)
    assert_queries_within(lambda: client.get(MODULE), budget=8)
    assert_queries_within(lambda: client.get(MODULE + "steps/1/"), budget=7)
    # Another step: the content version and, cold, the step's content.
    assert_queries_within(lambda: client.get(MODULE + "steps/21/"), budget=5)


def test_exam_attempt_page_queries_do_not_grow_with_the_items(client, studied, course):
    from quizzes.models import ExamPolicy
    from quizzes.services.items import exam_policy_get

    client.force_login(studied)
    policy = exam_policy_get(module_id=course.pk)
    counts = []
    for items in (1, 10):
        ExamPolicy.objects.filter(pk=policy.pk).update(items_per_attempt=items, max_attempts=5)
        response = client.post(MODULE + "exam/start/")
        attempt_url = response["Location"]
        assert re.match(r"^/exam/attempts/\d+/$", attempt_url)
        counts.append(count_queries(client, attempt_url))
        html = client.get(attempt_url).content.decode()
        assert html.count('class="exam-item"') == items
        client.post(attempt_url.replace("/attempts/", "/attempts/") + "submit/")
    assert counts[0] == counts[1]


TRANSACTION_CONTROL = re.compile(
    r"^\s*(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT|BEGIN|COMMIT|ROLLBACK)\b"
)


@pytest.mark.parametrize("evidence", [False, True])
def test_completing_a_step_on_its_page_is_a_few_statements(client, enrolled, course, evidence):
    """Session, user, and progress.services.step_events.step_event_record: lock and read, write,
    the review cards (two); refused (no evidence yet) fewer."""
    from tests.factories import step_evidence_leave

    client.force_login(enrolled)
    if evidence:
        step_evidence_leave(enrolled, course.slug, 3)
    with CaptureQueriesContext(connection) as context:
        response = client.post(MODULE + "steps/3/progress/", {"event": "completed"})
    assert response.status_code == 302
    assert ("?missing" in response["Location"]) is not evidence
    statements = [
        q["sql"] for q in context.captured_queries if not TRANSACTION_CONTROL.match(q["sql"])
    ]
    assert len(statements) <= 7, statements


WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)


def test_a_get_writes_nothing(client, enrolled, course):
    """Every write is a POST, the step reader too: its page sends the "opened" event itself
    (web/static/web/app.js), as an app does through the API. Before any policy is saved the
    dashboard and the exam page show its defaults without saving them; the result page of an
    attempt whose time is up shows its result without storing it (the periodic task does)."""
    from quizzes.models import ExamAttempt

    def writes_of(url: str) -> list[str]:
        with CaptureQueriesContext(connection) as context:
            assert client.get(url).status_code == 200, url
        return [q["sql"] for q in context.captured_queries if WRITE.match(q["sql"])]

    from tests.factories import steps_complete

    client.force_login(enrolled)
    steps_complete(enrolled, course)
    assert writes_of("/") == [] and writes_of(MODULE + "exam/") == []
    attempt = client.post(MODULE + "exam/start/")["Location"]
    pages = [
        "/",
        "/help/keyboard/",
        "/settings/",
        MODULE,
        MODULE + "steps/1/",
        "/review/",
        "/stats/",
        MODULE + "exam/",
        attempt,
        attempt + "submit/",
    ]
    for url in pages:
        assert writes_of(url) == [], url
    hour_ago = timezone.now() - datetime.timedelta(hours=1)
    ExamAttempt.objects.filter(learner=enrolled).update(
        started_at=hour_ago, deadline_at=hour_ago + datetime.timedelta(minutes=30)
    )
    assert writes_of(attempt + "result/") == []


# Budgets of the learner's other pages (session and user, then the page's own reads), warm.
BUDGETS = {
    # the due queue with the next card and its faces
    "/review/": 7,
    # the due counts, the reviews per day, the enrollments with progress, the module list, the
    # forecast, true retention
    "/stats/": 13,
    # the calendar address; the FSRS parameters in use, the learner's own, the last fit, the
    # review count
    "/settings/": 9,
    # the module, the exam overview, enrollment, completed steps
    MODULE + "exam/": 10,
}


@pytest.mark.parametrize("url", BUDGETS)
def test_settings_review_statistics_and_exam_pages_make_few_queries(client, enrolled, course, url):
    from progress.models import StepProgress
    from reviews.api import cards_for_step_ensure

    client.force_login(enrolled)
    first = course.steps.get(number=1)
    cards_for_step_ensure(learner_id=enrolled.pk, step_id=first.pk, at=timezone.now())
    count_queries(client, url)

    def grow() -> None:
        StepProgress.objects.filter(learner=enrolled).delete()
        fill_learner_data(enrolled, course)
        count_queries(client, url)

    assert_queries_constant(lambda: count_queries(client, url), grow=grow, budget=BUDGETS[url])
