"""A course admin (``kurs``, German) reviews a learner's attempt question by question, corrects a
wrong key, regrades (a certificate appears for the learner who now passes) and downloads the
grades and enrollments, as CSV and as .xlsx, in Chromium at 1280 and at 375 px (issue 27).

Screenshots under test-artifacts/screenshots/attempt-review-*.png.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from playwright.sync_api import Page, expect

from tests.factories import (
    REGRADE_OPTIONS,
    enrollment_create,
    exam_attempt_take,
    exam_small_bank_create,
    learner_create,
    steps_complete,
)
from tests.helpers.browser import Shots, log_in

pytestmark = pytest.mark.browser

RIGHT, NEW_RIGHT, WRONG = REGRADE_OPTIONS


@pytest.fixture
def week(course):
    """Five approved items, the first ("x") keyed "Port 80" where "Port 443" is right. Petra
    Prüfling (nickname "petzi") chose 443 and got 3 of the other 4: 60 %, failed. Ben chose 80
    and got every other one: 100 %, certificate."""
    from django.contrib.auth.models import Group

    from accounts.roles import COURSE_ADMIN_GROUP, course_admin_group_sync

    course_admin_group_sync()
    kurs = learner_create("kurs", is_staff=True, language="de")
    kurs.groups.add(Group.objects.get(name=COURSE_ADMIN_GROUP))
    items = exam_small_bank_create(course)
    x, others = items[0], items[1:]
    petra = learner_create("petra", full_name="Petra Prüfling", display_name="petzi")
    ben = learner_create("ben", full_name="Ben Bestanden", display_name="benny")
    for user, x_choice, right in ((petra, NEW_RIGHT, 3), (ben, RIGHT, 4)):
        enrollment_create(user, course)
        steps_complete(user, course)
        answers = {x.pk: x_choice}
        answers.update({item.pk: RIGHT if i < right else WRONG for i, item in enumerate(others)})
        exam_attempt_take(user, course, answers=answers)
    return {"x": x, "petra": petra, "ben": ben}


def _fits(page: Page, selector: str) -> None:
    """The element shows all its columns: nothing scrolls or sticks out sideways."""
    sizes = page.locator(selector).evaluate(
        "el => [el.scrollWidth, el.clientWidth, el.getBoundingClientRect().right,"
        " document.documentElement.clientWidth]"
    )
    scroll_width, client_width, right, viewport = sizes
    assert scroll_width <= client_width + 1 and right <= viewport + 1, (selector, sizes)


def _correct_the_key(page: Page, *, right_text: str) -> None:
    """On the item's page (the editor: a row per option with a "right" tick): only the option
    reading ``right_text`` is ticked now."""
    # The editor's script hides the other kinds' fieldsets and then renders the preview; before
    # that, every kind's rows are on the page and would be counted.
    expect(page.locator("#item-preview")).to_have_attribute("data-rendered", re.compile(r"\d"))
    rows = page.locator("fieldset:not([hidden]) tr[data-row]")
    expect(rows.first).to_be_visible()
    for index in range(rows.count()):
        row = rows.nth(index)
        text = row.locator("input[type=text]").first.input_value()
        row.locator("input[type=checkbox]").set_checked(text == right_text)
    page.wait_for_load_state("networkidle")
    page.locator("input[name='_continue']").click()


def _download(page: Page, click) -> bytes:
    with page.expect_download() as info:
        click()
    return open(info.value.path(), "rb").read()


def test_kurs_reviews_an_attempt_regrades_and_downloads_the_exports(
    chromium, live_server, course, week, screenshot_dir
):
    from openpyxl import load_workbook

    from quizzes.models import Certificate, ExamAttempt

    base = live_server.url
    context = chromium.new_context(
        locale="de-DE", viewport={"width": 1280, "height": 900}, accept_downloads=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    shots = Shots(page, screenshot_dir, "attempt-review")
    try:
        log_in(page, base + "/admin/login/", "kurs")

        # The attempt list: names, scores, "bestanden" all visible at 1280 px.
        page.goto(base + "/admin/quizzes/examattempt/")
        rows = page.locator("#result_list tbody tr")
        expect(rows).to_have_count(2)
        expect(page.locator("#result_list")).to_contain_text("Petra Prüfling · Versuch 1")
        expect(page.locator("#result_list")).to_contain_text("60 %")
        _fits(page, "#changelist .results")
        shots("attempts")

        # Petra's attempt, question by question.
        page.get_by_role("link", name="Petra Prüfling · Versuch 1").click()
        expect(page.locator("h1")).to_have_text("Versuch 1 von Petra Prüfling · Modul 27")
        facts = page.locator(".review-facts")
        expect(facts).to_contain_text("60 %")
        expect(facts).to_contain_text("nicht bestanden")
        expect(facts).to_contain_text("von 20 min erlaubt")
        questions = page.locator(".review-question")
        expect(questions).to_have_count(5)
        attempt = ExamAttempt.objects.get(learner=week["petra"])
        for row in attempt.items.order_by("position"):
            question = page.locator(f"#question-{row.position}")
            expect(question).to_contain_text(row.prompt)
            for option in row.options:  # in the order this attempt showed them
                expect(question).to_contain_text(f"{option['key']}) {option['text']}")
            expect(question.locator(".review-badge").first).to_have_text(
                "richtig" if row.is_correct else "falsch"
            )
        x_row = attempt.items.get(item=week["x"])
        x_question = page.locator(f"#question-{x_row.position}")
        expect(x_question.locator(".is-chosen-wrong")).to_contain_text(NEW_RIGHT)
        expect(x_question.locator(".is-key")).to_contain_text(RIGHT)
        shots("review")

        # The key was wrong: correct it on the item, then regrade.
        x_question.get_by_role("link", name="Aufgabe in der Aufgabensammlung bearbeiten").click()
        _correct_the_key(page, right_text=NEW_RIGHT)
        messages = page.locator(".messagelist")
        expect(messages).to_contain_text("behalten ihre Bewertung, bis du sie neu bewertest")
        shots("key-corrected")
        messages.get_by_role("link", name="Jetzt neu bewerten").click()
        expect(page.locator("#content")).to_contain_text("Probelauf")
        table = page.locator(".regrade-table")
        petra_row = table.locator("tr", has_text="Petra Prüfling")
        expect(petra_row).to_contain_text("60 → 80")
        expect(petra_row).to_contain_text("wird ausgestellt")
        expect(table.locator("tr", has_text="Ben Bestanden")).to_contain_text("100 → 80")
        assert not Certificate.objects.filter(learner=week["petra"]).exists()
        shots("regrade-dry-run")
        page.get_by_role("button", name="Jetzt neu bewerten").click()
        expect(page.locator(".messagelist")).to_contain_text("2 Versuche neu bewertet.")
        expect(page.locator(".regrade-table tr", has_text="Petra Prüfling")).to_contain_text(
            "ausgestellt"
        )
        shots("regraded")
        certificate = Certificate.objects.get(learner=week["petra"])
        assert certificate.revoked_at is None and certificate.learner_name == "Petra Prüfling"

        # The certificate is there for the admin, and the audit line names who regraded.
        page.goto(base + "/admin/quizzes/certificate/")
        expect(page.locator("#result_list")).to_contain_text("Petra Prüfling")
        shots("certificates")
        page.goto(base + "/admin/quizzes/examregrade/")
        expect(page.locator("#result_list")).to_contain_text("kurs")
        page.locator("#result_list tbody tr a").first.click()
        expect(page.locator("#content")).to_contain_text("Versuch 1: 60,00 → 80,00")
        shots("regrade-record")

        # The grades: CSV and Excel.
        page.goto(base + "/admin/quizzes/examattempt/")
        expect(page.locator("#result_list")).to_contain_text("80 %")
        grades_csv = _download(page, page.get_by_role("link", name="Noten (CSV)").click)
        assert grades_csv.startswith("\ufeff".encode())
        grades = {
            row["Vollständiger Name"]: row
            for row in csv.DictReader(io.StringIO(grades_csv.decode("utf-8-sig")), delimiter=";")
        }
        assert grades["Petra Prüfling"]["Bestanden"] == "ja"
        assert grades["Petra Prüfling"]["Zertifikat ausgestellt"] == "ja"
        assert grades["Petra Prüfling"]["Endnote (%)"] == "80,00"
        grades_xlsx = _download(page, page.get_by_role("link", name="Noten (Excel)").click)
        sheet = load_workbook(io.BytesIO(grades_xlsx)).active
        header = [cell.value for cell in sheet[1]]
        names = [
            row[header.index("Vollständiger Name")] for row in sheet.iter_rows(values_only=True)
        ]
        assert "Petra Prüfling" in names and "petzi" not in names

        # The enrollments: the list fits 1280 px; both downloads.
        page.goto(base + "/admin/progress/enrollment/")
        expect(page.locator("#result_list")).to_contain_text("Petra Prüfling")
        expect(page.locator("#result_list")).to_contain_text("bestanden")
        shots("enrollments")
        _fits(page, "#changelist .results")
        page.locator("#action-toggle").check()
        page.locator("select[name='action']").select_option("export_csv")
        enrollments_csv = _download(page, page.locator(".actions button[name='index']").click)
        enrollments = list(
            csv.DictReader(io.StringIO(enrollments_csv.decode("utf-8-sig")), delimiter=";")
        )
        assert {row["Prüfung bestanden"] for row in enrollments} == {"ja"}
        page.locator("select[name='action']").select_option("export_xlsx")
        enrollments_xlsx = _download(page, page.locator(".actions button[name='index']").click)
        sheet = load_workbook(io.BytesIO(enrollments_xlsx)).active
        assert sheet.max_row == 3
        assert "Prüfung bestanden" in [cell.value for cell in sheet[1]]
    finally:
        context.close()
    assert not errors, errors

    # On a phone: the review and the regrade record read without sideways scrolling.
    phone = chromium.new_context(locale="de-DE", viewport={"width": 375, "height": 812})
    page = phone.new_page()
    shots = Shots(page, screenshot_dir, "attempt-review-375")
    try:
        log_in(page, base + "/admin/login/", "kurs")
        page.goto(base + "/admin/quizzes/examattempt/")
        shots("attempts")
        page.goto(base + f"/admin/quizzes/examattempt/{attempt.pk}/change/")
        expect(page.locator(".review-question")).to_have_count(5)
        _fits(page, "html")
        shots("review")
        page.goto(base + f"/admin/quizzes/examitem/{week['x'].pk}/regrade/")
        expect(page.locator("#content")).to_contain_text("Nichts neu zu bewerten")
        _fits(page, "html")
        shots("regrade-again")
    finally:
        phone.close()
