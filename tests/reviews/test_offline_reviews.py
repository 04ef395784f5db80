"""Offline reviews: a review's own time (``reviewed_at``), its bounds, and the due queue with the
card backs for a session without network."""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.utils import timezone

from reviews import api
from reviews.models import ReviewCard, ReviewLog
from reviews.review_times import review_time
from reviews.scheduling import CardState, card_review, intervals_preview
from reviews.selectors import card_faces
from tests.helpers.queries import assert_queries_constant

pytestmark = pytest.mark.django_db

DUE = "/api/v1/reviews/due/"
REVIEW = "/api/v1/reviews/"


def _post(client, card_id: int, *, reviewed_at=None, rating: int = 3, client_review_id=None):
    body = {
        "card": card_id,
        "rating": rating,
        "client_review_id": client_review_id or uuid.uuid4().hex,
    }
    if reviewed_at is not None:
        body["reviewed_at"] = (
            reviewed_at.isoformat() if isinstance(reviewed_at, datetime.datetime) else reviewed_at
        )
    return client.post(REVIEW, body, format="json")


@pytest.fixture
def reviewed_card(learner, bulk_cards):
    """A card in review state, last reviewed 20 days ago (stability 5 days), due 15 days ago."""
    now = timezone.now()
    (card,) = bulk_cards(learner, 1, due=now - datetime.timedelta(days=15), reviewed=True)
    card.refresh_from_db()
    return card


def _state(card: ReviewCard) -> CardState:
    card.refresh_from_db()
    return CardState.from_columns(card)


# --- the bounds, as a pure rule ------------------------------------------------------------------

NOW = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)
MINUTE = datetime.timedelta(minutes=1)


def test_no_client_time_is_now():
    assert review_time(reviewed_at=None, now=NOW, created_at=None, last_review=None) == NOW


def test_no_client_time_is_never_before_the_last_review():
    """A request that started before another review of the card but applies after it (it lost
    the race for the card) counts a microsecond after that review, not back before it."""
    later = NOW + datetime.timedelta(microseconds=40)
    after = later + datetime.timedelta(microseconds=1)
    assert review_time(reviewed_at=None, now=NOW, created_at=None, last_review=later) == after
    assert review_time(reviewed_at=None, now=later, created_at=None, last_review=later) == after
    earlier = NOW - MINUTE
    assert review_time(reviewed_at=None, now=NOW, created_at=None, last_review=earlier) == NOW


def test_up_to_five_minutes_ahead_is_now_and_further_is_refused():
    from lms.errors import InvalidInput

    ahead = NOW + 5 * MINUTE
    assert review_time(reviewed_at=ahead, now=NOW, created_at=None, last_review=None) == NOW
    with pytest.raises(InvalidInput) as refused:
        review_time(
            reviewed_at=ahead + datetime.timedelta(seconds=1),
            now=NOW,
            created_at=None,
            last_review=None,
        )
    assert refused.value.code == "reviewed_at_in_future"
    assert refused.value.detail == {"server_time": NOW.isoformat()}


def test_not_before_the_last_review_nor_the_card_nor_2020():
    from lms.errors import InvalidInput

    last = NOW - 60 * MINUTE
    created = NOW - 120 * MINUTE
    # The very instant of the last review is allowed (0 days elapsed); a second earlier is not.
    assert review_time(reviewed_at=last, now=NOW, created_at=created, last_review=last) == last
    for reviewed_at, created_at, last_review, earliest in (
        (last - datetime.timedelta(seconds=1), created, last, last),
        (created - MINUTE, created, None, created),
        (datetime.datetime(2019, 12, 31, tzinfo=datetime.UTC), None, None, None),
    ):
        with pytest.raises(InvalidInput) as refused:
            review_time(
                reviewed_at=reviewed_at, now=NOW, created_at=created_at, last_review=last_review
            )
        assert refused.value.code == "reviewed_at_too_early"
        if earliest:
            assert refused.value.detail["earliest"] == earliest.isoformat()


def test_a_time_in_another_zone_is_the_same_instant():
    tokyo = datetime.timezone(datetime.timedelta(hours=9))
    at = (NOW - 60 * MINUTE).astimezone(tokyo)
    assert (
        review_time(reviewed_at=at, now=NOW, created_at=None, last_review=None) == NOW - 60 * MINUTE
    )


# --- reviewed_at through the API -----------------------------------------------------------------


