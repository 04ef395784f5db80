"""Query counts that do not grow with the data, the (learner, due) index in the plan, and a
planner whose work per chunk does not grow with its learners."""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviews.models import Notification, ReminderDigest, ReviewCard
from reviews.services import reminder_planning
from tests.helpers.queries import assert_queries_constant, assert_queries_within

pytestmark = pytest.mark.django_db

DUE = "/api/v1/reviews/due/"


def test_the_due_queue_costs_the_same_queries_with_few_or_many_cards(learner, bulk_cards, login):
    now = timezone.now()
    bulk_cards(learner, 60, due=now - datetime.timedelta(days=2), reviewed=True)
    client = login(learner)
    bodies = []

    def run():
        response = client.get(DUE, {"limit": 50})
        assert response.status_code == 200
        bodies.append(response.json())

    def grow():
        due = now - datetime.timedelta(days=1)
        bulk_cards(learner, 10_000, due=due, reviewed=True, start=60)

    run()
    # The retired content's ids, one statement for the counts and the page, the cards' fronts.
    assert_queries_constant(run, grow=grow, budget=4)
    few, many = bodies[-2], bodies[-1]
    assert (few["due_total"], many["due_total"]) == (60, 10_060)
    assert many["due_count"] == 200  # the daily review limit
    assert [card["id"] for card in many["cards"]] == [card["id"] for card in few["cards"]]
    assert len(many["cards"]) == 50


def test_a_review_its_replay_and_undo_cost_the_same_queries_with_few_or_many_cards(
    learner, bulk_cards, login
):
    now = timezone.now()
    (card,) = bulk_cards(learner, 1, due=now - datetime.timedelta(days=1))
    client = login(learner)
    payload = {"card": card.pk, "rating": 3, "duration_ms": 1500}

    def run():
        body = {**payload, "client_review_id": uuid.uuid4().hex}
        assert client.post("/api/v1/reviews/", body, format="json").json()["replayed"] is False
        body = {**payload, "client_review_id": "r1"}
        assert client.post("/api/v1/reviews/", body, format="json").json()["replayed"] is True
        assert client.post("/api/v1/reviews/undo/").status_code == 200

    def grow():
        bulk_cards(learner, 10_000, due=now - datetime.timedelta(days=1), start=1)

    client.post("/api/v1/reviews/", {**payload, "client_review_id": "r1"}, format="json")
    # A review in a transaction: lock the card with what schedules it, look up the client review
    # id, insert the log, update the card. A replay: the lock and the look-up. An undo: lock the
    # card of the last review, its last log, restore, delete.
    assert_queries_constant(run, grow=grow, budget=6 + 4 + 6 + 3)


def test_stats_card_and_notification_reads_cost_the_same_queries_with_few_or_many_rows(
    learner, bulk_cards, login
):
    now = timezone.now()
    made = bulk_cards(learner, 1, due=now - datetime.timedelta(days=1))
    client = login(learner)

    def add(cards: int, start: int):
        more = bulk_cards(learner, cards, due=now - datetime.timedelta(days=1), start=start)
        for card in more[:30]:
            client.post(
                "/api/v1/reviews/",
                {"card": card.pk, "rating": 3, "client_review_id": uuid.uuid4().hex},
                format="json",
            )
        Notification.objects.bulk_create(
            [
                Notification(learner=learner, kind="review_digest", title=f"n{i}", created_at=now)
                for i in range(min(cards, 40))
            ]
        )

    def run():
        for url in ("/api/v1/reviews/stats/", f"/api/v1/reviews/cards/{made[0].pk}/"):
            assert client.get(url).status_code == 200
        assert client.get("/api/v1/notifications/").status_code == 200

    add(1, start=1)
    run()  # the retired content's ids, cached under the content's version
    # Stats: the content version, reviews per local day, cards due today; the card: one;
    # notifications: count, page.
    assert_queries_constant(run, grow=lambda: add(2_000, start=2), budget=7)


