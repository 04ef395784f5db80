"""The due queue shows the cards of named steps first (issue 28: after a failed exam attempt the
result page links to a review of the missed steps' due cards first), in PostgreSQL's statement."""

from __future__ import annotations

import datetime

import pytest

from reviews import api
from reviews.models import ReviewCard
from reviews.selectors import due_queue
from tests.helpers.queries import assert_queries_within, queries_of

pytestmark = pytest.mark.django_db
AT = datetime.datetime(2030, 6, 10, 12, 0, tzinfo=datetime.UTC)
LATER = AT + datetime.timedelta(minutes=1)


def _cards_of_every_step(learner, steps):
    learner.new_cards_per_day = 50
    for step in steps:
        api.cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=AT)


def _seen(card: ReviewCard, *, due) -> None:
    """The card as after a first review: a last review, due at ``due``."""
    ReviewCard.objects.filter(pk=card.pk).update(
        last_review=AT - datetime.timedelta(days=3), state=2, stability=3.0, difficulty=5.0, due=due
    )


def test_the_named_steps_cards_come_first_seen_before_new_and_the_counts_stay_whole(learner, steps):
    _cards_of_every_step(learner, steps)
    step_12, step_13, step_30 = steps[11], steps[12], steps[29]
    # A seen card of another step, due long ago: without a focus it leads the queue.
    _seen(
        ReviewCard.objects.get(learner=learner, step=step_30), due=AT - datetime.timedelta(days=2)
    )
    # Step 13's card seen (due now), step 12's new.
    _seen(ReviewCard.objects.get(learner=learner, step=step_13), due=AT)

    plain = due_queue(learner=learner, at=LATER, limit=50)
    assert plain.cards[0].term == step_30.term and not plain.cards[0].is_first

    first = due_queue(learner=learner, at=LATER, limit=50, first_step_ids=[step_12.pk, step_13.pk])
    assert [card.term for card in first.cards[:3]] == [step_13.term, step_12.term, step_30.term]
    assert [card.is_first for card in first.cards[:3]] == [True, True, False]
    # The same cards, the same counts: only the order changes.
    assert {c.id for c in first.cards} == {c.id for c in plain.cards}
    assert (first.due_count, first.due_total) == (plain.due_count, plain.due_total) == (32, 32)
    # One card at a time, as the review page asks: the named steps' first.
    assert due_queue(learner=learner, at=LATER, limit=1, first_step_ids=[step_12.pk]).cards[
        0
    ].term == (step_12.term)


def test_named_steps_whose_new_cards_the_budget_holds_back_leave_the_rest_of_the_queue(
    learner, steps
):
    _cards_of_every_step(learner, steps[:3])
    _seen(ReviewCard.objects.get(learner=learner, step=steps[2]), due=AT)
    learner.new_cards_per_day = 0  # step 1's new card may not be shown today
    queue = due_queue(learner=learner, at=LATER, limit=1, first_step_ids=[steps[0].pk])
    assert [card.term for card in queue.cards] == [steps[2].term]
    assert not queue.cards[0].is_first


def test_asking_for_steps_first_adds_no_query(learner, steps):
    _cards_of_every_step(learner, steps)
    plain = len(queries_of(lambda: due_queue(learner=learner, at=LATER, limit=1)))
    named = [step.pk for step in steps[:20]]
    assert_queries_within(
        lambda: due_queue(learner=learner, at=LATER, limit=1, first_step_ids=named), budget=plain
    )