def test_a_review_is_scheduled_from_its_own_time_and_logged_at_it(learner, login, reviewed_card):
    client = login(learner)
    before = _state(reviewed_card)
    reviewed_at = before.last_review + datetime.timedelta(days=3)
    response = _post(client, reviewed_card.pk, reviewed_at=reviewed_at)
    assert response.status_code == 200, response.content
    body = response.json()
    assert datetime.datetime.fromisoformat(body["reviewed_at"]) == reviewed_at
    # The scheduler's pure function at the review's own time gives the same memory state
    # (stability and difficulty are not fuzzed) …
    expected = card_review(state=before, rating=3, at=reviewed_at, desired_retention=0.9)
    assert body["stability"] == pytest.approx(expected.stability)
    assert body["difficulty"] == pytest.approx(expected.difficulty)
    # … and an interval counted from that time: the unfuzzed preview's, within FSRS's fuzz.
    (good,) = [
        p
        for p in intervals_preview(state=before, at=reviewed_at, desired_retention=0.9)
        if p.rating == 3
    ]
    due = datetime.datetime.fromisoformat(body["due"])
    # FSRS fuzzes by at most a day plus 15 % of the interval, rounded to days (FUZZ_RANGES).
    assert abs((due - good.due).total_seconds()) <= 0.15 * good.seconds + 1.5 * 86400
    # Reviewed now, three days would have been seventeen: another stability.
    at_sync = card_review(state=before, rating=3, at=timezone.now(), desired_retention=0.9)
    assert at_sync.stability != pytest.approx(expected.stability)
    log = ReviewLog.objects.get(card=reviewed_card)
    assert log.reviewed_at == reviewed_at
    assert _state(reviewed_card).last_review == reviewed_at


def test_a_review_without_reviewed_at_counts_now(learner, login, reviewed_card):
    before = timezone.now()
    body = _post(login(learner), reviewed_card.pk).json()
    assert before <= datetime.datetime.fromisoformat(body["reviewed_at"]) <= timezone.now()


def test_a_clock_a_little_fast_counts_as_now(learner, login, reviewed_card):
    ahead = timezone.now() + datetime.timedelta(minutes=4)
    body = _post(login(learner), reviewed_card.pk, reviewed_at=ahead).json()
    assert datetime.datetime.fromisoformat(body["reviewed_at"]) <= timezone.now()


@pytest.mark.parametrize(
    ("offset", "code"),
    [
        (datetime.timedelta(minutes=6), "reviewed_at_in_future"),
        (datetime.timedelta(days=-25), "reviewed_at_too_early"),  # before the last review
    ],
)
def test_a_time_out_of_bounds_is_a_400_and_writes_nothing(
    learner, login, reviewed_card, offset, code
):
    before = _state(reviewed_card)
    response = _post(login(learner), reviewed_card.pk, reviewed_at=timezone.now() + offset)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code
    assert "server_time" in error["detail"]
    assert _state(reviewed_card) == before
    assert not ReviewLog.objects.filter(card=reviewed_card).exists()


def test_a_review_before_the_card_existed_is_refused(learner, login, studied_now):
    card = studied_now.first()
    response = _post(login(learner), card.pk, reviewed_at=card.created_at - MINUTE)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "reviewed_at_too_early"


@pytest.fixture
def studied_now(learner, steps, flashcards):
    api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=timezone.now())
    return ReviewCard.objects.filter(learner=learner)


@pytest.mark.parametrize(
    "value",
    [
        "2026-03-01T09:30:00",
        "yesterday",
        "2026-03-01T09:30:00\u0000Z",
        "0001-01-01T00:00:00+14:00",
        17,
    ],
)
def test_a_time_that_names_no_instant_is_a_400_on_the_field(learner, login, reviewed_card, value):
    response = _post(login(learner), reviewed_card.pk, reviewed_at=value)
    assert response.status_code == 400
    body = response.json()["error"]
    assert body["code"] == "invalid" and "reviewed_at" in body["detail"]


def test_a_replay_returns_the_original_although_its_time_is_now_before_the_last_review(
    learner, login, reviewed_card
):
    client = login(learner)
    reviewed_at = _state(reviewed_card).last_review + datetime.timedelta(days=2)
    first = _post(client, reviewed_card.pk, reviewed_at=reviewed_at, client_review_id="off-1")
    later = _post(client, reviewed_card.pk, client_review_id="off-2")
    assert later.json()["replayed"] is False
    state = _state(reviewed_card)
    replay = _post(client, reviewed_card.pk, reviewed_at=reviewed_at, client_review_id="off-1")
    assert replay.status_code == 200
    assert replay.json() == {**first.json(), "replayed": True}
    assert _state(reviewed_card) == state
    assert ReviewLog.objects.filter(card=reviewed_card).count() == 2


