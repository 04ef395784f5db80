"""Query counts that do not grow with the data, the (learner, due) index in the plan, and a
planner whose work per chunk is a fixed number of queries."""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from lms.content_cache import content_caches_clear
from reviews.models import Notification, ReviewCard
from reviews.services import reminder_planning

pytestmark = pytest.mark.django_db

DUE = "/api/v1/reviews/due/"


def _count(client, method: str, url: str, data=None) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = (
            getattr(client, method)(url, data, format="json")
            if data
            else getattr(client, method)(url)
        )
    assert response.status_code == 200, response.content
    return len(queries)


@pytest.mark.parametrize("cards", [1, 10_000])
def test_due_uses_at_most_five_queries_with_1_or_10000_cards(
    learner, bulk_cards, login, cards, django_assert_max_num_queries
):
    now = timezone.now()
    bulk_cards(learner, cards, due=now - datetime.timedelta(days=1), reviewed=True)
    client = login(learner)
    with django_assert_max_num_queries(5):
        response = client.get(DUE, {"limit": 50})
    body = response.json()
    assert body["due_total"] == cards
    assert body["due_count"] == min(cards, 200)  # the daily review limit
    assert len(body["cards"]) == min(cards, 50)


def test_due_query_count_is_the_same_for_1_and_10000_cards(make_learner, bulk_cards, login):
    now = timezone.now()
    small, large = make_learner("small"), make_learner("large")
    bulk_cards(small, 1, due=now - datetime.timedelta(days=1))
    bulk_cards(large, 10_000, due=now - datetime.timedelta(days=1))

    def cold_and_warm(learner) -> tuple[int, int]:
        content_caches_clear()
        client = login(learner)
        return _count(client, "get", DUE), _count(client, "get", DUE)

    # Warm: one statement, live due cards, today's counts and the next page (reviews.sql). The
    # retired content's ids and the cards' fronts come from courses.api's per-process caches of
    # a second; cold, those are one query each.
    assert cold_and_warm(small) == cold_and_warm(large) == (3, 1)


@pytest.mark.parametrize("cards", [1, 10_000])
def test_posting_a_review_uses_a_fixed_number_of_queries(
    learner, bulk_cards, login, cards, django_assert_num_queries
):
    from django.db import connection

    made = bulk_cards(learner, cards, due=timezone.now() - datetime.timedelta(days=1))
    client = login(learner)
    payload = {"card": made[-1].pk, "rating": 3, "duration_ms": 1500}
    postgres = connection.vendor == "postgresql"
    # PostgreSQL: read the card and look up the client review id, then write the log and the
    # card if unchanged (one statement; in a request no transaction around them, here the test's
    # transaction adds a savepoint pair). Elsewhere: savepoint, lock and look-up, insert the
    # log, update the card, release.
    review = 4 if postgres else 5
    with django_assert_num_queries(review):
        response = client.post(
            "/api/v1/reviews/", {**payload, "client_review_id": "r1"}, format="json"
        )
    assert response.status_code == 200 and response.json()["replayed"] is False
    # The locked path: savepoint, lock and look-up, the earlier log, release (after the
    # unlocked read that found the replay, on PostgreSQL).
    with django_assert_num_queries(5 if postgres else 4):
        replay = client.post(
            "/api/v1/reviews/", {**payload, "client_review_id": "r1"}, format="json"
        )
    assert replay.json()["replayed"] is True
    # savepoint, lock the card of the last review, its last log, restore, delete, release
    with django_assert_num_queries(6):
        assert client.post("/api/v1/reviews/undo/").status_code == 200