def test_the_due_queries_use_the_learner_due_index(make_learner, bulk_cards, login):
    """Enough learners that one learner's cards are a small share, then ANALYZE and EXPLAIN the
    exact SQL the due endpoint ran."""
    now = timezone.now()
    learners = [make_learner(f"l{i}") for i in range(60)]
    for index, other in enumerate(learners):
        bulk_cards(
            other, 400, due=now - datetime.timedelta(days=30) + datetime.timedelta(hours=index)
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE reviews_reviewcard")
        cursor.execute("ANALYZE courses_step")
        cursor.execute("ANALYZE courses_quickcheck")
    client = login(learners[7])
    with CaptureQueriesContext(connection) as queries:
        assert client.get(DUE).status_code == 200
    card_queries = [q["sql"] for q in queries if "reviews_reviewcard" in q["sql"]]
    assert len(card_queries) == 1  # counts and next cards in one statement
    with connection.cursor() as cursor:
        for sql in card_queries:
            cursor.execute("EXPLAIN " + sql)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "reviewcard_learner_due" in plan, plan


def test_the_planner_s_work_per_chunk_does_not_grow_with_its_learners(
    make_learner, steps, monkeypatch
):
    from reviews import api

    monkeypatch.setattr(reminder_planning, "REMINDER_BATCH_SIZE", 5)
    at = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=datetime.UTC)  # 18:05 in Berlin
    created = datetime.datetime(2030, 1, 2, tzinfo=datetime.UTC)

    def planner_queries(learner_count: int, prefix: str):
        for i in range(learner_count):
            learner = make_learner(f"{prefix}{i}")
            api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=created)
        chunks: list[list[int]] = []
        reports = []

        def run():
            reports.append(
                reminder_planning.reminders_plan(
                    now=at, enqueue=lambda ids, now: chunks.append(ids)
                )
            )

        count = assert_queries_within(run, budget=12 * learner_count)
        assert all(len(chunk) <= 5 for chunk in chunks)
        return count, reports[0]

    # 3 learners: one partial chunk; then 13 more: 13 new claims in three chunks (5, 5, 3).
    small, small_report = planner_queries(3, "a")
    large, large_report = planner_queries(13, "b")
    assert (small_report.claim_chunks, large_report.claim_chunks) == (1, 3)
    assert (small_report.dispatch_chunks, large_report.dispatch_chunks) == (1, 3)
    assert (small_report.candidates, large_report.candidates) == (3, 13)
    # The first 3 were moved on to tomorrow's reminder: the second run reads only the 13 new.
    assert (small_report.looked_at, large_report.looked_at) == (3, 13)
    # Ten learners more in two chunks more of each kind: per claim chunk the learners, the
    # claims' checks and insert, the move on; per dispatch chunk read and stamp. A query per
    # learner would add ten more.
    assert large - small <= 2 * 8
    assert ReviewCard.objects.count() > 0


def test_a_planner_chunk_with_nothing_to_claim_claims_nothing(make_learner, monkeypatch):
    """Learners without due cards are read, found to have nothing due and moved on."""
    monkeypatch.setattr(reminder_planning, "REMINDER_BATCH_SIZE", 5)
    at = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=datetime.UTC)
    for i in range(7):
        make_learner(f"idle{i}")
    reports = []

    def run():
        reports.append(reminder_planning.reminders_plan(now=at, enqueue=lambda ids, now: None))

    # 2 chunks x (read, due cards, move on), the retired content's ids, the lost claims.
    assert_queries_within(run, budget=9)
    assert (reports[0].looked_at, reports[0].candidates, reports[0].claim_chunks) == (7, 0, 2)
    assert not ReminderDigest.objects.exists()
    # A second run at the same time finds nobody: one read, one dispatch read.
    assert_queries_within(run, budget=2)
    assert reports[1].looked_at == 0


def test_the_planner_reads_its_learners_through_the_next_reminder_index(make_learner):
    """With many learners whose reminder is not due, ANALYZE and EXPLAIN the planner's read."""
    from django.contrib.auth import get_user_model

    at = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=datetime.UTC)
    for i in range(20):
        make_learner(f"soon{i}")
    User = get_user_model()
    User.objects.bulk_create(
        [
            User(
                username=f"later{i}",
                email=f"later{i}@example.org",
                next_reminder_at=at + datetime.timedelta(minutes=1 + i % 1440),
            )
            for i in range(3000)
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_user")
    with CaptureQueriesContext(connection) as queries:
        report = reminder_planning.reminders_plan(now=at, enqueue=lambda ids, now: None)
    assert report.looked_at == 20
    (read,) = [q["sql"] for q in queries if q["sql"].startswith('SELECT "accounts_user"."id"')]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + read)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "user_next_reminder" in plan, plan
