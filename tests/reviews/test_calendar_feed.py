"""The private calendar address: an iCalendar feed (parsed back with icalendar) with one event a
day for the reviews due, made, replaced and revoked on the settings page; revoked is 410."""

from __future__ import annotations

import datetime

import icalendar
import pytest
from django.utils import timezone

from lms.local_time import local_day
from reviews import selectors
from reviews.models import CalendarFeed, ReviewCard
from reviews.selectors import UpcomingExam
from reviews.services.calendar_feeds import calendar_feed_create
from tests.helpers.queries import assert_queries_constant

pytestmark = pytest.mark.django_db

DAY = datetime.timedelta(days=1)


def _feed_url(feed) -> str:
    return f"/calendar/{feed.token}.ics"


def _events(response) -> list:
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/calendar")
    calendar = icalendar.Calendar.from_ical(response.content)
    return list(calendar.walk("VEVENT"))


@pytest.fixture
def due_cards(learner, bulk_cards):
    """Three cards: one overdue (today), two due in two days."""
    now = timezone.now()
    cards = bulk_cards(learner, 3, due=now, reviewed=True)
    for card, due in zip(cards, [now - DAY, now + 2 * DAY, now + 2 * DAY], strict=True):
        ReviewCard.objects.filter(pk=card.pk).update(due=due)
    return cards


def test_the_feed_has_one_all_day_event_per_day_with_reviews(learner, due_cards, client):
    feed = calendar_feed_create(learner_id=learner.pk)
    response = client.get(_feed_url(feed))
    assert response["Cache-Control"] == "private, no-store"
    events = _events(response)
    today = local_day(time_zone=learner.time_zone, at=timezone.now()).date
    by_date = {event.decoded("dtstart"): event for event in events}
    assert sorted(by_date) == [today, today + 2 * DAY]
    in_two_days = by_date[today + 2 * DAY]
    assert in_two_days.decoded("dtend") == today + 3 * DAY
    # The learner's language (German by default).
    assert str(in_two_days["summary"]) == "Lernpfad: 2 Wiederholungen fällig"
    assert str(by_date[today]["summary"]) == "Lernpfad: 1 Wiederholung fällig"
    assert str(in_two_days["url"]).endswith("/review/")
    # Stable ids: the same day is the same event at the next poll.
    again = _events(client.get(_feed_url(feed)))
    assert {str(e["uid"]) for e in again} == {str(e["uid"]) for e in events}
    assert len({str(e["uid"]) for e in events}) == 2


def test_the_feed_speaks_the_learner_s_language(learner, due_cards, client):
    learner.language = "en"
    learner.save()
    feed = calendar_feed_create(learner_id=learner.pk)
    summaries = {str(e["summary"]) for e in _events(client.get(_feed_url(feed)))}
    assert summaries == {"Lernpfad: 1 review due", "Lernpfad: 2 reviews due"}


def test_no_exam_event_until_exam_dates_exist_then_one(learner, due_cards, client, monkeypatch):
    from reviews import views

    feed = calendar_feed_create(learner_id=learner.pk)
    assert selectors.learner_exam_date(learner_id=learner.pk) is None
    assert len(_events(client.get(_feed_url(feed)))) == 2
    exam_day = timezone.now().date() + 20 * DAY
    monkeypatch.setattr(
        views,
        "learner_exam_date",
        lambda learner_id: UpcomingExam(
            date=exam_day, module_title="GPU-Grundlagen", module_slug="gpu-grundlagen"
        ),
    )
    events = _events(client.get(_feed_url(feed)))
    (exam,) = [e for e in events if str(e["uid"]).startswith("exam-")]
    assert exam.decoded("dtstart") == exam_day
    assert str(exam["summary"]) == "Prüfung: GPU-Grundlagen"
    # The exam day links the module's exam page; the review days link the review session.
    assert str(exam["url"]).endswith("/modules/gpu-grundlagen/exam/")
    assert all(str(e["url"]).endswith("/review/") for e in events if e is not exam)


def test_a_revoked_address_is_gone_and_an_unknown_one_not_found(learner, due_cards, client):
    feed = calendar_feed_create(learner_id=learner.pk)
    replacement = calendar_feed_create(learner_id=learner.pk)
    assert client.get(_feed_url(feed)).status_code == 410
    assert client.get(_feed_url(replacement)).status_code == 200
    assert client.get("/calendar/not-a-token.ics").status_code == 404
    assert client.post(_feed_url(replacement)).status_code == 405
    assert CalendarFeed.objects.filter(learner=learner, revoked_at__isnull=True).count() == 1


def test_a_deactivated_account_s_address_is_not_found(learner, due_cards, client):
    feed = calendar_feed_create(learner_id=learner.pk)
    learner.is_active = False
    learner.save()
    assert client.get(_feed_url(feed)).status_code == 404


def test_the_feed_costs_the_same_queries_with_few_or_many_cards(learner, bulk_cards, client):
    # Tomorrow at 10:00 the learner's time: the cards' dues (a second apart, 83 minutes for
    # 5,000) fall on one local day whatever the hour the test runs at.
    tomorrow = local_day(time_zone=learner.time_zone, at=timezone.now() + DAY)
    due = tomorrow.start + datetime.timedelta(hours=10)
    bulk_cards(learner, 1, due=due, reviewed=True)
    feed = calendar_feed_create(learner_id=learner.pk)
    events = []

    def run():
        events.append(_events(client.get(_feed_url(feed))))

    run()  # the retired content's ids, cached under the content's version
    # The feed with its learner, the content version, the forecast, the learner's exam dates and
    # the module exam dates of their cards' modules (none here, so no module title).
    assert_queries_constant(
        run, grow=lambda: bulk_cards(learner, 4_999, due=due, reviewed=True, start=1), budget=6
    )
    assert len(events[-1]) == 1


def test_the_settings_page_makes_shows_replaces_and_revokes_the_address(learner, client):
    client.force_login(learner)
    page = client.get("/settings/").content.decode()
    assert ".ics" not in page and 'id="calendar-feed"' in page
    response = client.post("/settings/calendar/new/")
    assert response.status_code == 302
    first = CalendarFeed.objects.get(learner=learner)
    page = client.get("/settings/").content.decode()
    assert f"/calendar/{first.token}.ics" in page
    client.post("/settings/calendar/new/")
    second = CalendarFeed.objects.get(learner=learner, revoked_at__isnull=True)
    assert second.token != first.token
    assert client.get(_feed_url(first)).status_code == 410
    client.post("/settings/calendar/revoke/")
    assert client.get(_feed_url(second)).status_code == 410
    assert ".ics" not in client.get("/settings/").content.decode()
    assert client.get("/settings/calendar/revoke/").status_code == 405


def test_one_learner_cannot_revoke_another_s_address(learner, make_learner, client):
    feed = calendar_feed_create(learner_id=learner.pk)
    client.force_login(make_learner("ben"))
    client.post("/settings/calendar/revoke/")
    feed.refresh_from_db()
    assert feed.revoked_at is None
