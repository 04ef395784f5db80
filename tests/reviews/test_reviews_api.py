"""The reviews API: due queue with intervals, reviewing with replay, undo, stats, card faces."""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.utils import timezone

from reviews import api
from reviews.models import ReviewCard, ReviewLog

pytestmark = pytest.mark.django_db

DUE = "/api/v1/reviews/due/"
REVIEW = "/api/v1/reviews/"
UNDO = "/api/v1/reviews/undo/"
STATS = "/api/v1/reviews/stats/"


def _review(client, card_id: int, rating: int = 3, client_review_id: str | None = None):
    return client.post(
        REVIEW,
        {
            "card": card_id,
            "rating": rating,
            "duration_ms": 4200,
            "client_review_id": client_review_id or uuid.uuid4().hex,
        },
        format="json",
    )


@pytest.fixture
def studied(learner, steps, flashcards):
    """The learner completed step 1 an hour ago: its definition card and its two flashcards."""
    at = timezone.now() - datetime.timedelta(hours=1)
    api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=at)
    return ReviewCard.objects.filter(learner=learner)


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", DUE),
        ("post", REVIEW),
        ("post", UNDO),
        ("get", STATS),
        ("get", "/api/v1/reviews/cards/1/"),
        ("get", "/api/v1/notifications/"),
        ("post", "/api/v1/notifications/1/read/"),
        ("post", "/api/v1/notifications/read-all/"),
    ],
)
def test_everything_needs_a_log_in(api_client, method, url):
    response = getattr(api_client, method)(url)
    assert response.status_code in (401, 403)
    assert response.json()["error"]["code"] in ("not_authenticated", "authentication_failed")


def test_due_shows_fronts_only_with_the_interval_of_each_rating(learner, studied, steps, login):
    response = login(learner).get(DUE)
    assert response.status_code == 200
    body = response.json()
    count = studied.count()
    assert body["due_count"] == body["due_total"] == body["new_count"] == count
    assert body["budget"]["new_left"] == 20 and body["budget"]["reviews_left"] == 200
    assert len(body["cards"]) == min(count, 10)
    definition = next(c for c in body["cards"] if c["kind"] == "definition")
    assert definition["front"] == definition["term"] == steps[0].term
    assert definition["module_title"] == steps[0].module.title
    assert set(definition) == {
        "id",
        "kind",
        "front",
        "term",
        "module_title",
        "state",
        "is_new",
        "due",
        "intervals",
    }
    # A quick-check card's front names the step's term before the question.
    quick = next(c for c in body["cards"] if c["kind"] == "quick_check")
    assert quick["front"].startswith(f"{steps[0].term}: ") and quick["term"] == steps[0].term
    assert "back" not in definition and steps[0].definition not in str(body)
    # FSRS 6 defaults for a new card: Again 1 min, Hard 5.5 min, Good 10 min, Easy 8 days.
    seconds = [i["seconds"] for i in definition["intervals"]]
    assert [i["rating"] for i in definition["intervals"]] == [1, 2, 3, 4]
    assert seconds[:3] == [60, 330, 600]
    assert 7 * 86400 < seconds[3] <= 9 * 86400


def test_due_limit_parameter_is_validated(learner, studied, login):
    client = login(learner)
    assert len(client.get(DUE, {"limit": 2}).json()["cards"]) == 2
    response = client.get(DUE, {"limit": 0})
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"
    assert client.get(DUE, {"limit": "many"}).status_code == 400


def test_review_schedules_with_fsrs_and_logs_it(learner, studied, login):
    card = studied.get(kind="definition")
    before = timezone.now()
    response = _review(login(learner), card.id, rating=4)
    assert response.status_code == 200, response.json()
    body = response.json()
    card.refresh_from_db()
    # Easy on a new card: straight to review state, 8 days fuzzed to 6–11 days (fsrs 6.3).
    assert card.state == 2 and body["state"] == 2
    assert 6 * 86400 <= body["interval_seconds"] <= 11 * 86400
    assert card.due.isoformat().replace("+00:00", "Z") == body["due"].replace("+00:00", "Z")
    assert card.last_review >= before
    log = ReviewLog.objects.get(card=card)
    assert (log.rating, log.duration_ms, log.source, log.was_new) == (4, 4200, "review", True)
    assert body["replayed"] is False


