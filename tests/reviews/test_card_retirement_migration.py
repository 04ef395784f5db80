"""Existing learners' cards of quick checks that make no card any more are retired with their
review logs kept (migrations courses 0007, reviews 0006): out of the queue, their history still
counted, and a definition echo's schedule handed on to the definition card that stays."""

from __future__ import annotations

import datetime

from tests.helpers.migrations import migrate_to

BEFORE = [
    ("accounts", "0007_user_full_name"),
    ("courses", "0006_progress_models_moved"),
    ("reviews", "0005_reviewlog_learner_applied_index"),
]
AFTER = [("reviews", "0006_definition_echo_cards_merged")]
T0 = datetime.datetime(2030, 3, 1, 9, 0, tzinfo=datetime.UTC)


def _card(apps, learner, step, *, quick_check=None, reviewed_at=None, stability=None):
    ReviewCard = apps.get_model("reviews", "ReviewCard")
    return ReviewCard.objects.create(
        learner=learner,
        kind="definition" if quick_check is None else "quick_check",
        step=step,
        quick_check=quick_check,
        state=2 if reviewed_at else 1,
        learning_step=None if reviewed_at else 0,
        stability=stability,
        difficulty=5.0 if reviewed_at else None,
        due=(reviewed_at or T0) + datetime.timedelta(days=stability or 0),
        last_review=reviewed_at,
        created_at=T0,
    )


def _log(apps, card, at):
    return apps.get_model("reviews", "ReviewLog").objects.create(
        card=card,
        learner_id=card.learner_id,
        source="review",
        rating=3,
        reviewed_at=at,
        before_state=1,
        before_due=at,
        after_state=2,
        after_stability=card.stability or 1.0,
        after_difficulty=5.0,
        after_due=card.due,
    )


def test_cards_of_quick_checks_that_make_no_card_are_retired_with_their_logs(
    migrated_back_afterwards,
):
    old = migrate_to(BEFORE)
    learner = old.get_model("accounts", "User").objects.create(username="mara", email="m@x.org")
    module = old.get_model("courses", "Module").objects.create(
        slug="m", series="S", number=1, title="Modul M", header="S 1: Modul M", source_path="m.txt"
    )
    Step = old.get_model("courses", "Step")
    QuickCheck = old.get_model("courses", "QuickCheck")
    StepQuickCheck = old.get_model("courses", "StepQuickCheck")
    steps = [
        Step.objects.create(
            module=module,
            slug=f"t{n}",
            number=n,
            total=3,
            term=f"Term {n}",
            lead=f"Term {n} ist Sache {n}.",
            definition=f"Term {n} ist Sache {n}.",
            level="S1",
            source_hash=f"h{n}",
            content_hash=f"h{n}",
        )
        for n in (1, 2, 3)
    ]

    def quick_check(question, answer, shown_by):
        row = QuickCheck.objects.create(
            module=module, question=question, answer=answer, text_hash=f"{question}{answer}"
        )
        for step in shown_by:
            StepQuickCheck.objects.create(
                step=step, quick_check=row, position=step.quick_check_links.count() + 1
            )
        return row

    echo_1 = quick_check("Was ist der Zweck?", "Term 1 ist Sache 1.", [steps[0]])
    echo_3 = quick_check("Was ist der Zweck?", "Term 3 ist Sache 3.", [steps[2]])
    generic = quick_check("Wie prüfst du sicher?", "Sollzustand notieren.", steps)
    own = quick_check("Welcher Befehl?", "nvidia-smi.", [steps[1]])
    task = quick_check("Und sonst?", "Erkläre die Rolle im Modul.", [steps[1]])

    definition_1 = _card(old, learner, steps[0])  # never reviewed
    definition_2 = _card(
        old, learner, steps[1], reviewed_at=T0 + datetime.timedelta(days=9), stability=9.0
    )
    echo_1_card = _card(old, learner, steps[0], quick_check=echo_1, reviewed_at=T0, stability=4.0)
    echo_3_card = _card(old, learner, steps[2], quick_check=echo_3, reviewed_at=T0, stability=2.5)
    generic_card = _card(old, learner, steps[0], quick_check=generic, reviewed_at=T0, stability=3.0)
    own_card = _card(old, learner, steps[1], quick_check=own, reviewed_at=T0, stability=6.0)
    task_card = _card(old, learner, steps[1], quick_check=task, reviewed_at=T0, stability=1.0)
    logs = {
        card.pk: [_log(old, card, T0 - datetime.timedelta(days=d)).pk for d in range(2)]
        for card in (echo_1_card, echo_3_card, generic_card, own_card, task_card, definition_2)
    }

    migrate_to(AFTER)
    # On to the newest migrations, whose models the checks below read through (reviews 0008
    # adds each card's module, filled from its step).
    migrate_to()
    from courses import api as courses_api
    from courses.models import QuickCheck as Current
    from reviews.models import ReviewCard, ReviewLog
    from reviews.selectors import live_cards, review_stats

    assert dict(Current.objects.values_list("pk", "role")) == {
        echo_1.pk: "definition",
        echo_3.pk: "definition",
        generic.pk: "generic",
        own.pk: "flashcard",
        task.pk: "instruction",
    }
    # Retired: out of the live cards (queue, due counts, reminders), rows and logs kept.
    retired = {echo_1_card.pk, echo_3_card.pk, generic_card.pk, task_card.pk}
    assert courses_api.retired_content().quick_check_ids == {
        echo_1.pk,
        echo_3.pk,
        generic.pk,
        task.pk,
    }
    live = set(live_cards(learner_id=learner.pk).values_list("pk", flat=True))
    assert live.isdisjoint(retired) and {definition_1.pk, definition_2.pk, own_card.pk} <= live
    for card_id, log_ids in logs.items():
        assert sorted(ReviewLog.objects.filter(card_id=card_id).values_list("pk", flat=True)) == (
            sorted(log_ids)
        )
    # Their history counts: every log is in the learner's stats.
    from accounts.models import User

    stats = review_stats(
        learner=User.objects.get(pk=learner.pk), at=T0 + datetime.timedelta(days=1)
    )
    assert stats.reviews_total == sum(len(ids) for ids in logs.values())
    # The definition echo's schedule went on to the definition card that stays …
    moved = ReviewCard.objects.get(pk=definition_1.pk)
    assert (moved.last_review, moved.stability, moved.state) == (T0, 4.0, 2)
    # … or to a new one where the step had none yet.
    created = ReviewCard.objects.get(learner_id=learner.pk, kind="definition", step_id=steps[2].pk)
    assert (created.last_review, created.stability) == (T0, 2.5)
    assert created.pk in live
    # A definition card reviewed later than any echo keeps its own schedule.
    assert ReviewCard.objects.get(pk=definition_2.pk).stability == 9.0
