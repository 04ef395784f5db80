"""Opening a step is an explicit event the step page sends; reading (a GET) records nothing.

With JavaScript the page posts "opened" once it is shown, so "continue where I left off" follows
the learner; a prefetch of a page or of the API (the same session) moves nothing. Without
JavaScript the GET records nothing; the learner's first "read – on" under a section opens it.
Screenshots under test-artifacts/screenshots/opening-*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.helpers.browser import Shots, log_in
from tests.web.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MODULE = "/modules/self-hosting-27/"


def progress_of(username: str, number: int):
    from progress.models import StepProgress

    return StepProgress.objects.get(
        learner__username=username, step__number=number, step__status="active"
    )


def enrolled_learner(course, username: str):
    from progress.services.enrollment import enrollment_create
    from tests.factories import learner_register, steps_complete

    learner = learner_register(username, password=PASSWORD)
    enrollment_create(learner_id=learner.pk, module_slug=course.slug)
    steps_complete(learner, course, count=1)
    return learner


def test_the_step_page_sends_the_opening_and_a_prefetch_moves_nothing(
    chromium, live_server, course, screenshot_dir
):
    enrolled_learner(course, "offen")
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    shots = Shots(page, screenshot_dir, "opening")
    posted: list[str] = []
    page.on(
        "request",
        lambda request: (
            posted.append(request.post_data or "") if request.method == "POST" else None
        ),
    )
    try:
        log_in(page, live_server.url + "/login/", "offen", PASSWORD)
        page.goto(live_server.url + MODULE)
        resume = page.locator(".button-row .button").first
        expect(resume).to_contain_text("Schritt 2:")
        shots("module-before")

        # Reading step 5: the page posts "opened" once shown.
        page.goto(live_server.url + MODULE + "steps/5/")
        expect(page.locator("[data-progress-url]")).to_have_attribute("data-opened", "recorded")
        assert any('"event":"opened"' in body for body in posted), posted
        shots("step-5-opened")
        row = progress_of("offen", 5)
        assert row.status == "in_progress" and row.first_opened_at is not None
        page.goto(live_server.url + MODULE)
        expect(page.locator(".button-row .button").first).to_contain_text("Schritt 5:")
        shots("module-resume-5")

        # A prefetch of step 7 (the page and the API, with this session's cookies) changes
        # nothing: no row, and "continue" still points at step 5.
        for path in (MODULE + "steps/7/", "/api/v1/modules/self-hosting-27/steps/7/"):
            assert page.request.get(live_server.url + path).status == 200
        seven = progress_of("offen", 7)
        assert seven.status == "not_started" and seven.first_opened_at is None
        page.goto(live_server.url + MODULE)
        expect(page.locator(".button-row .button").first).to_contain_text("Schritt 5:")
        shots("module-after-prefetch")
    finally:
        context.close()


def test_without_javascript_reading_records_nothing_and_the_first_section_opens(
    chromium, live_server, course, screenshot_dir
):
    enrolled_learner(course, "ohnejs")
    context = chromium.new_context(java_script_enabled=False, locale="de-DE")
    page = context.new_page()
    shots = Shots(page, screenshot_dir, "opening-nojs")
    try:
        log_in(page, live_server.url + "/login/", "ohnejs", PASSWORD)
        page.goto(live_server.url + MODULE + "steps/3/")
        expect(page.get_by_role("button", name="Schritt abschließen")).to_be_visible()
        shots("step-3")
        row = progress_of("ohnejs", 3)
        assert row.status == "not_started" and row.first_opened_at is None
        # A refused completion records nothing, not even the opening.
        page.get_by_role("button", name="Schritt abschließen").click()
        expect(page.locator(".messages")).to_contain_text("noch nicht abgeschlossen")
        row = progress_of("ohnejs", 3)
        assert row.status == "not_started" and row.first_opened_at is None
        # The first section read (the button under it) opens the step.
        page.locator("form.section-read button").first.click()
        shots("step-3-first-section-read")
        row = progress_of("ohnejs", 3)
        assert row.status == "in_progress" and row.first_opened_at is not None
    finally:
        context.close()
