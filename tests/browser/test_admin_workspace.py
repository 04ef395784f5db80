"""The course admin's workspace in a real browser, as the demo course admin (``demo_setup``'s
``kurs``, group "Kursverwaltung") with a German browser: the index shows only course things,
the module dashboard draws its charts, the step page edits the text with a preview of the
learner's page, the enrollments list shows the exam, the item statistics draw their chart,
and the periodic-task and token pages answer 403. Screenshots of every page."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.helpers.browser import doc_shot, log_in
from tests.quizzes.test_course_admin_workspace import _learners

pytestmark = pytest.mark.browser


def test_the_demo_course_admin_works_in_a_german_admin(
    chromium, live_server, course, screenshot_dir
):
    from quizzes.services.items import exam_items_generate, exam_policy_get

    exam_items_generate(module_id=course.pk)
    call_command("demo_setup")
    _learners(course, exam_policy_get(module_id=course.pk), 3)
    step = course.steps.get(number=1)
    context = chromium.new_context(
        locale="de-DE", timezone_id="Europe/Berlin", viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()

    def shot(name: str, *, doc: str | None = None) -> None:
        page.screenshot(path=screenshot_dir / f"admin-workspace-{name}.png", full_page=True)
        if doc is not None:
            doc_shot(page, doc)

    try:
        log_in(page, live_server.url + "/admin/login/", "kurs", "lernpfad-kurs-demo")
        expect(page.locator("#site-name")).to_have_text("Lernpfad · Kursverwaltung")
        # A course admin's week starts on the module dashboard; the index is one click away.
        expect(page).to_have_url(re.compile(r"/admin/quizzes/examattempt/dashboard/[\w-]+/$"))
        page.goto(live_server.url + "/admin/")
        content = page.locator("#content-main")
        expect(content).to_contain_text("Kursinhalte")
        expect(content).to_contain_text("Einschreibungen")
        expect(content).to_contain_text("Prüfungsaufgaben")
        for infrastructure in ("Geplante Aufgaben", "API-Tokens", "Anmeldesperren", "Geräte"):
            expect(content).not_to_contain_text(infrastructure)
        shot("01-index", doc="admin-index-de")

        page.get_by_role("link", name="Module", exact=True).first.click()
        expect(page.locator("h1")).to_have_text("Modul zur Änderung auswählen")
        shot("02-modules")
        page.get_by_role("link", name="Übersicht").first.click()
        expect(page.locator("h1")).to_contain_text("Übersicht:")
        expect(page.locator(".dashboard-figures")).to_contain_text("eingeschriebene Lernende")
        expect(page.locator("svg.chart--bars")).to_have_count(3)
        shot("03-dashboard", doc="admin-dashboard-de")

        page.goto(live_server.url + f"/admin/courses/step/{step.pk}/change/")
        expect(page.locator("h1")).to_contain_text("Schritt ändern")
        # The import's hashes are folded away; the commands are lines, not JSON.
        expect(page.locator("fieldset.collapse")).to_contain_text("Import (nur lesen)")
        expect(page.get_by_text(step.content_hash)).to_be_hidden()
        commands = page.locator("textarea[name$='-commands']").first
        expect(commands).not_to_have_value("[]")
        assert not (commands.input_value() or "").startswith("[")
        page.locator("textarea[name='lead']").fill(step.lead + " Geändert im Browser.")
        shot("04-step-edit", doc="admin-step-edit-de")
        page.get_by_role("button", name="Sichern und weiter bearbeiten").click()
        expect(page.locator(".messagelist")).to_contain_text("erfolgreich geändert")
        preview = page.get_by_role("link", name="Seite der Lernenden ansehen")
        page.goto(live_server.url + preview.get_attribute("href"))
        expect(page.locator("h1")).to_have_text(step.term)
        expect(page.locator(".lead")).to_contain_text("Geändert im Browser.")
        expect(page.locator("section.section--verstehen h2")).to_have_text("1. Verstehen")
        shot("05-step-preview")

        page.set_viewport_size({"width": 1500, "height": 900})
        page.goto(live_server.url + "/admin/progress/enrollment/")
        expect(page.locator("#result_list thead")).to_contain_text("Prüfung")
        expect(page.locator("#result_list tbody")).to_contain_text("85 % · bestanden")
        expect(page.locator("#result_list tbody")).to_contain_text("Zertifikat")
        shot("06-enrollments", doc="admin-enrollments-de")

        page.goto(live_server.url + f"/admin/quizzes/examitem/statistics/?module={course.slug}")
        expect(page.locator("svg.chart--scatter")).to_be_visible()
        expect(page.locator("h2#flagged-heading")).to_have_text("Auffällige Aufgaben")
        shot("07-item-statistics", doc="admin-item-statistics-de")

        for url in ("/admin/django_celery_beat/periodictask/", "/admin/knox/authtoken/"):
            response = page.goto(live_server.url + url)
            assert response.status == 403, url
        shot("08-periodic-tasks-forbidden")
    finally:
        context.close()
