"""What courses.api gives the reviews app: the ids of retired content and the cards' fronts and
backs, cached under every module's content version, so a change is seen at once."""

from __future__ import annotations

import pytest

from courses import api
from courses.data import CardFronts
from courses.models import QuickCheck, Step
from courses.services.content_versions import module_content_version_renew
from tests.helpers.queries import assert_queries_within

pytestmark = pytest.mark.django_db


def test_retired_content_names_retired_steps_and_quick_checks_that_make_no_card(course, flashcards):
    step = course.steps.get(number=3)
    # The seed module's own quick checks make no card: they repeat the definition or recur.
    no_card = set(
        QuickCheck.objects.filter(module=course)
        .exclude(role="flashcard")
        .values_list("pk", flat=True)
    )
    assert len(no_card) == 32 + 5
    quick_check = flashcards["own"][1]
    Step.objects.filter(pk=step.pk).update(status=Step.Status.RETIRED)
    QuickCheck.objects.filter(pk=quick_check.pk).update(is_active=False)
    module_content_version_renew(module_ids=[course.pk])
    # The content version, both kinds in one read.
    assert_queries_within(api.retired_content, budget=2)
    retired = api.retired_content()
    assert retired.step_ids == {step.pk}
    assert retired.quick_check_ids == no_card | {quick_check.pk}
    assert flashcards["own"][2].pk not in retired.quick_check_ids


def test_retired_content_follows_a_change_at_once(course):
    step = course.steps.get(number=3)
    assert api.retired_content().step_ids == frozenset()
    # Written straight to the table with a new content version, as another host's import does.
    Step.objects.filter(pk=step.pk).update(status=Step.Status.RETIRED)
    module_content_version_renew(module_ids=[course.pk])
    assert api.retired_content().step_ids == {step.pk}


def test_a_cards_front_and_back_come_in_one_query_each(course):
    """The faces not cached yet, under the generation the retired content was read with;
    unknown ids are left out; no ids, no query."""
    step = course.steps.get(number=4)
    quick_check = QuickCheck.objects.filter(module=course).order_by("id").last()
    generation = api.retired_content().generation
    ids = {"step_ids": [step.pk, 10**9], "quick_check_ids": [quick_check.pk]}
    ids["generation"] = generation
    assert_queries_within(lambda: api.card_fronts(**ids), budget=1)
    assert_queries_within(lambda: api.card_backs(**ids), budget=1)
    fronts, backs = api.card_fronts(**ids), api.card_backs(**ids)
    assert fronts.step_terms == {step.pk: step.term}
    assert fronts.step_module_titles == {step.pk: course.title}
    assert fronts.quick_check_questions == {quick_check.pk: quick_check.question}
    assert backs.step_definitions == {step.pk: step.definition}
    assert backs.quick_check_answers == {quick_check.pk: quick_check.answer}
    no_ids = {"step_ids": [], "quick_check_ids": [], "generation": generation}
    assert_queries_within(lambda: api.card_fronts(**no_ids), budget=0)
    assert api.card_fronts(**no_ids) == CardFronts(
        step_terms={}, quick_check_questions={}, step_module_titles={}
    )


def test_an_edited_card_shows_at_once(course):
    step = course.steps.get(number=1)
    quick_check = QuickCheck.objects.filter(module=course).order_by("id").first()
    generation = api.retired_content().generation
    assert api.card_fronts(
        step_ids=[step.pk], quick_check_ids=[], generation=generation
    ).step_terms == {step.pk: step.term}
    Step.objects.filter(pk=step.pk).update(term="Anders benannt", definition="Neu erklärt")
    QuickCheck.objects.filter(pk=quick_check.pk).update(answer="Andere Antwort")
    module_content_version_renew(module_ids=[course.pk])
    generation = api.retired_content().generation
    assert api.card_fronts(
        step_ids=[step.pk], quick_check_ids=[], generation=generation
    ).step_terms == {step.pk: "Anders benannt"}
    backs = api.card_backs(
        step_ids=[step.pk], quick_check_ids=[quick_check.pk], generation=generation
    )
    assert backs.step_definitions == {step.pk: "Neu erklärt"}
    assert backs.quick_check_answers == {quick_check.pk: "Andere Antwort"}
