"""Cards from completed steps and quick-check self-ratings; re-import keeps and suspends them."""

from __future__ import annotations

import datetime

import pytest

from courses.data import RetiredContent
from courses.models import QuickCheck, Step, StepQuickCheck
from courses.services.importing import course_import
from lms.errors import InvalidInput
from reviews import api
from reviews.models import ReviewCard, ReviewLog
from reviews.selectors import due_count, due_queue, live_cards, live_cards_q
from reviews.sql import due_queue_read
from tests.helpers.queries import assert_queries_within

pytestmark = pytest.mark.django_db
AT = datetime.datetime(2030, 6, 10, 12, 0, tzinfo=datetime.UTC)


def test_completing_a_step_creates_a_definition_card_and_one_per_flashcard(
    learner, steps, flashcards
):
    step = steps[0]
    shown = set(step.quick_check_links.values_list("quick_check_id", flat=True))
    flashcard_ids = {flashcards["own"][1].pk, flashcards["shared"].pk}
    assert flashcard_ids < shown  # the step's six seed quick checks make no card of their own
    # The step's quick checks, one insert of all its cards (in a transaction).
    assert_queries_within(
        lambda: api.cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=AT),
        budget=4,
    )
    cards = ReviewCard.objects.filter(learner=learner)
    definition = cards.get(kind=ReviewCard.Kind.DEFINITION)
    assert definition.step_id == step.pk and definition.quick_check_id is None
    assert set(cards.filter(kind="quick_check").values_list("quick_check_id", flat=True)) == (
        flashcard_ids
    )
    # New cards: learning, step 0, no FSRS memory yet, due at completion.
    assert {(c.state, c.learning_step, c.stability, c.last_review, c.due) for c in cards} == {
        (1, 0, None, None, AT)
    }


def test_cards_for_step_ensure_is_idempotent_and_shares_quick_checks_between_steps(
    learner, steps, flashcards
):
    first, second = steps[0], steps[1]
    shared = flashcards["shared"].pk
    api.cards_for_step_ensure(learner_id=learner.pk, step_id=first.pk, at=AT)
    count_after_first = ReviewCard.objects.count()
    api.cards_for_step_ensure(learner_id=learner.pk, step_id=first.pk, at=AT)
    assert ReviewCard.objects.count() == count_after_first

    api.cards_for_step_ensure(learner_id=learner.pk, step_id=second.pk, at=AT)
    card = ReviewCard.objects.get(learner=learner, quick_check_id=shared)
    assert card.step_id == first.pk  # stays with the step that made it
    # The second step adds its definition card and its own flashcard, not the shared one again.
    assert ReviewCard.objects.count() == count_after_first + 2


def test_the_database_refuses_a_second_card_for_the_same_quick_check(learner, steps, flashcards):
    from django.db import IntegrityError, transaction

    api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=AT)
    card = ReviewCard.objects.filter(kind="quick_check").first()
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewCard.objects.create(
            learner=learner,
            kind="quick_check",
            step=steps[5],
            quick_check_id=card.quick_check_id,
            due=AT,
            created_at=AT,
        )


@pytest.mark.parametrize(
    ("rating", "fsrs_rating", "state"), [("knew", 3, 1), ("partly", 2, 1), ("not_yet", 1, 1)]
)
def test_a_quick_check_rating_is_the_cards_first_review(learner, steps, rating, fsrs_rating, state):
    step = steps[2]
    quick_check_id = step.quick_check_links.first().quick_check_id
    api.quick_check_rated(
        learner_id=learner.pk, step_id=step.pk, quick_check_id=quick_check_id, rating=rating, at=AT
    )
    card = ReviewCard.objects.get(learner=learner, quick_check_id=quick_check_id)
    assert card.last_review == AT and card.stability is not None and card.state == state
    log = ReviewLog.objects.get(card=card)
    assert (log.rating, log.source, log.reviewed_at) == (fsrs_rating, "quick_check", AT)
    assert log.was_new
    # Again → 1 minute, Hard → about 5.5 minutes, Good → 10 minutes (default learning steps).
    expected = {1: 60, 2: 330, 3: 600}[fsrs_rating]
    assert (card.due - AT).total_seconds() == expected


