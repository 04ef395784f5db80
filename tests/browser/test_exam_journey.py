"""The exam as a learner meets it in Chromium, and a course admin approving the bank (issue 14).

1. Steps missing: the exam page refuses to start and lists every missing step with a link; the
   learner follows one link, completes that step in the browser (the others through the
   factories), and with an approved bank the exam certifies: passed, certificate shown.
2. With a draft bank the same learner's exam is a practice exam: graded, with feedback, no
   certificate, and every exam page and the dashboard say so.
3. A course admin approves the generated bank in the admin (select, action "Approve") and is
   told the exam now certifies.

Screenshots of every page under test-artifacts/screenshots/exam-*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.factories import (
    enrollment_create,
    exam_bank_approve,
    learner_create,
    learner_register,
    step_evidence_leave,
    steps_complete,
)
from tests.helpers.browser import Shots, log_in

pytestmark = pytest.mark.browser

EXAM = "/modules/self-hosting-27/exam/"


def _answer_everything_right(page: Page) -> None:
    """Tick each item's correct options (read from the database: the page never has them)."""
    from quizzes.models import ExamAttemptItem

    attempt_id = int(re.search(r"/exam/attempts/(\d+)/", page.url).group(1))
    for item_id, keys in ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list(
        "id", "correct_keys"
    ):
        for key in keys:
            page.locator(f"#item-{item_id}-{key}").check()
    expect(page.locator("#exam-save-status")).to_have_text("Alle Antworten gespeichert.")


def _submit(page: Page) -> None:
    page.get_by_role("button", name="Prüfen und abgeben").click()
    page.get_by_role("button", name="Ja, jetzt abgeben").click()
    expect(page.locator("#exam-result")).to_contain_text("Bestanden")


@pytest.fixture
def browser_page(chromium):
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def test_the_exam_waits_for_the_steps_then_certifies_from_the_approved_bank(
    browser_page, live_server, course, screenshot_dir, settings
):
    from quizzes.models import Certificate

    settings.SITE_URL = live_server.url
    page, base = browser_page, live_server.url
    shots = Shots(page, screenshot_dir, "exam-gate")
    learner = learner_register("jule", display_name="Jule", full_name="Jule Lernende")
    enrollment_create(learner, course)
    exam_bank_approve(course)
    steps_complete(learner, course, count=29)  # steps 1-29; 30, 31 and 32 are missing
    log_in(page, base + "/login/", "jule")

    page.goto(base + EXAM)
    expect(page.locator("#exam-mode")).to_contain_text("Prüfung mit Zertifikat")
    refusal = page.locator(".card")
    expect(refusal).to_contain_text("Du kannst gerade keinen Versuch starten")
    expect(refusal).to_contain_text("(29 von 32 abgeschlossen)")
    missing = page.locator(".missing-steps a")
    expect(missing).to_have_count(3)
    expect(missing.first).to_have_attribute("href", "/modules/self-hosting-27/steps/30/")
    expect(page.get_by_role("button", name="Prüfung starten")).to_have_count(0)
    shots("refused-with-missing-steps")

    # Follow the link to step 30 and complete it in the browser.
    missing.first.click()
    expect(page).to_have_url(re.compile(r"/steps/30/$"))
    shots("missing-step")
    # The evidence the rule asks for (sections seen, quick check answered, an hour open), left
    # as a reader would leave it; then the page's button completes the step.
    step_evidence_leave(learner, "self-hosting-27", 30)
    page.get_by_role("button", name="Schritt abschließen").click()
    expect(page.locator(".messages")).to_contain_text("Schritt abgeschlossen.")
    page.goto(base + EXAM)
    expect(page.locator(".missing-steps a")).to_have_count(2)
    shots("two-steps-left")

    steps_complete(learner, course)  # 31 and 32 through the factories
    page.goto(base + EXAM)
    expect(page.locator(".missing-steps")).to_have_count(0)
    shots("open")
    page.get_by_role("button", name="Prüfung starten").click()
    expect(page.locator("#exam-mode")).to_contain_text("Prüfung mit Zertifikat")
    expect(page.locator("#exam-time-limit")).to_have_text("Deine Zeit: 20 Minuten.")
    _answer_everything_right(page)
    shots("attempt")
    _submit(page)
    expect(page.locator("#exam-mode")).to_contain_text("Prüfung mit Zertifikat")
    shots("result-certifying")
    page.get_by_role("link", name="Dein Zertifikat öffnen").click()
    expect(page.locator(".certificate")).to_contain_text("GPU, CUDA und Inferenzoptimierung")
    shots("certificate")
    assert Certificate.objects.filter(learner=learner).count() == 1
    page.goto(base + "/")
    expect(page.locator("main")).to_contain_text("Prüfung: bestanden (100 %)")
    shots("dashboard-passed")