def test_replaying_a_client_review_id_changes_nothing_and_returns_the_original(
    learner, studied, login
):
    client = login(learner)
    card = studied.get(kind="definition")
    first = _review(client, card.id, rating=3, client_review_id="offline-1").json()
    card.refresh_from_db()
    state = (card.state, card.due, card.stability, card.last_review)

    again = _review(client, card.id, rating=1, client_review_id="offline-1")
    assert again.status_code == 200
    body = again.json()
    assert body["replayed"] is True
    assert {k: v for k, v in body.items() if k != "replayed"} == {
        k: v for k, v in first.items() if k != "replayed"
    }
    card.refresh_from_db()
    assert (card.state, card.due, card.stability, card.last_review) == state
    assert ReviewLog.objects.filter(learner=learner).count() == 1


def test_a_client_review_id_reused_for_another_card_is_a_conflict(learner, studied, login):
    client = login(learner)
    first, second = studied.order_by("id")[:2]
    assert _review(client, first.id, client_review_id="same").status_code == 200
    response = _review(client, second.id, client_review_id="same")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "client_review_id_reused"
    second.refresh_from_db()
    assert second.last_review is None


def test_another_learners_card_is_a_404_and_untouched(learner, make_learner, studied, login):
    card = studied.get(kind="definition")
    response = _review(login(make_learner("other")), card.id)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "card_not_found"
    assert not ReviewLog.objects.exists()
    assert login(make_learner("third")).get(f"/api/v1/reviews/cards/{card.id}/").status_code == 404