def test_only_the_first_quick_check_rating_counts(learner, steps):
    step = steps[2]
    quick_check_id = step.quick_check_links.first().quick_check_id
    # The card exists already (step completed), unreviewed: the rating reviews it.
    api.cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=AT)
    api.quick_check_rated(
        learner_id=learner.pk, step_id=step.pk, quick_check_id=quick_check_id, rating="knew", at=AT
    )
    card = ReviewCard.objects.get(learner=learner, quick_check_id=quick_check_id)
    due = card.due
    later = AT + datetime.timedelta(hours=1)
    api.quick_check_rated(
        learner_id=learner.pk,
        step_id=step.pk,
        quick_check_id=quick_check_id,
        rating="not_yet",
        at=later,
    )
    card.refresh_from_db()
    assert card.due == due and card.logs.count() == 1


def test_an_unknown_quick_check_rating_is_refused_and_writes_nothing(learner, steps):
    step = steps[2]
    quick_check_id = step.quick_check_links.first().quick_check_id
    with pytest.raises(InvalidInput):
        api.quick_check_rated(
            learner_id=learner.pk,
            step_id=step.pk,
            quick_check_id=quick_check_id,
            rating="maybe",
            at=AT,
        )
    assert not ReviewCard.objects.exists() and not ReviewLog.objects.exists()


def _drop_step(text: str, number: int, total: int) -> str:
    """The module document without step ``number``, the later steps renumbered."""
    head, *blocks = text.split("\nSchritt ")
    kept = [block for block in blocks if not block.startswith(f"{number} / ")]
    renumbered = [
        f"{index} / {total - 1}\n{block.split(chr(10), 1)[1]}"
        for index, block in enumerate(kept, start=1)
    ]
    return "\nSchritt ".join([head, *renumbered])


def test_reimport_keeps_cards_on_their_step_and_suspends_a_retired_steps_cards(
    learner, course, steps, seed_paths, tmp_path
):
    removed, kept = steps[2], steps[3]  # step 3 leaves the document
    for step in (removed, kept):
        api.cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=AT)
    card_ids = set(ReviewCard.objects.values_list("id", flat=True))
    removed_definition = ReviewCard.objects.get(step=removed, kind="definition")
    now = AT + datetime.timedelta(minutes=1)
    assert removed_definition.id in {
        c.id for c in due_queue(learner=learner, at=now, limit=50).cards
    }

    module_doc = next(p for p in seed_paths if p.name.startswith("003_"))
    edited = tmp_path / module_doc.name
    edited.write_text(_drop_step(module_doc.read_text(encoding="utf-8"), 3, 32), encoding="utf-8")
    course_import(paths=[edited, *(p for p in seed_paths if p != module_doc)])

    removed.refresh_from_db()
    assert removed.status == Step.Status.RETIRED
    # Same rows, same steps: nothing deleted, nothing moved.
    assert set(ReviewCard.objects.values_list("id", flat=True)) == card_ids
    assert ReviewCard.objects.get(id=removed_definition.id).step_id == removed.pk
    live = set(live_cards(learner_id=learner.pk).values_list("id", flat=True))
    assert removed_definition.id not in live
    assert ReviewCard.objects.get(step=kept, kind="definition").id in live
    # A quick check only the retired step showed is inactive now: its card is suspended too;
    # one still shown elsewhere stays live although its card was made for the retired step.
    for card in ReviewCard.objects.filter(step=removed, kind="quick_check"):
        still_shown = StepQuickCheck.objects.filter(
            quick_check_id=card.quick_check_id, step__status="active"
        ).exists()
        assert QuickCheck.objects.get(id=card.quick_check_id).is_active == still_shown
        assert (card.id in live) == still_shown
    queue = due_queue(learner=learner, at=now, limit=50)
    assert removed_definition.id not in {c.id for c in queue.cards}
    # The queue's plain SQL and the ORM's LIVE_CARDS (reminders, stats) agree.
    assert queue.due_total == len(live)
    assert queue.due_count == due_count(learner=learner, at=now)

    # Putting the step back revives the same step row and its cards.
    course_import(paths=seed_paths)
    assert removed_definition.id in set(
        live_cards(learner_id=learner.pk).values_list("id", flat=True)
    )


