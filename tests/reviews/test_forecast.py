"""The review forecast (Anki's Future Due) and true retention: by the learner's local day, in the
API and with constant query counts."""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

from lms.local_time import local_day, local_day_of
from reviews.models import ReviewCard, ReviewLog
from reviews.selectors import FORECAST_DAYS, review_forecast, true_retention
from tests.helpers.queries import assert_queries_constant

pytestmark = pytest.mark.django_db

FORECAST = "/api/v1/reviews/forecast/"
RETENTION = "/api/v1/reviews/retention/"
DAY = datetime.timedelta(days=1)


def _due_on(cards, instants):
    for card, due in zip(cards, instants, strict=True):
        ReviewCard.objects.filter(pk=card.pk).update(due=due)


def test_the_forecast_counts_each_local_day_today_first_with_the_overdue(make_learner, bulk_cards):
    # Tokyo is UTC+9: 23:30 local on day 3 is 14:30 UTC, still day 3 there.
    learner = make_learner("tokyo", time_zone="Asia/Tokyo")
    now = timezone.now()
    today = local_day(time_zone="Asia/Tokyo", at=now)
    day3 = local_day_of(time_zone="Asia/Tokyo", date=today.date + 3 * DAY)
    *cards, new = bulk_cards(learner, 8, due=now, reviewed=True)
    _due_on(
        cards,
        [
            now - 10 * DAY,  # overdue: today
            now - DAY,  # overdue: today
            today.end - datetime.timedelta(minutes=1),  # today
            day3.start,  # day 3
            day3.end - datetime.timedelta(minutes=30),  # day 3, 23:30 local
            day3.end,  # day 4
            today.start + FORECAST_DAYS * DAY + DAY,  # beyond the 30 days
        ],
    )
    # A new card (never reviewed) is not forecast, as in Anki.
    ReviewCard.objects.filter(pk=new.pk).update(state=1, last_review=None, due=now - DAY)
    forecast = review_forecast(learner=learner, at=now)
    counts = [day.count for day in forecast.days]
    assert len(counts) == FORECAST_DAYS
    assert forecast.days[0].date == today.date
    assert counts[0] == 3 and counts[3] == 2 and counts[4] == 1
    assert sum(counts) == forecast.total == 6
    assert forecast.overdue == 2


def test_suspended_cards_are_not_forecast(learner, bulk_cards):
    now = timezone.now()
    cards = bulk_cards(learner, 2, due=now + DAY, reviewed=True)
    ReviewCard.objects.filter(pk=cards[0].pk).update(suspended=True)
    assert review_forecast(learner=learner, at=now).total == 1


def test_the_forecast_api_costs_the_same_queries_with_few_or_many_cards(learner, bulk_cards, login):
    now = timezone.now()
    client = login(learner)
    bodies = []

    def cards(n: int, start: int):
        made = bulk_cards(learner, n, due=now, reviewed=True, start=start)
        # Spread over the 30 days.
        for offset in range(min(n, 30)):
            ReviewCard.objects.filter(pk=made[offset].pk).update(due=now + offset * DAY)

    def run():
        bodies.append(client.get(FORECAST).json())

    cards(1, start=0)
    run()  # the retired content's ids, cached under the content's version
    # The content version, the forecast.
    assert_queries_constant(run, grow=lambda: cards(10_000, start=1), budget=3)
    body = bodies[-1]
    assert len(body["days"]) == FORECAST_DAYS
    assert body["total"] == sum(day["count"] for day in body["days"]) >= 29
    assert set(body) == {"days", "overdue", "total"}


def _log(learner, card, *, at, rating, interval_days, state=2):
    return ReviewLog(
        card=card,
        learner=learner,
        source=ReviewLog.Source.REVIEW,
        rating=rating,
        reviewed_at=at,
        before_state=state,
        before_learning_step=None,
        before_stability=5.0,
        before_difficulty=5.0,
        before_due=at - DAY + interval_days * DAY,
        before_last_review=at - DAY,
        after_state=2,
        after_stability=6.0,
        after_difficulty=5.0,
        after_due=at + 3 * DAY,
    )


