"""The result page of a failed attempt: which steps to review, their due cards, when the next
attempt opens; within what the review policy reveals, and for items without a step."""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db

MODULE = "/modules/self-hosting-27/"


def fail_an_attempt(client) -> tuple[int, str]:
    """Start an attempt and submit it unanswered: every item is missed."""
    response = client.post(MODULE + "exam/start/")
    attempt_id = int(re.search(r"(\d+)", response["Location"]).group(1))
    client.post(f"/exam/attempts/{attempt_id}/submit/")
    return attempt_id, client.get(f"/exam/attempts/{attempt_id}/result/").content.decode()


def asked_steps(attempt_id: int) -> list[tuple[int, str]]:
    from quizzes.models import ExamAttemptItem

    return sorted(
        set(
            ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list(
                "item__step__number", "item__step__term"
            )
        )
    )


@pytest.fixture
def carded(studied, course):
    """The studied learner with the review cards completing a step makes, due now."""
    from courses.models import Step
    from reviews.api import cards_for_step_ensure

    for step_id in Step.objects.active().filter(module=course).values_list("id", flat=True):
        cards_for_step_ensure(learner_id=studied.pk, step_id=step_id, at=timezone.now())
    return studied


def policy_set(course, **fields):
    from quizzes.models import ExamPolicy

    ExamPolicy.objects.filter(module__slug=course.slug).update(**fields)


def test_a_failed_attempt_names_the_missed_steps_their_due_cards_and_the_next_attempt(
    learner_client, carded, course
):
    policy_set(course, review_timing="immediately", wait_between_attempts_minutes=60)
    attempt_id, html = fail_an_attempt(learner_client)
    assert "Nicht bestanden" in html and 'id="study-plan"' in html
    assert "Die verpassten Fragen stammen aus diesen Schritten:" in html
    for number, term in asked_steps(attempt_id):
        assert f'href="{MODULE}steps/{number}/"' in html
        assert term in html
    # Completing the steps made review cards, due now: the page counts them and links the session,
    # which shows the due cards of those steps first.
    assert re.search(r"fälligen? Karten? dieser Schritte wiederholen", html)
    assert re.search(r'href="/review/\?steps=\d+(%2C\d+)*"', html)
    # The wait: the next attempt opens an hour after this one, 2 attempts left.
    assert "Der nächste Versuch ist möglich am" in html and "noch 2 Versuche" in html
    # The breadcrumb names the module, not "Modul".
    assert "GPU, CUDA und Inferenzoptimierung</a></li>" in html


def test_a_policy_that_hides_correctness_names_the_steps_asked_not_the_missed(
    learner_client, studied, course
):
    policy_set(course, review_timing="after_last_attempt")
    attempt_id, html = fail_an_attempt(learner_client)
    assert "Die verpassten Fragen" not in html
    assert "welche Antworten falsch waren" in html
    for number, _term in asked_steps(attempt_id):
        assert f'href="{MODULE}steps/{number}/"' in html
    assert "Du kannst den nächsten Versuch jetzt beginnen (noch 2 Versuche)." in html


def test_items_without_a_step_are_counted_not_named(learner_client, studied, course):
    from quizzes.models import ExamItem

    policy_set(course, review_timing="immediately", max_attempts=1)
    ExamItem.objects.filter(module__slug=course.slug).update(step=None)
    _attempt_id, html = fail_an_attempt(learner_client)
    assert "Nicht bestanden" in html
    assert "Fragen ohne Schrittbezug: 10 von 10 verpasst" in html
    assert "/steps/" not in html.split('id="study-plan"')[1].split("</section>")[0]
    assert "Alle Versuche sind verbraucht" in html


