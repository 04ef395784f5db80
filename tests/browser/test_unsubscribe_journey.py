"""A learner opens the unsubscribe link of a real reminder e-mail in Chromium and confirms; an
expired link shows its page in the learner's language. Screenshots under
test-artifacts/screenshots/unsubscribe-*.png."""

from __future__ import annotations

import datetime
import re
import time

import pytest
from django.core import mail, signing
from django.utils import timezone
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def reminder_mail_for(learner, course):
    """Send ``learner`` a real reminder digest (cards due, claimed now) and return the mail."""
    from reviews import api
    from reviews.models import ReminderDigest
    from reviews.services.reminder_sending import reminder_digest_send

    step = course.steps.filter(status="active").order_by("number").first()
    now = timezone.now()
    api.cards_for_step_ensure(
        learner_id=learner.pk, step_id=step.pk, at=now - datetime.timedelta(days=1)
    )
    digest = ReminderDigest.objects.create(
        learner_id=learner.pk, local_date=now.date(), claimed_at=now
    )
    assert reminder_digest_send(digest_id=digest.pk, now=now) == "sent"
    (message,) = [m for m in mail.outbox if m.to == [learner.email]]
    return message


def test_the_link_asks_first_and_the_button_unsubscribes(
    chromium, live_server, course, screenshot_dir, settings, make_learner
):
    settings.SITE_URL = live_server.url
    learner = make_learner("lena", display_name="Lena")
    message = reminder_mail_for(learner, course)
    link = re.search(r"<(http[^>]+)>", message.extra_headers["List-Unsubscribe"])[1]
    assert link.startswith(live_server.url) and link in message.body
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(link)
        expect(page.get_by_role("heading", level=1)).to_have_text(
            "Erinnerungs-E-Mails abbestellen?"
        )
        page.screenshot(path=str(screenshot_dir / "unsubscribe-1-confirm.png"), full_page=True)
        learner.refresh_from_db()
        assert learner.reminder_email is True  # opening the link changed nothing
        page.get_by_role("button", name="Erinnerungen abbestellen").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Erinnerungen abbestellt")
        page.screenshot(path=str(screenshot_dir / "unsubscribe-2-done.png"), full_page=True)
        learner.refresh_from_db()
        assert learner.reminder_email is False and learner.next_reminder_at is None
        # Reloading the link now says so, and offers no button.
        page.goto(link)
        expect(page.get_by_role("heading", level=1)).to_have_text("Erinnerungen abbestellt")
        expect(page.get_by_role("button", name="Erinnerungen abbestellen")).to_have_count(0)
    finally:
        context.close()


def test_an_expired_link_says_so_in_the_learners_language_on_a_phone(
    chromium, live_server, course, screenshot_dir, settings, make_learner, monkeypatch
):
    from reviews.models import ReminderDigest
    from reviews.services.reminder_unsubscribe import reminder_unsubscribe_token

    settings.SITE_URL = live_server.url
    learner = make_learner("sam", language="en")
    reminder_mail_for(learner, course)
    key = ReminderDigest.objects.get(learner=learner).unsubscribe_key
    made_at = time.time() - datetime.timedelta(days=61).total_seconds()
    with monkeypatch.context() as patched:
        patched.setattr(signing.time, "time", lambda: made_at)
        expired = reminder_unsubscribe_token(key)
    # A German browser: the page still speaks the learner's English.
    context = chromium.new_context(
        locale="de-DE", viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    try:
        response = page.goto(f"{live_server.url}/reminders/unsubscribe/{expired}/")
        assert response.status == 400
        expect(page.get_by_role("heading", level=1)).to_have_text("This link has expired")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        page.screenshot(
            path=str(screenshot_dir / "unsubscribe-3-expired-phone.png"), full_page=True
        )
        learner.refresh_from_db()
        assert learner.reminder_email is True
    finally:
        context.close()
