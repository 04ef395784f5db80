"""An admin enrolls learners from the users list and finds them in the enrollments list, in a
real browser. The action belongs to the progress app (progress.admin adds it to the users list),
the enrollments are progress' rows (/admin/progress/enrollment/). Screenshots of every page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.factories import learner_create
from tests.helpers.browser import log_in

pytestmark = pytest.mark.browser


def test_admin_enrolls_selected_users_in_a_module(chromium, live_server, course, screenshot_dir):
    from progress.models import Enrollment

    learner_create("admin", is_staff=True, is_superuser=True)
    anna, ben = learner_create("anna"), learner_create("ben")
    learner_create("cem")
    context = chromium.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    page = context.new_page()

    def shot(name: str) -> None:
        page.screenshot(path=screenshot_dir / f"admin-{name}.png", full_page=True)

    try:
        log_in(page, live_server.url + "/admin/login/", "admin")
        page.goto(live_server.url + "/admin/accounts/user/")
        for user in (anna, ben):
            page.locator(f"input[name='_selected_action'][value='{user.pk}']").check()
        page.locator("select[name='action']").select_option("enroll_in_module")
        shot("01-users-selected")
        page.get_by_role("button", name="Go").click()
        expect(page.locator("h1")).to_contain_text("Enroll in a module")
        expect(page.locator("#content")).to_contain_text("anna")
        page.get_by_label("Module").select_option(str(course.pk))
        shot("02-choose-module")
        page.get_by_role("button", name="Enroll").click()
        expect(page.locator(".messagelist")).to_contain_text(
            "Enrolled 2 user(s); 0 were enrolled already."
        )
        shot("03-enrolled")
        assert set(Enrollment.objects.values_list("learner__username", flat=True)) == {
            "anna",
            "ben",
        }
        page.goto(live_server.url + "/admin/progress/enrollment/")
        rows = page.locator("#result_list tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.first).to_contain_text("0 %")
        shot("04-enrollments")
    finally:
        context.close()