def test_with_a_draft_bank_the_exam_is_practice_without_certificate(
    browser_page, live_server, course, screenshot_dir
):
    from quizzes.models import Certificate
    from quizzes.services.items import exam_items_generate

    page, base = browser_page, live_server.url
    shots = Shots(page, screenshot_dir, "exam-practice")
    learner = learner_register("paul", display_name="Paul", full_name="Paul Probe")
    enrollment_create(learner, course)
    exam_items_generate(module_id=course.pk)  # drafts: nobody has approved them
    steps_complete(learner, course)
    log_in(page, base + "/login/", "paul")

    page.goto(base + EXAM)
    expect(page.locator("#exam-mode")).to_contain_text("Übungsprüfung")
    expect(page.locator("#exam-mode")).to_contain_text("ohne Zertifikat")
    shots("policy")
    page.get_by_role("button", name="Prüfung starten").click()
    expect(page.locator("#exam-mode")).to_contain_text("Übungsprüfung")
    _answer_everything_right(page)
    shots("attempt")
    _submit(page)
    expect(page.locator("#exam-mode")).to_contain_text("Übungsprüfung")
    # Feedback at once: which answers were right (the default review content).
    expect(page.locator(".exam-item .result--passed").first).to_contain_text("richtig")
    expect(page.get_by_role("link", name="Dein Zertifikat öffnen")).to_have_count(0)
    shots("result-practice")
    page.goto(base + EXAM)
    expect(page.locator("table .badge--practice")).to_have_count(1)
    shots("policy-after")
    page.goto(base + "/")
    expect(page.locator("main")).to_contain_text("Übungsprüfung ohne Zertifikat")
    shots("dashboard")
    assert not Certificate.objects.exists()


def test_a_course_admin_approves_the_generated_bank(
    browser_page, live_server, course, screenshot_dir
):
    from quizzes.models import ExamItem
    from quizzes.services.items import exam_items_generate

    page, base = browser_page, live_server.url
    shots = Shots(page, screenshot_dir, "exam-admin")
    learner_create("kursadmin", is_staff=True, is_superuser=True, language="de")
    exam_items_generate(module_id=course.pk)
    log_in(page, base + "/admin/login/", "kursadmin")

    page.goto(base + "/admin/quizzes/examitem/?status__exact=draft")
    expect(page.locator("#result_list")).to_be_visible()
    shots("drafts")
    # The change list shows 100 of the 119 items: select the page, then all of them.
    page.locator("#action-toggle").check()
    page.locator(".actions .question a").click()
    expect(page.locator(".actions .all")).to_be_visible()
    page.locator("select[name='action']").select_option("approve")
    shots("approve-selected", doc="admin-items-approve-de")
    page.locator(".actions button[name='index']").click()
    messages = page.locator(".messagelist")
    # The admin speaks the German browser's language.
    expect(messages).to_contain_text("119 Aufgabe(n) freigegeben.")
    expect(messages).to_contain_text("neue Versuche führen zum Zertifikat")
    shots("approved")
    assert set(ExamItem.objects.values_list("status", "reviewed_by__username")) == {
        ("approved", "kursadmin")
    }