def test_an_admin_suspended_card_leaves_the_queue(learner, steps, flashcards):
    api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=AT)
    card = ReviewCard.objects.get(kind="definition")
    ReviewCard.objects.filter(id=card.id).update(suspended=True)
    assert card.id not in set(live_cards(learner_id=learner.pk).values_list("id", flat=True))
    queue = due_queue(learner=learner, at=AT + datetime.timedelta(minutes=1), limit=50)
    assert card.id not in {c.id for c in queue.cards}
    assert queue.due_total == live_cards(learner_id=learner.pk).count() > 0


def _all_cards_due(learner, steps):
    learner.new_cards_per_day = 50  # all of them in one queue
    for step in steps:
        api.cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=AT)
    return due_queue(learner=learner, at=AT + datetime.timedelta(minutes=1), limit=50)


@pytest.mark.parametrize("retiring", [False, True])
def test_the_due_queue_s_live_rule_is_live_cards_q(learner, steps, bulk_cards, retiring):
    """The due queue's statement writes the live-card rule in SQL (reviews.sql): it keeps the
    cards ``live_cards_q`` keeps, with and without retired content."""
    at = AT + datetime.timedelta(days=1)
    for step in steps[:2]:
        api.cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=AT)
    quick_checks = bulk_cards(learner, 3, due=AT)
    quick_checks += bulk_cards(learner, 1, due=AT, step=steps[1], start=3)
    ReviewCard.objects.filter(pk=quick_checks[0].pk).update(suspended=True)
    retired = RetiredContent(step_ids=frozenset(), quick_check_ids=frozenset(), generation="")
    if retiring:
        # Step 2's definition card leaves; its quick-check card stays (its quick check does).
        retired = RetiredContent(
            step_ids=frozenset({steps[1].pk}),
            quick_check_ids=frozenset({quick_checks[1].quick_check_id}),
            generation="",
        )
    page = due_queue_read(
        learner_id=learner.pk,
        at=at,
        day_start=at - datetime.timedelta(hours=12),
        day_end=at + datetime.timedelta(hours=12),
        limit=100,
        retired=retired,
    )
    live = ReviewCard.objects.filter(live_cards_q(retired), learner=learner, due__lte=at)
    assert {card.id for card in page.cards} == set(live.values_list("id", flat=True))
    assert page.due_total == live.count() == ReviewCard.objects.count() - (3 if retiring else 1)


def test_the_seed_modules_cards_stand_on_their_own(learner, steps):
    """All 32 steps completed: one definition card each and nothing else. The seed's quick
    checks repeat the definition (the definition card already asks it) or recur in every step
    ("Wie prüfst du sicher?", and the instruction "Erkläre die Rolle …"): no card of theirs."""
    from collections import Counter

    from reviews.selectors import card_faces

    queue = _all_cards_due(learner, steps)
    cards = ReviewCard.objects.filter(learner=learner)
    assert Counter(cards.values_list("kind", flat=True)) == {"definition": 32}
    assert not cards.filter(quick_check__role__in=("generic", "instruction")).exists()
    terms = {step.pk: step.term for step in steps}
    assert len(queue.cards) == 32
    for card in queue.cards:
        assert card.term in card.front and card.module_title == steps[0].module.title
        assert "Was ist der Zweck?" not in card.front
    backs = [card_faces(learner_id=learner.pk, card_id=card.id).back for card in queue.cards]
    assert len(set(backs)) == len(backs) == 32
    assert {card.term for card in queue.cards} == set(terms.values())


def test_a_flashcards_front_names_its_steps_term(learner, steps, flashcards):
    queue = _all_cards_due(learner, steps)
    quick = [card for card in queue.cards if card.kind == "quick_check"]
    assert len(quick) == 4  # three of their own, one shared by steps 1 and 2
    for card in quick:
        assert card.front.startswith(f"{card.term}: ") and card.term in {s.term for s in steps[:3]}
