"""What courses.api gives the reviews app: the ids of retired content and the cards' fronts and
backs, each one query at most, trusted for a second per process and forgotten at once on a
content change in the process (the step ETags' guarantee)."""

from __future__ import annotations

import pytest

from courses import api
from courses.data import CardFronts
from courses.models import QuickCheck, Step
from lms.content_cache import content_changed

pytestmark = pytest.mark.django_db


def test_retired_content_names_retired_steps_and_quick_checks_that_make_no_card(
    course, flashcards, django_assert_num_queries
):
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
    with django_assert_num_queries(1):  # both kinds in one read
        retired = api.retired_content()
    assert retired.step_ids == {step.pk}
    assert retired.quick_check_ids == no_card | {quick_check.pk}
    assert flashcards["own"][2].pk not in retired.quick_check_ids
    with django_assert_num_queries(0):
        assert api.retired_content() == retired


def test_retired_content_follows_a_change_at_once_here_and_within_a_second_elsewhere(
    course, content_trust_clock
):
    step = course.steps.get(number=3)
    assert api.retired_content().step_ids == frozenset()
    # Written straight to the table, as another process would: not seen for a second.
    Step.objects.filter(pk=step.pk).update(status=Step.Status.RETIRED)
    assert api.retired_content().step_ids == frozenset()
    content_trust_clock(api.CONTENT_MAX_AGE + 0.01)
    assert api.retired_content().step_ids == {step.pk}
    # A change made in this process (an import, an admin edit) is seen at once.
    Step.objects.filter(pk=step.pk).update(status=Step.Status.ACTIVE)
    content_changed()
    assert api.retired_content().step_ids == frozenset()


def test_card_fronts_read_what_is_not_cached_in_one_query(course, django_assert_num_queries):
    steps = list(course.steps.order_by("number")[:3])
    quick_checks = list(QuickCheck.objects.filter(module=course).order_by("id")[:2])
    with django_assert_num_queries(1):  # terms and questions in one read
        fronts = api.card_fronts(
            step_ids=[step.pk for step in steps[:2]], quick_check_ids=[quick_checks[0].pk]
        )
    assert fronts.step_terms == {step.pk: step.term for step in steps[:2]}
    assert fronts.step_module_titles == {step.pk: course.title for step in steps[:2]}
    assert fronts.quick_check_questions == {quick_checks[0].pk: quick_checks[0].question}
    with django_assert_num_queries(0):
        again = api.card_fronts(
            step_ids=[step.pk for step in steps[:2]], quick_check_ids=[quick_checks[0].pk]
        )
    assert again == fronts
    with django_assert_num_queries(1):  # only the ids not read yet
        more = api.card_fronts(step_ids=[step.pk for step in steps], quick_check_ids=[])
    assert more.step_terms == {step.pk: step.term for step in steps}
    with django_assert_num_queries(0):
        assert api.card_fronts(step_ids=[], quick_check_ids=[]) == CardFronts(
            step_terms={}, quick_check_questions={}, step_module_titles={}
        )


def test_a_renamed_term_is_a_cards_front_at_once_after_an_edit_in_this_process(course):
    step = course.steps.get(number=1)
    assert api.card_fronts(step_ids=[step.pk], quick_check_ids=[]).step_terms == {
        step.pk: step.term
    }
    Step.objects.filter(pk=step.pk).update(term="Anders benannt")
    content_changed()
    assert api.card_fronts(step_ids=[step.pk], quick_check_ids=[]).step_terms == {
        step.pk: "Anders benannt"
    }


def test_card_backs_read_what_is_not_cached_in_one_query_and_follow_an_edit(
    course, django_assert_num_queries, content_trust_clock
):
    steps = list(course.steps.order_by("number")[:3])
    quick_check = QuickCheck.objects.filter(module=course).order_by("id").first()
    with django_assert_num_queries(1):  # definitions and answers in one read
        backs = api.card_backs(
            step_ids=[step.pk for step in steps[:2]], quick_check_ids=[quick_check.pk]
        )
    assert backs.step_definitions == {step.pk: step.definition for step in steps[:2]}
    assert backs.quick_check_answers == {quick_check.pk: quick_check.answer}
    with django_assert_num_queries(0):
        assert (
            api.card_backs(
                step_ids=[step.pk for step in steps[:2]], quick_check_ids=[quick_check.pk]
            )
            == backs
        )
    with django_assert_num_queries(1):  # only the id not read yet
        more = api.card_backs(step_ids=[step.pk for step in steps], quick_check_ids=[])
    assert more.step_definitions == {step.pk: step.definition for step in steps}
    # Written straight to the table, as another process would: seen after a second.
    Step.objects.filter(pk=steps[0].pk).update(definition="Neu erklärt")
    assert api.card_backs(step_ids=[steps[0].pk], quick_check_ids=[]).step_definitions == {
        steps[0].pk: steps[0].definition
    }
    content_trust_clock(api.CONTENT_MAX_AGE + 0.01)
    assert api.card_backs(step_ids=[steps[0].pk], quick_check_ids=[]).step_definitions == {
        steps[0].pk: "Neu erklärt"
    }
    # An edit in this process is seen at once.
    QuickCheck.objects.filter(pk=quick_check.pk).update(answer="Andere Antwort")
    content_changed()
    assert api.card_backs(step_ids=[], quick_check_ids=[quick_check.pk]).quick_check_answers == {
        quick_check.pk: "Andere Antwort"
    }


def test_a_cards_front_and_back_come_in_one_statement(course, django_assert_num_queries):
    """The review page asks for the front and then the back of the same card: the first read
    keeps both, whichever is asked first; unknown ids are left out."""
    step = course.steps.get(number=4)
    quick_check = QuickCheck.objects.filter(module=course).order_by("id").last()
    with django_assert_num_queries(1):
        fronts = api.card_fronts(step_ids=[step.pk, 10**9], quick_check_ids=[quick_check.pk])
    with django_assert_num_queries(0):
        backs = api.card_backs(step_ids=[step.pk], quick_check_ids=[quick_check.pk])
    assert fronts.step_terms == {step.pk: step.term}
    assert fronts.step_module_titles == {step.pk: course.title}
    assert fronts.quick_check_questions == {quick_check.pk: quick_check.question}
    assert backs.step_definitions == {step.pk: step.definition}
    assert backs.quick_check_answers == {quick_check.pk: quick_check.answer}
    other = course.steps.get(number=5)
    with django_assert_num_queries(1):
        assert api.card_backs(step_ids=[other.pk], quick_check_ids=[]).step_definitions == {
            other.pk: other.definition
        }
    with django_assert_num_queries(0):
        assert api.card_fronts(step_ids=[other.pk], quick_check_ids=[]).step_terms == {
            other.pk: other.term
        }
