"""The reading pages in Chromium at 1280 and 375 px, in German and English (issue 18).

A learner who read step 1 and opened step 2 sees "continue with step 2" on the module page,
the steps' states in the outline, the step's outline of sections with what was read, one
primary button, both notes saved by one save (and a warning before leaving unsaved text), a
term card's exercise subtitle as a heading, the compact phone header with its menu, the exam's
question overview with a mark for later, and the styled 404 page. Every page is saved as a
screenshot under test-artifacts/screenshots/reading-<language>-<width>-*.png.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from tests.factories import exam_bank_approve, learner_create, steps_complete

pytestmark = pytest.mark.browser

MODULE = "self-hosting-27"

WORDS = {
    "de": {
        "continue": "Weiter mit Schritt 2",
        "read": "Abschnitten gelesen",
        "save": "Notizen speichern",
        "saved": "Deine Notizen sind gespeichert.",
        "menu": "Menü",
        "language": "Sprache",
        "mark": "Für später markieren",
        "not_found": "Seite nicht gefunden",
        "wording": "melde dich an</a>, um",
    },
    "en": {
        "continue": "Continue with step 2",
        "read": "sections read",
        "save": "Save notes",
        "saved": "Your notes are saved.",
        "menu": "Menu",
        "language": "Language",
        "mark": "Mark for later",
        "not_found": "Page not found",
        "wording": "log in</a> to track",
    },
}


def _learner_in_step_2(username: str, course):
    """Step 1 read and completed (with its cards), step 2 opened."""
    from progress.services.enrollment import enrollment_create
    from progress.services.step_events import step_event_record
    from tests.factories import steps_complete_through_rules

    learner = learner_create(username, display_name=username.title(), full_name="Lena Lernende")
    enrollment_create(learner_id=learner.pk, module_slug=MODULE)
    steps_complete_through_rules(learner, MODULE, count=1)
    step_event_record(learner_id=learner.pk, module_slug=MODULE, number=2, kind="opened")
    return learner


def _fits_the_width(page: Page, width: int) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{page.url} scrolls sideways: {scroll_width} > {width}"


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("language", ["de", "en"])
def test_reading_pages(chromium, live_server, course, screenshot_dir, language, width):
    from courses.models import Step

    words = WORDS[language]
    learner = _learner_in_step_2(f"reader{language}{width}", course)
    client = Client()
    client.force_login(learner)
    context = chromium.new_context(
        locale="de-DE" if language == "de" else "en-US",
        viewport={"width": width, "height": 900},
    )
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    base = live_server.url
    shot = 0

    def shots(name: str) -> None:
        nonlocal shot
        shot += 1
        path = screenshot_dir / f"reading-{language}-{width}-{shot:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        _fits_the_width(page, width)

    try:
        # Dashboard, then the module: overview, "continue with step 2", the outline's states.
        page.goto(base + "/")
        shots("dashboard")
        page.goto(base + f"/modules/{MODULE}/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator(".module-overview")).to_be_visible()
        resume = page.locator("main .button-row .button").first
        expect(resume).to_contain_text(words["continue"])
        expect(resume).to_have_attribute("href", f"/modules/{MODULE}/steps/2/")
        steps = page.locator(".outline__step")
        expect(steps.nth(0)).to_have_class(re.compile("outline__step--done"))
        expect(steps.nth(0).locator(".outline__mark")).to_have_text("1 ✓")
        expect(steps.nth(1)).to_have_class(re.compile("outline__step--started"))
        expect(steps.nth(2)).not_to_have_class(re.compile("outline__step--started"))
        expect(page.locator("#levels")).to_contain_text("S4")
        shots("module")

        # The phone header: one compact bar with a menu holding the language switch.
        header = page.locator(".site-header").bounding_box()
        if width == 375:
            assert header["height"] < 70, header
            expect(page.get_by_label(words["language"])).to_be_hidden()
            page.get_by_text(words["menu"], exact=True).click()
            expect(page.get_by_label(words["language"])).to_be_visible()
            shots("menu-open")
            page.get_by_text(words["menu"], exact=True).click()
        else:
            expect(page.locator(".site-menu")).to_be_hidden()

        # Step 2: its outline with the sections read, one primary button, both notes.
        page.goto(base + f"/modules/{MODULE}/steps/2/")
        toc = page.locator(".step-toc")
        expect(toc).to_be_visible()
        expect(toc).to_contain_text(words["read"])
        assert toc.locator("li").count() >= 9
        primaries = page.locator(
            ".complete-box .button:not(.button--secondary), .pager .button:not(.button--secondary)"
        )
        expect(primaries).to_have_count(1)
        crumb = page.locator(".breadcrumb ol").bounding_box()
        assert crumb["height"] < 32, crumb  # one line, the module's name shortened
        shots("step-2")

        practice = page.locator("#note-praxisaufgabe")
        task = page.locator("#note-lernauftrag")
        practice.fill("Meine Praxis-Notiz")
        task.fill("Mein Lernauftrag")
        # Leaving with unsaved text asks first (the page's beforeunload warning).
        dialogs: list[str] = []

        def dismiss(dialog):
            dialogs.append(dialog.type)
            dialog.dismiss()

        page.on("dialog", dismiss)
        page.locator(".breadcrumb a").click()
        page.wait_for_timeout(300)
        assert dialogs == ["beforeunload"], dialogs
        page.remove_listener("dialog", dismiss)
        # One save keeps both texts.
        page.locator(".section--praxisaufgabe").get_by_role("button", name=words["save"]).click()
        expect(page.locator(".messages")).to_contain_text(words["saved"])
        expect(page.locator("#note-praxisaufgabe")).to_have_value("Meine Praxis-Notiz")
        expect(page.locator("#note-lernauftrag")).to_have_value("Mein Lernauftrag")
        shots("step-2-notes-saved")

        # A step with a term card: the exercise's subtitle is a heading.
        card_step = (
            Step.objects.filter(module=course, term_card__isnull=False)
            .order_by("number")
            .values_list("number", flat=True)
            .first()
        )
        if card_step:
            page.goto(base + f"/modules/{MODULE}/steps/{card_step}/")
            expect(page.locator(".term-card h4").first).to_have_text("Sicher ausprobieren")
            shots("step-with-term-card")

        # The exam attempt: overview of the questions, a mark for later that stays.
        steps_complete(learner, course)
        exam_bank_approve(course)
        attempt_url = client.post(f"/modules/{MODULE}/exam/start/")["Location"]
        page.goto(base + attempt_url)
        overview = page.locator(".exam-overview__link")
        assert overview.count() >= 2
        second = page.locator(".exam-item").nth(1)
        second.get_by_label(words["mark"]).check()
        expect(overview.nth(1)).to_have_class(re.compile("exam-overview__link--marked"))
        first = page.locator(".exam-item").first
        legend, box = first.locator("legend").bounding_box(), first.bounding_box()
        assert legend["y"] >= box["y"], (legend, box)  # the prompt inside the frame
        page.reload()
        expect(overview.nth(1)).to_have_class(re.compile("exam-overview__link--marked"))
        shots("exam-attempt")
        overview.nth(1).click()
        expect(page).to_have_url(re.compile(r"#item-\d+$"))

        # Signed out: the module page's wording, and the styled 404.
        visitor = chromium.new_context(
            locale="de-DE" if language == "de" else "en-US",
            viewport={"width": width, "height": 900},
        )
        other = visitor.new_page()
        other.goto(base + f"/modules/{MODULE}/")
        assert words["wording"] in other.content()
        response = other.goto(base + "/no-such-page/")
        assert response.status == 404
        expect(other.get_by_role("heading", level=1)).to_have_text(words["not_found"])
        other.screenshot(
            path=str(screenshot_dir / f"reading-{language}-{width}-99-not-found.png"),
            full_page=True,
        )
        visitor.close()
        assert errors == []
    finally:
        context.close()
