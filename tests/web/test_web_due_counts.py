"""The review page and the statistics page say the same about what is due: now (within the
daily limits), held back by the limits, and later today. Undo is offered only for today's
reviews; the space key is named in the page's language."""

from __future__ import annotations

import datetime
import itertools
import re
import zoneinfo

import pytest
from django.utils import timezone

from web.views.stats import MONTH_LABEL_WIDTH, heatmap

pytestmark = pytest.mark.django_db


def midday_zone() -> str:
    """A zone where it is now between 01:00 and 21:00, so "in an hour" is still today."""
    now = timezone.now()
    for name in ("Europe/Berlin", "Asia/Tokyo", "America/New_York", "Asia/Kolkata"):
        if 1 <= now.astimezone(zoneinfo.ZoneInfo(name)).hour <= 21:
            return name
    raise AssertionError("one of four zones 5–14 hours apart is always in its day")


@pytest.fixture
def cards(enrolled, course):
    """Five new cards (steps 1–5): three due now, two due in an hour (still today)."""
    from reviews.api import cards_for_step_ensure
    from reviews.models import ReviewCard

    enrolled.time_zone = midday_zone()
    enrolled.save(update_fields=["time_zone"])
    now = timezone.now()
    for number in range(1, 6):
        step = course.steps.get(number=number)
        cards_for_step_ensure(learner_id=enrolled.pk, step_id=step.pk, at=now)
    mine = ReviewCard.objects.filter(learner=enrolled).order_by("id")
    ids = list(mine.values_list("id", flat=True))
    assert len(ids) == 5
    ReviewCard.objects.filter(id__in=ids[3:]).update(due=now + datetime.timedelta(hours=1))
    return ids


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_both_pages_count_due_now_and_later_today_alike(learner_client, cards):
    review = text(learner_client.get("/review/").content.decode())
    assert "3 Karten jetzt fällig" in review
    assert "2 weitere Karten werden später heute fällig" in review
    stats = learner_client.get("/stats/").content.decode()
    assert re.search(r'<dd id="stat-due-now">3</dd>', stats)
    assert re.search(r'<dd id="stat-due-later">2</dd>', stats)
    assert "Heute fällig" not in stats


def test_cards_held_back_by_the_daily_limit_are_explained_on_both_pages(
    learner_client, enrolled, cards
):
    enrolled.new_cards_per_day = 1
    enrolled.save(update_fields=["new_cards_per_day"])
    review = text(learner_client.get("/review/").content.decode())
    assert "1 Karte jetzt fällig" in review
    assert "2 weitere Karten sind fällig, warten aber auf morgen" in review
    stats_html = learner_client.get("/stats/").content.decode()
    assert '<dd id="stat-due-now">1</dd>' in stats_html
    assert "2 weitere Karten sind fällig, warten aber auf morgen" in text(stats_html)


def test_undo_is_offered_only_after_a_review_today(learner_client, enrolled, cards):
    from reviews.models import ReviewLog
    from reviews.services.reviewing import review_record

    html = learner_client.get("/review/").content.decode()
    assert 'id="review-undo"' not in html and "Letzte Bewertung rückgängig" not in html
    # A review yesterday: nothing of today to undo, and the button does not rewrite history.
    review_record(
        learner=enrolled,
        card_id=cards[0],
        rating=3,
        duration_ms=800,
        client_review_id="yesterday",
        at=timezone.now() - datetime.timedelta(days=2),
    )
    assert 'id="review-undo"' not in learner_client.get("/review/").content.decode()
    response = learner_client.post("/review/undo/", follow=True)
    assert "Es gibt keine Bewertung zum Rückgängigmachen." in response.content.decode()
    assert ReviewLog.objects.filter(client_review_id="yesterday").exists()
    # A review now: the button is there, and takes it back.
    learner_client.post(
        "/review/rate/", {"card": cards[1], "rating": 3, "client_review_id": "today"}
    )
    assert 'id="review-undo"' in learner_client.get("/review/").content.decode()
    learner_client.post("/review/undo/")
    assert not ReviewLog.objects.filter(client_review_id="today").exists()
    assert ReviewLog.objects.filter(client_review_id="yesterday").exists()


def test_the_space_key_is_named_in_the_pages_language(learner_client, enrolled, cards):
    for url in ("/review/", "/help/keyboard/"):
        html = learner_client.get(url).content.decode()
        assert "<kbd>Leertaste</kbd>" in html and "<kbd>Space</kbd>" not in html, url
    learner_client.post("/language/", {"language": "en"})
    for url in ("/review/", "/help/keyboard/"):
        assert "<kbd>Space</kbd>" in learner_client.get(url).content.decode(), url


class Day:
    def __init__(self, date, count):
        self.date, self.count = date, count


@pytest.mark.parametrize("last", [datetime.date(2026, 12, 1), datetime.date(2026, 12, 31)])
def test_the_last_month_label_fits_in_the_heatmap(last):
    first = last - datetime.timedelta(days=89)
    drawing = heatmap([Day(first + datetime.timedelta(days=i), 1) for i in range(90)])
    assert drawing["months"][-1]["x"] + MONTH_LABEL_WIDTH <= drawing["width"]
    xs = [month["x"] for month in drawing["months"]]
    assert all(b - a >= MONTH_LABEL_WIDTH for a, b in itertools.pairwise(xs))
