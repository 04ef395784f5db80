"""Undo under concurrency, on real PostgreSQL: threads with their own connections and real
transactions review one card at once and undo, and the card must always be what its remaining
review log says.

A review's time is taken when its request starts, but a request that waited for the card's lock
applies after the other with the earlier time: undo must take the review applied last (not the
latest ``reviewed_at``) and lock the card against a review landing meanwhile.

The replay: the card's logs in the order they were applied must chain (each one's "before" is the
previous one's "after", the first one's is the new card) and the card must hold the last one's
"after" (or the new card's state when none is left).
"""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import connection

from lms.errors import Conflict
from reviews.models import ReviewCard, ReviewLog
from reviews.scheduling import CardState
from reviews.services.cards import cards_for_step_ensure
from reviews.services.reviewing import review_record, review_undo

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

THREADS = 8
REVIEWS = 200
# The columns a log keeps of the state after its review (the new last review is its time).
AFTER = ("state", "stability", "difficulty", "due")


def in_threads(work, rounds: int) -> list[BaseException]:
    """Run ``work(thread, round)`` in THREADS threads, every round released by a barrier."""
    barrier = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def run(thread: int) -> None:
        try:
            for round_ in range(rounds):
                barrier.wait(timeout=60)
                work(thread, round_)
        except BaseException as exc:  # a thread's failure must fail the test, not vanish
            errors.append(exc)
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return errors


def replay_problems(card_id: int, new_card: CardState) -> list[str]:
    """How the card differs from the replay of its remaining logs (empty: it does not)."""
    problems = []
    card = ReviewCard.objects.get(pk=card_id)
    previous: dict | None = None
    for log in ReviewLog.objects.filter(card_id=card_id).order_by("id"):
        before = CardState.from_columns(log, prefix="before_")
        expected = (
            {name: getattr(new_card, name) for name in (*AFTER, "last_review")}
            if previous is None
            else previous
        )
        got = {name: getattr(before, name) for name in expected}
        if got != expected:
            problems.append(f"log {log.pk} starts from {got}, the log before left {expected}")
        previous = {name: getattr(log, f"after_{name}") for name in AFTER}
        previous["last_review"] = log.reviewed_at
    expected = (
        {name: getattr(new_card, name) for name in (*AFTER, "last_review")}
        if previous is None
        else previous
    )
    held = {name: getattr(card, name) for name in expected}
    if held != expected:
        problems.append(f"the card holds {held}, its logs say {expected}")
    return problems


@pytest.fixture
def one_card(course, make_learner):
    learner = make_learner("lena")
    step = course.steps.get(number=1)
    from django.utils import timezone

    cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=timezone.now())
    card = ReviewCard.objects.filter(learner=learner, kind=ReviewCard.Kind.DEFINITION).get()
    return learner, card.pk, CardState.from_columns(card)


def review(learner, card_id: int, rating: int) -> None:
    review_record(
        learner=learner,
        card_id=card_id,
        rating=rating,
        duration_ms=None,
        client_review_id=uuid.uuid4().hex,
    )


def undo_all(learner, card_id: int, new_card: CardState, times: int) -> tuple[int, int]:
    """Undo ``times`` times, one after the other; returns (wrong states seen, undos refused)."""
    wrong = refused = 0
    for _ in range(times):
        try:
            review_undo(learner=learner)
        except Conflict as error:
            assert error.code == "nothing_to_undo"
            refused += 1
            continue
        wrong += bool(replay_problems(card_id, new_card))
    return wrong, refused


def test_undos_after_simultaneous_reviews_restore_the_state_each_review_found(one_card):
    learner, card_id, new_card = one_card
    errors = in_threads(
        lambda thread, round_: review(learner, card_id, 1 + (thread + round_) % 4),
        rounds=REVIEWS // THREADS,
    )
    assert not errors, errors
    assert ReviewLog.objects.filter(card_id=card_id).count() == REVIEWS
    assert replay_problems(card_id, new_card) == []
    wrong, refused = undo_all(learner, card_id, new_card, times=REVIEWS + 5)
    assert (wrong, refused) == (0, 5)
    assert not ReviewLog.objects.filter(card_id=card_id).exists()
    assert replay_problems(card_id, new_card) == []


def test_undos_among_simultaneous_reviews_keep_the_card_and_its_log_together(one_card):
    """Half the threads review while the other half undo: an undo must not restore a state
    under a review that landed meanwhile (it locks the card), nor undo twice."""
    learner, card_id, new_card = one_card
    for rating in (3, 3, 2, 4):
        review(learner, card_id, rating)
    undone: list[int] = []

    def work(thread: int, round_: int) -> None:
        if thread % 2:
            review(learner, card_id, 1 + round_ % 4)
            return
        try:
            undone.append(review_undo(learner=learner).review_id)
        except Conflict as error:
            assert error.code == "nothing_to_undo"

    errors = in_threads(work, rounds=20)
    assert not errors, errors
    assert len(undone) == len(set(undone)), "a review was undone twice"
    remaining = ReviewLog.objects.filter(card_id=card_id).count()
    assert remaining == 4 + (THREADS // 2) * 20 - len(undone)
    assert replay_problems(card_id, new_card) == []
    wrong, refused = undo_all(learner, card_id, new_card, times=remaining + 1)
    assert (wrong, refused) == (0, 1)