@pytest.mark.parametrize(
    "payload",
    [
        {"card": 1, "rating": 5, "client_review_id": "x1"},
        {"card": 1, "rating": 0, "client_review_id": "x1"},
        {"card": 1, "rating": "good", "client_review_id": "x1"},
        {"card": 1, "rating": 3},
        {"card": 1, "rating": 3, "client_review_id": ""},
        {"card": 1, "rating": 3, "client_review_id": "x" * 65},
        {"card": 1, "rating": 3, "client_review_id": "x1", "duration_ms": -5},
        {"rating": 3, "client_review_id": "x1"},
    ],
)
def test_bad_review_input_is_a_400_and_writes_nothing(learner, studied, login, payload):
    payload = {**payload, "card": studied.first().id} if "card" in payload else payload
    response = login(learner).post(REVIEW, payload, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert not ReviewLog.objects.exists()
    assert not ReviewCard.objects.filter(last_review__isnull=False).exists()


def test_undo_restores_the_card_and_deletes_the_log(learner, studied, login):
    client = login(learner)
    card = studied.get(kind="definition")
    original = (card.state, card.learning_step, card.stability, card.difficulty, card.due)
    _review(client, card.id, rating=1)
    _review(client, card.id, rating=3)
    after_first = ReviewLog.objects.order_by("id").first()

    response = client.post(UNDO)
    assert response.status_code == 200
    assert response.json()["rating"] == 3
    card.refresh_from_db()
    assert card.due == after_first.after_due and card.state == after_first.after_state
    assert ReviewLog.objects.count() == 1

    assert client.post(UNDO).status_code == 200
    card.refresh_from_db()
    assert (card.state, card.learning_step, card.stability, card.difficulty, card.due) == original
    assert card.last_review is None and not ReviewLog.objects.exists()

    response = client.post(UNDO)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "nothing_to_undo"


def test_undo_only_touches_my_reviews(learner, make_learner, studied, login, steps):
    other = make_learner("other")
    api.cards_for_step_ensure(learner_id=other.pk, step_id=steps[0].pk, at=timezone.now())
    _review(login(learner), studied.first().id)
    assert login(other).post(UNDO).status_code == 409
    assert ReviewLog.objects.filter(learner=learner).count() == 1


def test_due_body_is_what_the_declared_fields_give(learner, studied, login):
    """DueQueueSerializer writes its dict directly; DRF's generic walk over the declared fields
    (the OpenAPI contract) must give the same, for new and for reviewed cards."""
    from rest_framework import serializers

    from reviews.rest.serializers import DueQueueSerializer
    from reviews.selectors import due_queue

    client = login(learner)
    _review(client, client.get(DUE).json()["cards"][0]["id"], rating=1)
    at = timezone.now() + datetime.timedelta(minutes=5)
    queue = due_queue(learner=learner, at=at, limit=50)
    assert {card.is_new for card in queue.cards} == {True, False}
    generic = serializers.Serializer.to_representation(DueQueueSerializer(), queue)
    assert DueQueueSerializer(queue).data == generic


def test_daily_limits_cap_new_cards_and_reviews(learner, studied, login):
    learner.new_cards_per_day = 2
    learner.reviews_per_day = 3
    learner.save()
    client = login(learner)
    body = client.get(DUE).json()
    assert body["due_count"] == body["new_count"] == 2 and body["due_total"] == studied.count()
    assert len(body["cards"]) == 2
    # Again keeps a card in learning and due in a minute: it comes back as a review, not new.
    for card in body["cards"]:
        _review(client, card["id"], rating=1)
    body = client.get(DUE).json()
    assert body["budget"]["new_today"] == 2 and body["budget"]["reviews_left"] == 1
    assert body["new_count"] == 0
    assert body["due_count"] <= 1 and all(not c["is_new"] for c in body["cards"])


def test_reviews_come_before_new_cards(learner, studied, login):
    client = login(learner)
    card = studied.get(kind="definition")
    # A reviewed card due again (an hour ago) sorts before every new card.
    ReviewCard.objects.filter(id=card.id).update(
        state=2,
        learning_step=None,
        stability=3.0,
        difficulty=5.0,
        last_review=timezone.now() - datetime.timedelta(days=3),
        due=timezone.now() - datetime.timedelta(minutes=30),
    )
    body = client.get(DUE).json()
    assert body["cards"][0]["id"] == card.id and body["cards"][0]["is_new"] is False
    assert body["review_count"] == 1
    assert [c["rating"] for c in body["cards"][0]["intervals"]] == [1, 2, 3, 4]
    intervals = [c["seconds"] for c in body["cards"][0]["intervals"]]
    assert intervals[0] < intervals[1] <= intervals[2] <= intervals[3]


def test_card_faces_show_front_and_back(learner, studied, steps, login):
    card = studied.get(kind="definition")
    body = login(learner).get(f"/api/v1/reviews/cards/{card.id}/").json()
    assert (body["front"], body["back"]) == (steps[0].term, steps[0].definition)
    assert (body["term"], body["module_title"]) == (steps[0].term, steps[0].module.title)
    quick = studied.filter(kind="quick_check").first()
    body = login(learner).get(f"/api/v1/reviews/cards/{quick.id}/").json()
    assert body["front"] == f"{steps[0].term}: {quick.quick_check.question}"
    assert body["back"] == quick.quick_check.answer


def test_stats(learner, studied, login):
    client = login(learner)
    empty = client.get(STATS).json()
    assert empty["reviewed_today"] == 0 and empty["streak_days"] == 0
    assert empty["recall_share"] is None and len(empty["per_day"]) == 90
    assert empty["due_today"] == studied.count()

    cards = list(studied.order_by("id")[:3])
    for card, rating in zip(cards, [1, 3, 4], strict=True):
        _review(client, card.id, rating=rating)
    # Two earlier days in a row, then a gap: the streak is today + yesterday + the day before.
    now = timezone.now()
    ReviewLog.objects.bulk_create(
        [
            _log(learner, cards[0], now - datetime.timedelta(days=days), rating)
            for days, rating in [(1, 3), (2, 1), (4, 3)]
        ]
    )
    body = client.get(STATS).json()
    assert body["reviewed_today"] == 3
    assert body["streak_days"] == 3
    assert body["reviews_total"] == 6 and body["recalled_total"] == 4
    assert body["recall_share"] == round(4 / 6, 4)
    per_day = body["per_day"]
    assert per_day[-1]["count"] == 3 and per_day[-2]["count"] == 1 and per_day[-4]["count"] == 0
    assert sum(day["count"] for day in per_day) == 6


def _log(learner, card, at, rating) -> ReviewLog:
    return ReviewLog(
        card=card,
        learner=learner,
        rating=rating,
        reviewed_at=at,
        before_state=2,
        before_due=at,
        before_last_review=at - datetime.timedelta(days=2),
        after_state=2,
        after_stability=3.0,
        after_difficulty=5.0,
        after_due=at + datetime.timedelta(days=3),
    )


def test_stats_count_local_days(learner, studied, login):
    """A review at 23:30 local time belongs to that local day, not to the UTC date."""
    learner.time_zone = "Asia/Tokyo"
    learner.save()
    card = studied.first()
    tokyo_now = timezone.now().astimezone(datetime.timezone(datetime.timedelta(hours=9)))
    yesterday_late = tokyo_now.replace(hour=23, minute=30) - datetime.timedelta(days=1)
    ReviewLog.objects.bulk_create([_log(learner, card, yesterday_late, 3)])
    body = login(learner).get(STATS).json()
    assert body["per_day"][-2]["count"] == 1 and body["per_day"][-1]["count"] == 0
    assert body["streak_days"] == 1