def test_true_retention_splits_young_and_mature_reviews_per_period(learner, bulk_cards):
    now = timezone.now()
    today = local_day(time_zone=learner.time_zone, at=now)
    (card,) = bulk_cards(learner, 1, due=now, reviewed=True)
    noon_yesterday = today.start - datetime.timedelta(hours=12)
    ReviewLog.objects.bulk_create(
        [
            _log(learner, card, at=now, rating=3, interval_days=5),  # today, young, passed
            _log(learner, card, at=now, rating=1, interval_days=5),  # today, young, failed
            _log(learner, card, at=now, rating=4, interval_days=30),  # today, mature, passed
            _log(learner, card, at=noon_yesterday, rating=1, interval_days=21),  # mature fail
            _log(learner, card, at=now - 20 * DAY, rating=2, interval_days=3),  # month, young
            _log(learner, card, at=now - 400 * DAY, rating=3, interval_days=40),  # all time
            # Learning and relearning reviews are not counted (Anki's True Retention).
            _log(learner, card, at=now, rating=1, interval_days=5, state=1),
            _log(learner, card, at=now, rating=3, interval_days=5, state=3),
        ]
    )
    periods = {p.period: p for p in true_retention(learner=learner, at=now)}
    assert list(periods) == ["today", "yesterday", "week", "month", "year", "all"]
    today_ = periods["today"]
    assert (today_.young.passed, today_.young.failed) == (1, 1)
    assert (today_.mature.passed, today_.mature.failed) == (1, 0)
    assert today_.total.retention == pytest.approx(2 / 3, abs=1e-4)
    assert (periods["yesterday"].mature.failed, periods["yesterday"].total.reviews) == (1, 1)
    assert periods["week"].total.reviews == 4
    assert periods["month"].young.reviews == 3
    assert periods["year"].total.reviews == 5
    assert periods["all"].total.reviews == 6 and periods["all"].mature.passed == 2
    assert periods["all"].young.retention == pytest.approx(2 / 3, abs=1e-4)


def test_true_retention_counts_a_review_on_a_bound_in_the_later_period(make_learner, bulk_cards):
    # Reviews at each period's bounds and a microsecond either side, counted against the periods
    # written out here (each [start, end) of local days): the statement counts per stretch
    # between two bounds, and each period adds up the stretches inside it.
    learner = make_learner("bounds", time_zone="America/Santiago")
    now = timezone.now()
    today = local_day(time_zone=learner.time_zone, at=now)

    def start(days_back):
        return local_day_of(time_zone=learner.time_zone, date=today.date - days_back * DAY).start

    periods = {
        "today": (today.start, today.end),
        "yesterday": (start(1), today.start),
        "week": (start(6), today.end),
        "month": (start(29), today.end),
        "year": (start(364), today.end),
        "all": (None, today.end),
    }
    tick = datetime.timedelta(microseconds=1)
    moments = sorted(
        {b + d for bounds in periods.values() for b in bounds if b for d in (-tick, 0 * tick, tick)}
    )
    (card,) = bulk_cards(learner, 1, due=now, reviewed=True)
    logs = [
        _log(learner, card, at=at, rating=1 + i % 4, interval_days=(5, 30)[i % 3 == 0])
        for i, at in enumerate(moments)
    ]
    ReviewLog.objects.bulk_create(logs)
    got = {p.period: p for p in true_retention(learner=learner, at=now)}
    for name, (begin, end) in periods.items():
        inside = [log for log in logs if (begin is None or log.reviewed_at >= begin)]
        inside = [log for log in inside if log.reviewed_at < end]
        mature = [log for log in inside if log.before_due - log.before_last_review >= 21 * DAY]
        young = [log for log in inside if log not in mature]
        for age, expected in (("young", young), ("mature", mature)):
            count = getattr(got[name], age)
            passed = sum(1 for log in expected if log.rating > 1)
            assert (count.passed, count.failed) == (passed, len(expected) - passed), (name, age)


def test_the_retention_api_costs_the_same_queries_with_few_or_many_reviews(
    learner, bulk_cards, login
):
    now = timezone.now()
    (card,) = bulk_cards(learner, 1, due=now, reviewed=True)
    client = login(learner)
    bodies = []

    def logs(n: int):
        ReviewLog.objects.bulk_create(
            [
                _log(learner, card, at=now - i % 400 * DAY, rating=1 + i % 4, interval_days=i % 40)
                for i in range(n)
            ],
            batch_size=2000,
        )

    def run():
        bodies.append(client.get(RETENTION).json())

    logs(1)
    assert_queries_constant(run, grow=lambda: logs(4_999), budget=2)
    periods = bodies[-1]["periods"]
    assert [p["period"] for p in periods] == ["today", "yesterday", "week", "month", "year", "all"]
    total = periods[-1]["total"]
    assert total["passed"] + total["failed"] == 5_000
    assert set(periods[0]) == {"period", "young", "mature", "total"}


def test_both_need_a_log_in(api_client):
    for url in (FORECAST, RETENTION):
        assert api_client.get(url).status_code in (401, 403)


def test_the_stats_page_draws_the_forecast_and_the_retention(learner, bulk_cards, client):
    now = timezone.now()
    cards = bulk_cards(learner, 3, due=now, reviewed=True)
    _due_on(cards, [now - DAY, now + 2 * DAY, now + 2 * DAY])
    client.force_login(learner)
    html = client.get("/stats/").content.decode()
    assert html.count('class="forecast-bar"') == FORECAST_DAYS
    # Geometry in whole numbers: German number formatting ("36,5") would break the SVG.
    bars = re.findall(
        r'<rect class="forecast-bar" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', html
    )
    assert len(bars) == FORECAST_DAYS
    heights = [int(bar[3]) for bar in bars]
    assert heights[2] == max(heights) > heights[0] > 0 and heights[1] == 0
    assert 'id="forecast-heading"' in html and 'id="retention-heading"' in html
    assert "<script" not in html.split("</head>")[1]
    assert " style=" not in html
