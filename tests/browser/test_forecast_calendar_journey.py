"""A learner reviews on the phone offline (the due queue with the backs, then one batch with
each review's own time), sees the forecast and the true retention on the statistics page, makes
a private calendar address on the settings page, copies it, a calendar app reads it, and the
learner revokes it. Screenshots under test-artifacts/screenshots/forecast-*.png."""

from __future__ import annotations

import datetime
import json
import urllib.error
import urllib.request

import icalendar
import pytest
from django.utils import timezone
from playwright.sync_api import expect

from lms.local_time import local_day
from tests.factories import learner_create, learner_password
from tests.helpers.browser import log_in

pytestmark = pytest.mark.browser


def _api(base: str, path: str, *, token: str | None = None, body: dict | None = None):
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", "Accept-Language": "de"},
    )
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def _fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_offline_reviews_forecast_and_calendar_address(
    chromium, live_server, course, screenshot_dir, settings
):
    from reviews import api
    from reviews.models import ReviewCard, ReviewLog

    settings.SITE_URL = live_server.url
    base = live_server.url
    learner = learner_create("lena", display_name="Lena")
    now = timezone.now()
    for step in course.steps.filter(status="active").order_by("number")[:4]:
        api.cards_for_step_ensure(
            learner_id=learner.pk, step_id=step.pk, at=now - datetime.timedelta(days=12)
        )
    # The cards were learned ten days ago and are due since yesterday.
    ReviewCard.objects.filter(learner=learner).update(
        state=2,
        learning_step=None,
        stability=6.0,
        difficulty=5.0,
        last_review=now - datetime.timedelta(days=10),
        due=now - datetime.timedelta(days=1),
    )
    status, issued = _api(
        base,
        "/api/v1/auth/token/",
        body={"username": "lena", "password": learner_password("lena"), "device_name": "phone"},
    )
    assert status == 200
    token = issued["token"]

    # On the phone: the whole session with the backs, then offline, then one batch.
    status, queue = _api(base, "/api/v1/reviews/due/?include=back&limit=500", token=token)
    assert status == 200 and queue["cards"] and all(card["back"] for card in queue["cards"])
    session = queue["cards"]
    # Three hours ago, all on one local day of the learner: today, or yesterday in the small
    # hours (then the retention table's "Gestern" row holds them, not "Heute").
    today = local_day(time_zone=learner.time_zone, at=now)
    started = now - datetime.timedelta(hours=3)
    row_label, row_index = "Heute", 0
    if started < today.start + datetime.timedelta(minutes=30):
        started, row_label, row_index = today.start - datetime.timedelta(hours=3), "Gestern", 1
    reviews = [
        {
            "card": card["id"],
            "rating": 1 if index % 4 == 0 else 3,
            "client_review_id": f"phone-{card['id']}",
            "reviewed_at": (started + datetime.timedelta(seconds=20 * index)).isoformat(),
        }
        for index, card in enumerate(session)
    ]
    status, batch = _api(base, "/api/v1/reviews/batch/", token=token, body={"reviews": reviews})
    assert status == 200 and batch["counts"]["applied"] == len(session), batch
    # The log keeps the phone's times; the batch sent twice changes nothing.
    assert ReviewLog.objects.filter(
        learner=learner, reviewed_at__lt=now - datetime.timedelta(hours=2)
    ).count() == len(session)
    status, again = _api(base, "/api/v1/reviews/batch/", token=token, body={"reviews": reviews})
    assert again["counts"]["duplicate"] == len(session)

    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    page = context.new_page()
    try:
        log_in(page, base + "/login/", "lena")

        page.goto(base + "/stats/")
        forecast = page.locator(
            "section",
            has=page.get_by_role("heading", name="Fällige Wiederholungen der nächsten 30 Tage"),
        )
        expect(forecast).to_be_visible()
        bars = forecast.locator("rect.forecast-bar")
        expect(bars).to_have_count(30)
        status, figures = _api(base, "/api/v1/reviews/forecast/", token=token)
        assert figures["total"] >= 1
        expect(forecast).to_contain_text(f"{figures['total']} Wiederholungen in 30 Tagen")
        retention = page.locator("table.retention-table")
        today_row = retention.locator("tbody tr").nth(row_index)
        expect(today_row.locator("th")).to_have_text(row_label)
        failed = sum(1 for r in reviews if r["rating"] == 1)
        passed = len(reviews) - failed
        expect(today_row.locator("td").nth(0)).to_contain_text(f"({passed}/{len(reviews)})")
        expect(today_row.locator("td").nth(1)).to_have_text("–")
        forecast.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / "forecast-1-stats.png"), full_page=True)

        page.goto(base + "/settings/")
        calendar = page.locator("#calendar-feed")
        calendar.get_by_role("button", name="Kalenderadresse erstellen").click()
        expect(page.get_by_text("Deine Kalenderadresse ist bereit")).to_be_visible()
        address = page.locator("#calendar-feed-url")
        url = address.inner_text()
        assert url.startswith(base + "/calendar/") and url.endswith(".ics")
        page.locator("#calendar-feed").get_by_role("button", name="Kopieren").click()
        assert page.evaluate("navigator.clipboard.readText()") == url
        page.locator("#calendar-feed").scroll_into_view_if_needed()
        page.screenshot(
            path=str(screenshot_dir / "forecast-2-calendar-address.png"), full_page=True
        )

        # A calendar app reads the address: one event a day with the reviews due.
        status, body = _fetch(url)
        assert status == 200
        events = list(icalendar.Calendar.from_ical(body).walk("VEVENT"))
        by_day = {event.decoded("dtstart"): str(event["summary"]) for event in events}
        due_days = {
            datetime.date.fromisoformat(d["date"]): d["count"]
            for d in figures["days"]
            if d["count"]
        }
        assert set(by_day) == set(due_days)
        for day, count in due_days.items():
            assert by_day[day].startswith(f"Lernpfad: {count} Wiederholung")

        page.locator("#calendar-feed").get_by_role("button", name="Adresse widerrufen").click()
        expect(page.get_by_text("Die Kalenderadresse ist widerrufen")).to_be_visible()
        expect(page.locator("#calendar-feed-url")).to_have_count(0)
        assert _fetch(url)[0] == 410
        page.screenshot(path=str(screenshot_dir / "forecast-3-revoked.png"), full_page=True)
    finally:
        context.close()