@pytest.mark.parametrize("cards", [1, 2_000])
def test_stats_card_and_notification_reads_are_constant(
    learner, bulk_cards, login, cards, django_assert_num_queries
):
    now = timezone.now()
    made = bulk_cards(learner, cards, due=now - datetime.timedelta(days=1))
    client = login(learner)
    for card in made[: min(cards, 30)]:
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
    # Cold, the ids of retired content are read once (courses.api keeps them for a second).
    with django_assert_num_queries(3):
        client.get("/api/v1/reviews/stats/")
    with django_assert_num_queries(2):  # reviews per local day; cards due today
        client.get("/api/v1/reviews/stats/")
    with django_assert_num_queries(1):
        client.get(f"/api/v1/reviews/cards/{made[0].pk}/")
    with django_assert_num_queries(2):  # count, page
        client.get("/api/v1/notifications/")


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


@pytest.mark.parametrize("batch", [5])
def test_planner_work_per_chunk_is_a_fixed_number_of_queries(
    make_learner, steps, monkeypatch, batch
):
    from reviews import api

    monkeypatch.setattr(reminder_planning, "REMINDER_BATCH_SIZE", batch)
    at = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=datetime.UTC)  # 18:05 in Berlin
    created = datetime.datetime(2030, 1, 2, tzinfo=datetime.UTC)

    def planner_queries(
        learner_count: int, prefix: str
    ) -> tuple[int, reminder_planning.PlannerReport]:
        for i in range(learner_count):
            learner = make_learner(f"{prefix}{i}")
            api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=created)
        chunks: list[list[int]] = []
        content_caches_clear()  # a planner run every 15 minutes finds courses.api's cache cold
        with CaptureQueriesContext(connection) as queries:
            report = reminder_planning.reminders_plan(
                now=at, enqueue=lambda ids, now: chunks.append(ids)
            )
        assert all(len(chunk) <= batch for chunk in chunks)
        return len(queries), report

    # 3 learners: one partial chunk; then 13 more: 13 new claims in three chunks (5, 5, 3).
    small, small_report = planner_queries(3, "a")
    large, large_report = planner_queries(13, "b")
    assert (small_report.claim_chunks, large_report.claim_chunks) == (1, 3)
    assert (small_report.dispatch_chunks, large_report.dispatch_chunks) == (1, 3)
    # The first 3 were moved on to tomorrow's reminder: the second run reads only the 13 new.
    assert (small_report.looked_at, large_report.looked_at) == (3, 13)
    # Per chunk: read the due learners (accounts.api), insert the claims of those with a live
    # card due and no review today (stamped as enqueued, ids returned), move them on
    # (accounts.api) = 3 queries; per run two more: the ids of retired content (courses.api)
    # and the claims whose task was lost (none here).
    assert small == 3 + 2
    assert large - small == 3 * (3 - 1)
    assert ReviewCard.objects.count() > 0


def test_planner_chunk_with_nothing_to_claim_costs_three_queries(make_learner, monkeypatch):
    """Learners without due cards are read, found to have nothing due by the claim INSERT and
    moved on (3 queries per chunk), not claimed."""
    monkeypatch.setattr(reminder_planning, "REMINDER_BATCH_SIZE", 5)
    at = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=datetime.UTC)
    for i in range(7):
        make_learner(f"idle{i}")
    content_caches_clear()
    with CaptureQueriesContext(connection) as queries:
        report = reminder_planning.reminders_plan(now=at, enqueue=lambda ids, now: None)
    assert (report.looked_at, report.candidates, report.claim_chunks) == (7, 0, 2)
    # 2 chunks x (read, claim INSERT that finds nothing due, move on) + the retired content's
    # ids and the one read of lost claims. (The learners are read through accounts.api, so
    # whether they have cards due is the claim INSERT's to check, on reviews' own tables.)
    assert len(queries) == 2 * 3 + 2
    # A second run at the same time finds nobody: one read, one dispatch read.
    content_caches_clear()
    with CaptureQueriesContext(connection) as queries:
        report = reminder_planning.reminders_plan(now=at, enqueue=lambda ids, now: None)
    assert report.looked_at == 0 and len(queries) == 2


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
