"""A learner sets an exam date in a real browser and sees the predicted readiness: on the module
page (per step) and on the dashboard; a date in the past is refused with a clear message; then
the settings page's "Optimize" (German). Screenshots of every page."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.factories import enrollment_create, learner_create
from tests.helpers.browser import doc_shot, log_in

pytestmark = pytest.mark.browser


def _learner_with_cards(course):
    from reviews.api import cards_for_step_ensure
    from reviews.models import ReviewCard
    from reviews.services.reviewing import review_record

    learner = learner_create("lena", language="de", time_zone="Europe/Berlin")
    enrollment_create(learner, course)
    now = timezone.now()
    steps = list(course.steps.filter(status="active").order_by("number")[:4])
    for step in steps:
        cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=now)
    for index, card in enumerate(ReviewCard.objects.filter(learner=learner).order_by("id")[:3]):
        review_record(
            learner=learner,
            card_id=card.pk,
            rating=3,
            duration_ms=None,
            client_review_id=f"b{index}",
            at=now - datetime.timedelta(days=3),
        )
    return learner


def test_a_learner_sets_an_exam_date_and_sees_the_readiness(
    chromium, live_server, course, screenshot_dir
):
    _learner_with_cards(course)
    base = live_server.url
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    log_in(page, base + "/login/", "lena")

    page.goto(f"{base}/modules/{course.slug}/")
    exam_card = page.locator("#exam-date")
    expect(exam_card.get_by_role("heading", name="Prüfungsdatum")).to_be_visible()
    page.screenshot(
        path=str(screenshot_dir / "exam-date-01-module-without-date.png"), full_page=True
    )

    # A day in the past is refused, in German, and nothing is saved.
    field = page.get_by_label("Tag der Prüfung")
    field.evaluate("input => input.removeAttribute('min')")
    # The learner's own today (Europe/Berlin): past 23:00 UTC it is already tomorrow there.
    today = timezone.localdate(timezone=zoneinfo.ZoneInfo("Europe/Berlin"))
    field.fill((today - datetime.timedelta(days=2)).isoformat())
    page.get_by_role("button", name="Prüfungsdatum speichern").click()
    expect(page.get_by_text("Das Prüfungsdatum liegt in der Vergangenheit.")).to_be_visible()
    expect(page.get_by_test_id("exam-readiness")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "exam-date-02-refused-past.png"), full_page=True)

    exam_on = today + datetime.timedelta(days=21)
    page.get_by_label("Tag der Prüfung").fill(exam_on.isoformat())
    page.get_by_role("button", name="Prüfungsdatum speichern").click()
    expect(page.get_by_text("Dein Prüfungsdatum ist gespeichert")).to_be_visible()
    readiness = page.get_by_test_id("exam-readiness")
    expect(readiness).to_contain_text("Vorhergesagte Erinnerung am Prüfungstag")
    expect(readiness).to_contain_text("Vorhergesagtes Prüfungsergebnis")
    expect(readiness).to_contain_text("Wiederholungen pro Tag bis dahin")
    expect(readiness).to_contain_text("in 21 Tagen")
    readiness.locator("summary").click()
    steps = readiness.locator("table.readiness-steps tbody tr")
    expect(steps.first).to_contain_text("%")
    expect(readiness.get_by_text("noch nicht gelernt").first).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "exam-date-03-readiness.png"), full_page=True)
    doc_shot(page, "learner-exam-date-de", element=page.locator("#exam-date"))

    page.goto(base + "/")
    expect(page.get_by_test_id("exam-readiness")).to_contain_text("Vorhergesagtes Prüfungsergebnis")
    page.screenshot(path=str(screenshot_dir / "exam-date-04-dashboard.png"), full_page=True)

    # Removing it: the readiness goes, the cards keep their dates.
    page.goto(f"{base}/modules/{course.slug}/")
    page.get_by_role("button", name="Mein Prüfungsdatum entfernen").click()
    expect(page.get_by_text("Dein Prüfungsdatum ist entfernt.")).to_be_visible()
    expect(page.get_by_test_id("exam-readiness")).to_have_count(0)

    page.goto(base + "/settings/")
    section = page.locator("#fsrs-parameters")
    expect(section).to_contain_text("Standardwerte, bis genug Wiederholungen vorliegen.")
    expect(section.get_by_role("button", name="Optimieren")).to_be_disabled()
    section.scroll_into_view_if_needed()
    page.screenshot(
        path=str(screenshot_dir / "exam-date-05-settings-parameters.png"), full_page=True
    )
    context.close()
