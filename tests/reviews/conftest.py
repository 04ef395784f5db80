"""Fixtures of the reviews tests: learners with reminder preferences, cards in bulk."""

from __future__ import annotations

import datetime
import hashlib

import pytest

UTC = datetime.UTC


@pytest.fixture
def learner(make_learner):
    return make_learner("lena")


@pytest.fixture
def steps(course):
    """The seed module's active steps, in order (Step rows)."""
    return list(course.steps.filter(status="active").order_by("number"))


@pytest.fixture
def login(api_client):
    """Authenticate the API client as a learner (no auth queries, so counts are the view's)."""

    def as_learner(user):
        api_client.force_authenticate(user)
        return api_client

    return as_learner


@pytest.fixture
def bulk_cards(course):
    """``bulk_cards(learner, n, due=...)``: n quick-check cards of one step, bulk-created, due
    one second apart from ``due`` on.

    Each card needs its own quick check (one card per learner and quick check), so this makes
    quick checks in the seed module first, shared by every learner; ``start`` skips the first
    ones (for more cards of a learner who has those).
    """
    from courses.models import QuickCheck
    from reviews.models import ReviewCard

    made: list[int] = []

    def create(
        learner, n: int, *, due: datetime.datetime, step=None, reviewed: bool = False, start=0
    ):
        step = step or course.steps.get(number=1)
        missing = start + n - len(made)
        if missing > 0:
            first = len(made)
            rows = QuickCheck.objects.bulk_create(
                [
                    QuickCheck(
                        module=course,
                        question=f"Bulk question {i}?",
                        answer=f"Bulk answer {i}.",
                        text_hash=hashlib.sha256(f"bulk-{i}".encode()).hexdigest(),
                    )
                    for i in range(first, first + missing)
                ],
                batch_size=2000,
            )
            made.extend(row.pk for row in rows)
        cards = [
            ReviewCard(
                learner=learner,
                kind=ReviewCard.Kind.QUICK_CHECK,
                step=step,
                quick_check_id=qc_id,
                state=2 if reviewed else 1,
                learning_step=None if reviewed else 0,
                stability=5.0 if reviewed else None,
                difficulty=5.0 if reviewed else None,
                due=due + datetime.timedelta(seconds=i),
                last_review=(due - datetime.timedelta(days=5)) if reviewed else None,
                created_at=due - datetime.timedelta(days=10),
            )
            for i, qc_id in enumerate(made[start : start + n])
        ]
        return ReviewCard.objects.bulk_create(cards, batch_size=2000)

    return create
