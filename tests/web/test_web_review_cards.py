"""Review cards on the web: the review page names the card's term and module; the step page
shows reflection prompts apart, without a rating."""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

from reviews import api as reviews_api

pytestmark = pytest.mark.django_db

STEP_1 = "/modules/self-hosting-27/steps/1/"


def _only_due(learner, kind):
    """Leave only one card of ``kind`` due now."""
    from reviews.models import ReviewCard

    later = timezone.now() + datetime.timedelta(days=30)
    ReviewCard.objects.filter(learner=learner).exclude(kind=kind).update(due=later)
    return ReviewCard.objects.filter(learner=learner, kind=kind).first()


def test_review_page_names_the_term_and_module_of_a_quick_check_card(
    learner_client, enrolled, course, flashcards
):
    step = course.steps.get(number=3)
    reviews_api.cards_for_step_ensure(
        learner_id=enrolled.pk, step_id=step.pk, at=timezone.now() - datetime.timedelta(hours=1)
    )
    card = _only_due(enrolled, "quick_check")
    html = learner_client.get("/review/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    front = re.search(
        r'<h2 class="review-card__front" id="review-front" lang="de">(.*?)</h2>', html
    )
    assert front.group(1) == f"{step.term}: {card.quick_check.question}"
    assert f'<span lang="de">{course.title}</span>' in html


def test_review_page_of_a_definition_card(learner_client, enrolled, course):
    step = course.steps.get(number=2)
    reviews_api.cards_for_step_ensure(
        learner_id=enrolled.pk, step_id=step.pk, at=timezone.now() - datetime.timedelta(hours=1)
    )
    html = learner_client.get("/review/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'id="review-front" lang="de">{step.term}</h2>' in html
    assert f"{course.title}</span> · What does this term mean?" in html


def test_step_page_shows_reflection_prompts_without_a_rating(learner_client, enrolled, course):
    html = learner_client.get(STEP_1, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rated = re.findall(r'<li class="quick-check card" id="quick-check-(\d+)">', html)
    prompts = re.findall(r'<li class="reflection-prompt">', html)
    # The definition line is rated (it reviews the definition card); the lines every step
    # shares are prompts to think through, with no rating form, except "Was ist der Zweck?",
    # which the rated line already asks (shown once, issue 28).
    assert len(rated) == 1 and len(prompts) == 4
    assert "To think through" in html
    reflection = html[html.index('class="reflection"') :]
    reflection = reflection[: reflection.index("</div>")]
    assert "Wie prüfst du sicher?" in reflection and "<form" not in reflection
    assert html.count('name="rating" value="knew"') == 1