def test_the_service_checks_and_uses_reviewed_at(learner, reviewed_card):
    from lms.errors import InvalidInput
    from reviews.services import reviewing

    before = _state(reviewed_card)
    with pytest.raises(InvalidInput):
        reviewing.review_record(
            learner=learner,
            card_id=reviewed_card.pk,
            rating=3,
            duration_ms=None,
            client_review_id="locked-1",
            reviewed_at=before.last_review - MINUTE,
        )
    reviewed_at = before.last_review + datetime.timedelta(days=1)
    result = reviewing.review_record(
        learner=learner,
        card_id=reviewed_card.pk,
        rating=3,
        duration_ms=None,
        client_review_id="locked-2",
        reviewed_at=reviewed_at,
    )
    assert result.reviewed_at == reviewed_at


def test_a_review_applied_after_a_newer_one_keeps_the_card_at_its_newest_log(
    learner, reviewed_card
):
    """The race of two reviews of one card, in order: the one that started first (its ``now``
    40 µs earlier) waited for the card's lock and applies second, a microsecond after the
    other. The card's last review stays the newest log's time."""
    from reviews.services import reviewing

    started_first = timezone.now()
    started_second = started_first + datetime.timedelta(microseconds=40)
    for at, client_review_id in ((started_second, "race-b"), (started_first, "race-a")):
        reviewing.review_record(
            learner=learner,
            card_id=reviewed_card.pk,
            rating=3,
            duration_ms=None,
            client_review_id=client_review_id,
            at=at,
        )
    logs = ReviewLog.objects.filter(card=reviewed_card).order_by("id")
    newest = max(log.reviewed_at for log in logs)
    applied_second = started_second + datetime.timedelta(microseconds=1)
    assert _state(reviewed_card).last_review == newest == applied_second
    assert [log.reviewed_at for log in logs][-2:] == [started_second, applied_second]


# --- the due queue with its backs ----------------------------------------------------------------


def test_the_due_queue_brings_the_backs_when_asked(learner, login, studied_now):
    client = login(learner)
    plain = client.get(DUE).json()["cards"]
    assert plain and all("back" not in card for card in plain)
    cards = client.get(DUE, {"include": "back"}).json()["cards"]
    assert {card["kind"] for card in cards} == {"definition", "quick_check"}
    for card in cards:
        assert card["back"] == card_faces(learner_id=learner.pk, card_id=card["id"]).back
        assert card["back"]
    assert [c["id"] for c in cards] == [c["id"] for c in plain]


def test_a_whole_day_in_one_page_only_with_the_backs(learner, login, bulk_cards):
    bulk_cards(learner, 260, due=timezone.now() - datetime.timedelta(days=1), reviewed=True)
    client = login(learner)
    # Without the backs a larger limit is capped (the schema cannot tie limit to include).
    capped = client.get(DUE, {"limit": 200})
    assert capped.status_code == 200 and len(capped.json()["cards"]) == 50
    assert client.get(DUE, {"limit": 501}).status_code == 400  # beyond the schema's maximum
    assert client.get(DUE, {"include": ""}).status_code == 400  # empty, not left out
    body = client.get(DUE, {"limit": 500, "include": "back"}).json()
    # The day's review limit (200) is the session.
    assert len(body["cards"]) == body["due_count"] == 200
    assert all(card["back"].startswith("Bulk answer") for card in body["cards"])
    assert client.get(DUE, {"limit": 501, "include": "back"}).status_code == 400
    assert client.get(DUE, {"include": "front"}).status_code == 400


def test_the_backs_cost_the_same_queries_with_few_or_many_cards(learner, bulk_cards, login):
    now = timezone.now()
    bulk_cards(learner, 200, due=now - datetime.timedelta(days=2), reviewed=True)
    client = login(learner)
    bodies = []

    def run():
        bodies.append(client.get(DUE, {"include": "back", "limit": 500}).json())

    def grow():
        bulk_cards(learner, 10_000, due=now - datetime.timedelta(days=1), reviewed=True, start=200)

    run()  # the retired content and the cards' faces, cached under the content's version
    # The content version (twice), the queue, and the faces of cards not read before.
    assert_queries_constant(run, grow=grow, budget=5)
    few, many = ([card["id"] for card in body["cards"]] for body in bodies[-2:])
    assert len(many) == 200 and many == few
