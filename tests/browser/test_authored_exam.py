"""The authored exam bank (fixtures/exam-items/self-hosting-27.gift) in Chromium, as
``demo_setup`` ships it: the exam certifies and draws authored questions, and a question that
shows a tool's output keeps its lines (an nvidia-smi table is read line by line), at 1280 and
375 px, axe-core clean. Screenshots under test-artifacts/screenshots/authored-exam-*.png."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.browser.axe import axe_violations
from tests.factories import enrollment_create, learner_register, steps_complete
from tests.helpers.browser import log_in

pytestmark = pytest.mark.browser

NVIDIA_SMI_LINE = "1, 310 MiB, 24576 MiB, 0 %, 34"


@pytest.mark.parametrize("width", [1280, 375])
def test_an_authored_question_shows_a_tools_output_line_by_line(
    chromium, live_server, course, screenshot_dir, width
):
    from quizzes.services.items import exam_policy_get

    call_command("demo_setup", stdout=StringIO())
    policy = exam_policy_get(module_id=course.pk)
    policy.items_per_attempt = 35  # the whole authored bank in one attempt
    policy.save()
    learner = learner_register("jule", display_name="Jule", full_name="Jule Lernende")
    enrollment_create(learner, course)
    steps_complete(learner, course)
    context = chromium.new_context(
        locale="de-DE", viewport={"width": width, "height": 900}, bypass_csp=True
    )
    page = context.new_page()
    try:
        log_in(page, live_server.url + "/login/", "jule")
        page.goto(live_server.url + "/modules/self-hosting-27/exam/")
        expect(page.locator("#exam-mode")).to_contain_text("Prüfung mit Zertifikat")
        page.screenshot(path=screenshot_dir / f"authored-exam-{width}-open.png")
        page.get_by_role("button", name="Prüfung starten").click()
        expect(page.locator(".exam-item")).to_have_count(35)
        prompt = page.locator(".exam-item__prompt", has_text=NVIDIA_SMI_LINE)
        prompt.scroll_into_view_if_needed()
        # Five lines of output and a question: far taller than a prompt on one line.
        line_height = prompt.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
        assert prompt.bounding_box()["height"] > 5 * line_height
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        prompt.locator("xpath=ancestor::fieldset").screenshot(
            path=screenshot_dir / f"authored-exam-{width}-nvidia-smi.png"
        )
        assert axe_violations(page) == []
    finally:
        context.close()