def test_a_passed_attempt_shows_no_study_plan(learner_client, studied, course):
    from quizzes.models import ExamAttemptItem

    response = learner_client.post(MODULE + "exam/start/")
    url = response["Location"]
    attempt_id = int(re.search(r"(\d+)", url).group(1))
    answers = {
        f"item-{pk}": keys
        for pk, keys in ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list(
            "id", "correct_keys"
        )
    }
    learner_client.post(url, answers)
    learner_client.post(f"/exam/attempts/{attempt_id}/submit/")
    html = learner_client.get(f"/exam/attempts/{attempt_id}/result/").content.decode()
    assert "Bestanden" in html and 'id="study-plan"' not in html


def test_the_study_plan_counts_only_due_cards(carded, course):
    """The selector: the due cards per step are those due now, not later ones."""
    from django.test import Client

    from quizzes.selectors import attempt_study_plan, exam_attempt_get
    from reviews.models import ReviewCard

    client = Client()
    client.force_login(carded)
    policy_set(course, review_timing="immediately")
    attempt_id, _html = fail_an_attempt(client)
    view = exam_attempt_get(learner_id=carded.pk, attempt_id=attempt_id)
    due_before = attempt_study_plan(learner_id=carded.pk, attempt=view, full_name_given=True)
    assert due_before.due_cards > 0 and due_before.reveals_missed
    ReviewCard.objects.filter(learner=carded).update(
        due=timezone.now() + datetime.timedelta(days=3)
    )
    later = attempt_study_plan(learner_id=carded.pk, attempt=view, full_name_given=True)
    assert later.due_cards == 0
    assert [s.number for s in later.steps] == [s.number for s in due_before.steps]
    assert all(s.missed == s.asked for s in later.steps)


def test_the_failed_result_page_costs_the_same_queries_with_few_or_many_due_cards(
    learner_client, studied, course
):
    from courses.models import Step
    from reviews.api import cards_for_step_ensure
    from tests.helpers.queries import assert_queries_constant

    policy_set(course, review_timing="immediately")
    attempt_id, _html = fail_an_attempt(learner_client)
    url = f"/exam/attempts/{attempt_id}/result/"
    steps = list(Step.objects.active().filter(module=course).values_list("id", flat=True))
    cards_for_step_ensure(learner_id=studied.pk, step_id=steps[0], at=timezone.now())

    def grow():
        for step_id in steps[1:]:
            cards_for_step_ensure(learner_id=studied.pk, step_id=step_id, at=timezone.now())

    def run():
        assert learner_client.get(url).status_code == 200

    run()  # the retired content's ids, cached under the content's version
    assert_queries_constant(run, grow=grow, budget=30)


def test_the_review_link_shows_the_missed_steps_due_cards_first_through_every_rating(
    learner_client, carded, course
):
    """The session the result page links to starts with the missed steps' due cards (not the
    queue's usual first card) and keeps to them while the learner rates, until they are done."""
    from html import unescape
    from urllib.parse import unquote

    from courses.models import Step

    policy_set(course, review_timing="immediately")
    attempt_id, html = fail_an_attempt(learner_client)
    link = unescape(re.search(r'href="(/review/\?steps=[^"]+)"', html)[1])
    named = {term for _number, term in asked_steps(attempt_id)}
    others = set(Step.objects.active().filter(module=course).values_list("term", flat=True))
    others -= named
    assert others  # an attempt asks fewer steps than the module has

    def front(page: str) -> str:
        return unescape(re.search(r'id="review-front" lang="de">([^<]+)<', page)[1])

    steps = unquote(link.split("=")[1])
    page = learner_client.get(link).content.decode()
    seen = []
    while front(page) in named:
        assert 'id="review-first"' in page and f'name="steps" value="{steps}"' in page
        seen.append(front(page))
        card = re.search(r'name="card" value="(\d+)"', page)[1]
        response = learner_client.post("/review/rate/", {"card": card, "rating": 3, "steps": steps})
        assert response["Location"] == link
        page = learner_client.get(response["Location"]).content.decode()
    # Every named step's card came first, then the others follow, announced as such.
    assert sorted(seen) == sorted(named)
    assert front(page) in others
    assert "es folgen die übrigen fälligen Karten" in page
