"""POST /api/v1/reviews/batch/: a phone's offline queue, applied in order, idempotent per client
review id, each review scheduled from its own time; per-review results; bounded size."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from reviews.models import ReviewCard, ReviewLog
from reviews.scheduling import CardState, card_review
from reviews.services.review_batches import BATCH_ERROR_CODES, REVIEW_BATCH_MAX
from tests.helpers.queries import assert_queries_constant, assert_queries_within

pytestmark = pytest.mark.django_db

BATCH = "/api/v1/reviews/batch/"
DAY = datetime.timedelta(days=1)


@pytest.fixture
def cards(learner, bulk_cards):
    """Three cards in review state, last reviewed 20 days ago, due 15 days ago."""
    made = bulk_cards(learner, 3, due=timezone.now() - 15 * DAY, reviewed=True)
    return [ReviewCard.objects.get(pk=card.pk) for card in made]


def _item(card, when, rating=3, client_review_id=None):
    return {
        "card": card.pk,
        "rating": rating,
        "duration_ms": 2000,
        "client_review_id": client_review_id or f"c{card.pk}-{when.timestamp():.0f}-{rating}",
        "reviewed_at": when.isoformat(),
    }


def _post(client, reviews):
    return client.post(BATCH, {"reviews": reviews}, format="json")


def _state(card) -> CardState:
    return CardState.from_columns(ReviewCard.objects.get(pk=card.pk))


def test_each_review_is_scheduled_from_its_own_time_in_the_order_sent(learner, login, cards):
    card = cards[0]
    start = _state(card)
    first_at = start.last_review + 4 * DAY
    response = _post(
        login(learner),
        [
            _item(card, first_at, rating=1),
            _item(card, first_at + datetime.timedelta(minutes=10), rating=3),
        ],
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert [r["status"] for r in body["results"]] == ["applied", "applied"]
    # The pure scheduler, review by review from each one's own time: the same memory states.
    second_at = first_at + datetime.timedelta(minutes=10)
    after_first = card_review(state=start, rating=1, at=first_at, desired_retention=0.9)
    after_second = card_review(state=after_first, rating=3, at=second_at, desired_retention=0.9)
    first, second = (r["review"] for r in body["results"])
    assert first["stability"] == pytest.approx(after_first.stability)
    assert second["stability"] == pytest.approx(after_second.stability)
    assert second["difficulty"] == pytest.approx(after_second.difficulty)
    assert second["state"] == after_second.state
    logs = list(ReviewLog.objects.filter(card=card).order_by("id"))
    assert [log.reviewed_at for log in logs] == [first_at, second_at]
    assert [log.rating for log in logs] == [1, 3]
    assert _state(card).last_review == second_at


def test_a_review_sent_after_a_later_one_of_its_card_is_rejected(learner, login, cards):
    card = cards[0]
    later = _state(card).last_review + 5 * DAY
    body = _post(login(learner), [_item(card, later), _item(card, later - DAY)]).json()
    applied, rejected = body["results"]
    assert applied["status"] == "applied" and applied["review"]
    assert rejected["status"] == "rejected" and rejected["review"] is None
    assert rejected["error"]["code"] == "reviewed_at_too_early"
    assert rejected["error"]["detail"]["earliest"] == later.isoformat()
    assert ReviewLog.objects.filter(card=card).count() == 1
    assert body["counts"] == {"applied": 1, "duplicate": 0, "rejected": 1}


def test_resending_a_batch_changes_nothing_and_answers_the_same(learner, login, cards):
    client = login(learner)
    base = _state(cards[0]).last_review + 3 * DAY
    reviews = [
        _item(card, base + i * datetime.timedelta(minutes=1)) for i, card in enumerate(cards)
    ]
    first = _post(client, reviews).json()
    assert first["counts"] == {"applied": 3, "duplicate": 0, "rejected": 0}
    states = [_state(card) for card in cards]
    logs = ReviewLog.objects.count()
    again = _post(client, reviews).json()
    assert again["counts"] == {"applied": 0, "duplicate": 3, "rejected": 0}
    for one, other in zip(first["results"], again["results"], strict=True):
        assert other["status"] == "duplicate"
        assert other["review"] == {**one["review"], "replayed": True}
    assert [_state(card) for card in cards] == states
    assert ReviewLog.objects.count() == logs


def test_a_client_review_id_twice_in_one_batch_is_one_review(learner, login, cards):
    when = _state(cards[0]).last_review + 2 * DAY
    item = _item(cards[0], when, client_review_id="same")
    body = _post(login(learner), [item, {**item, "rating": 1}]).json()
    assert [r["status"] for r in body["results"]] == ["applied", "duplicate"]
    assert body["results"][1]["review"]["rating"] == 3
    assert ReviewLog.objects.filter(card=cards[0]).count() == 1
    # The same id for another card: rejected, as POST /reviews/ answers 409.
    other = _post(login(learner), [{**item, "card": cards[1].pk}]).json()["results"][0]
    assert other["status"] == "rejected"
    assert other["error"]["code"] == "client_review_id_reused" in BATCH_ERROR_CODES


def test_bad_reviews_are_rejected_with_their_reason_and_the_rest_apply(
    learner, login, cards, make_learner, bulk_cards
):
    (foreign,) = bulk_cards(make_learner("ben"), 1, due=timezone.now() - DAY, reviewed=True)
    now = timezone.now()
    good = _item(cards[0], now - DAY)
    reviews = [
        {**_item(cards[1], now), "rating": 7},
        good,
        {"card": cards[2].pk, "client_review_id": "no-rating"},
        {**_item(cards[2], now), "card": foreign.pk},
        _item(cards[2], now + datetime.timedelta(hours=1)),
        {**_item(cards[2], now), "reviewed_at": "2026-03-01T09:30:00"},
        "not an object",
        {**_item(cards[2], now), "client_review_id": "x" * 500},
    ]
    response = _post(login(learner), reviews)
    assert response.status_code == 200
    body = response.json()
    results = body["results"]
    assert [r["index"] for r in results] == list(range(len(reviews)))
    assert [r["status"] for r in results] == ["rejected", "applied", *["rejected"] * 6]
    codes = [r["error"]["code"] if r["error"] else None for r in results]
    assert codes == [
        "invalid",
        None,
        "invalid",
        "card_not_found",
        "reviewed_at_in_future",
        "invalid",
        "invalid",
        "invalid",
    ]
    assert set(codes) - {None} <= set(BATCH_ERROR_CODES)
    assert "rating" in results[0]["error"]["detail"]
    assert "rating" in results[2]["error"]["detail"]
    assert "reviewed_at" in results[5]["error"]["detail"]
    assert results[2]["client_review_id"] == "no-rating"
    assert results[6]["client_review_id"] is None and results[7]["client_review_id"] is None
    assert results[1]["client_review_id"] == good["client_review_id"]
    assert body["counts"] == {"applied": 1, "duplicate": 0, "rejected": 7}
    assert ReviewLog.objects.filter(learner=learner).count() == 1
    assert not ReviewLog.objects.filter(card=foreign).exists()


def test_the_answer_carries_the_server_time(learner, login):
    before = timezone.now()
    body = _post(login(learner), []).json()
    assert body["results"] == []
    assert before <= datetime.datetime.fromisoformat(body["server_time"]) <= timezone.now()


def test_a_batch_over_the_limit_is_refused_whole(learner, login, cards):
    when = _state(cards[0]).last_review + DAY
    reviews = [_item(cards[0], when, client_review_id=f"r{i}") for i in range(REVIEW_BATCH_MAX + 1)]
    response = _post(login(learner), reviews)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "batch_too_large"
    assert error["detail"] == {"limit": REVIEW_BATCH_MAX, "received": REVIEW_BATCH_MAX + 1}
    assert not ReviewLog.objects.exists()


@pytest.mark.parametrize("body", [{}, {"reviews": "all"}, {"reviews": {"card": 1}}, []])
def test_a_body_that_is_no_batch_is_a_400(learner, login, body):
    response = login(learner).post(BATCH, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] in ("invalid", "parse_error")


def test_the_batch_needs_a_log_in(api_client):
    response = api_client.post(BATCH, {"reviews": []}, format="json")
    assert response.status_code in (401, 403)


def _applied(client, reviews, status="applied"):
    def run():
        response = _post(client, reviews)
        assert response.status_code == 200
        assert response.json()["counts"][status] == len(reviews), response.content

    return run


def test_a_batch_costs_the_same_queries_per_review_with_few_or_many_cards(
    learner, bulk_cards, login
):
    made = bulk_cards(learner, 21, due=timezone.now() - DAY, reviewed=True)
    client = login(learner)
    when = made[0].last_review + DAY
    sent = iter(range(10_000))

    def one():
        _applied(client, [_item(made[0], when, client_review_id=f"one{next(sent)}")])()

    def grow():
        bulk_cards(learner, 10_000, due=timezone.now() - DAY, reviewed=True, start=21)

    # Per review, in a transaction: lock the card, look up the client review id, insert the
    # log, update the card.
    per_review = assert_queries_constant(one, grow=grow, budget=7)
    twenty = [_item(card, when, client_review_id=f"t{card.pk}") for card in made[1:21]]
    assert assert_queries_within(_applied(client, twenty), budget=20 * per_review) == (
        20 * per_review
    )
    # Sent again: each a duplicate, answered from its log.
    assert_queries_within(_applied(client, twenty, status="duplicate"), budget=20 * per_review)


def test_the_schema_declares_the_batch_and_reviewed_at():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/reviews/batch/"]["post"]
    assert operation["summary"]
    components = schema["components"]["schemas"]
    request = components["ReviewBatchRequest"]["properties"]["reviews"]
    assert request["items"] == {"$ref": "#/components/schemas/ReviewCreateRequest"}
    assert components["ReviewCreateRequest"]["properties"]["reviewed_at"]["format"] == "date-time"
    item = components["ReviewBatchItem"]["properties"]
    status = components[item["status"]["allOf"][0]["$ref"].rsplit("/", 1)[1]]
    assert set(status["enum"]) == {"applied", "duplicate", "rejected"}
    error = components["ReviewBatchError"]["properties"]["code"]
    codes = components[error["allOf"][0]["$ref"].rsplit("/", 1)[1]]["enum"]
    assert set(codes) == set(BATCH_ERROR_CODES)
    result = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert result == {"$ref": "#/components/schemas/ReviewBatchResult"}
    assert {"server_time", "results", "counts"} <= set(components["ReviewBatchResult"]["required"])
    due = schema["paths"]["/api/v1/reviews/due/"]["get"]
    include = next(p for p in due["parameters"] if p["name"] == "include")
    assert include["schema"]["enum"] == ["back"]
    assert "back" not in components["DueCard"]["required"]
