"""GIFT in a real browser: a course admin imports questions in the admin (a broken file first,
which shows its problems as file:line and imports nothing), then a learner answers the
imported short-answer, numerical and matching items on the exam page, autosaved, and passes.
Screenshots of every page under test-artifacts/screenshots/gift-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.factories import enrollment_create, learner_create
from tests.helpers.browser import doc_shot, log_in

pytestmark = pytest.mark.browser

BROKEN = "::Gut::Frage {=a ~b}\n\n::Kaputt::Wie heißt der Compiler?\n{=nvcc\n\n"
GOOD = (
    "// Zwei Fragen für die Prüfung\n"
    "$CATEGORY: $course$/Self-Hosting 27\n\n"
    "::Compiler::Wie heißt der Compiler des CUDA Toolkits?{=nvcc =NVIDIA CUDA Compiler}\n\n"
    "::VRAM 7B::Wie viel VRAM (GB) belegen die Gewichte eines 7-Milliarden-Parameter-Modells "
    "in FP16?{#14:0.5####7 Mrd. Parameter x 2 Byte = 14 GB.}\n\n"
    "::Bytes::Ordne jedem Format seine Bytes pro Parameter zu.{\n"
    "\t=FP32 -> 4 Byte\n\t=FP16 -> 2 Byte\n\t=INT8 -> 1 Byte\n}\n\n"
    "::Aufsatz::Warum spart Quantisierung VRAM?{}\n"
)


def test_admin_imports_gift_and_a_learner_answers_typed_items(
    chromium, live_server, course, screenshot_dir, tmp_path
):
    from quizzes.models import ExamAttemptItem, ExamItem, ExamPolicy

    learner_create("admin", is_staff=True, is_superuser=True)
    lena = learner_create("lena", display_name="Lena Lernende")
    enrollment_create(lena, course)
    broken, good = tmp_path / "kaputt.gift", tmp_path / "fragen.gift"
    broken.write_text(BROKEN, encoding="utf-8")
    good.write_text(GOOD, encoding="utf-8")
    errors: list[str] = []

    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def shot(name: str, *, doc: str | None = None) -> None:
        page.screenshot(path=screenshot_dir / f"gift-{name}.png", full_page=True)
        if doc is not None:
            doc_shot(page, doc)

    try:
        # The admin: a broken file shows every problem at its line and imports nothing.
        log_in(page, live_server.url + "/admin/login/", "admin")
        page.goto(live_server.url + "/admin/quizzes/examitem/")
        page.get_by_role("link", name="GIFT importieren").click()
        expect(page.locator("h1")).to_contain_text("Fragen importieren (GIFT)")
        page.get_by_label("Modul").select_option(course.slug)
        page.get_by_label("GIFT-Datei").set_input_files(str(broken))
        shot("01-admin-upload")
        page.get_by_role("button", name="Vorschau").click()
        problems = page.locator("#gift-problems")
        expect(problems).to_contain_text(
            "kaputt.gift:4: Der hier geöffnete Antwortblock wird nicht mit } geschlossen."
        )
        expect(page.locator(".errornote")).to_contain_text("Nichts wurde geändert.")
        shot("02-admin-broken-file")
        assert not ExamItem.objects.exists()

        # A good file: the preview counts the questions and lists the essay it skips.
        page.get_by_label("Modul").select_option(course.slug)
        page.get_by_label("GIFT-Datei").set_input_files(str(good))
        page.get_by_role("button", name="Vorschau").click()
        expect(page.locator("#gift-summary")).to_contain_text("fragen.gift: 3 neue Fragen")
        expect(page.locator("#gift-kinds")).to_contain_text("Kurzantwort: 1")
        expect(page.locator("#gift-kinds")).to_contain_text("Numerisch: 1")
        expect(page.locator("#gift-kinds")).to_contain_text("Zuordnung: 1")
        expect(page.locator("#gift-warnings")).to_contain_text(
            "fragen.gift:14: Übersprungen: Eine Freitextfrage {} hat keine Antwort"
        )
        shot("03-admin-preview", doc="admin-gift-preview-de")
        assert not ExamItem.objects.exists()
        page.get_by_role("button", name="3 Fragen importieren").click()
        expect(page.locator(".messagelist")).to_contain_text(
            "3 Frage(n) aus fragen.gift in self-hosting-27 importiert"
        )
        expect(page.locator("#result_list tbody tr")).to_have_count(3)
        shot("04-admin-imported")
        assert ExamItem.objects.filter(module=course).count() == 3
        ExamPolicy.objects.filter(module=course).update(items_per_attempt=3, required_step_share=0)

        # The learner: both imported items on the exam page.
        context.clear_cookies()
        log_in(page, live_server.url + "/login/", "lena")
        page.goto(live_server.url + f"/modules/{course.slug}/exam/")
        page.get_by_role("button", name="Prüfung starten").click()
        expect(page.locator("#exam-time-left")).to_have_text(re.compile(r"^\d+:\d\d$"))
        attempt_id = int(re.search(r"/exam/attempts/(\d+)/", page.url).group(1))
        rows = {i.kind: i for i in ExamAttemptItem.objects.filter(attempt_id=attempt_id)}
        short, number = rows["short_answer"], rows["numerical"]
        text_input = page.locator(f"#item-{short.pk}-text")
        number_input = page.locator(f"#item-{number.pk}-number")
        expect(number_input).to_have_attribute("inputmode", "decimal")
        shot("05-exam-attempt")

        # A unit after the number is refused at its question; the other answer is saved.
        text_input.fill("nvidia cuda compiler")
        number_input.fill("14 GB")
        expect(page.locator(f"#item-{number.pk}-error")).to_contain_text("ist keine Zahl")
        expect(number_input).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#exam-save-status")).to_have_text(
            "Gespeichert, außer den markierten Antworten."
        )
        shot("06-exam-number-refused")
        short.refresh_from_db()
        assert short.answer_text == "nvidia cuda compiler"
        number.refresh_from_db()
        assert number.answer_text is None

        # The matching item: one select per line.
        matching = rows["matching"]
        choices = {c["text"]: c["key"] for c in matching.choices}
        answers = {"FP32": "4 Byte", "FP16": "2 Byte", "INT8": "1 Byte"}
        for option in matching.options:
            select = page.get_by_label(option["text"], exact=True)
            select.select_option(choices[answers[option["text"]]])

        # With a decimal comma the number is saved.
        number_input.fill("14,5")
        expect(page.locator("#exam-save-status")).to_have_text("Alle Antworten gespeichert.")
        expect(page.locator(f"#item-{number.pk}-error")).to_be_hidden()
        expect(number_input).not_to_have_attribute("aria-invalid", "true")
        shot("07-exam-saved")
        number.refresh_from_db()
        assert number.answer_text == "14,5"
        matching.refresh_from_db()
        assert matching.answer_pairs == matching.answer_key["pairs"]

        # On a 375-pixel phone the selects go below their lines; nothing scrolls sideways.
        page.set_viewport_size({"width": 375, "height": 812})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        shot("07b-exam-saved-phone")
        page.set_viewport_size({"width": 1280, "height": 900})

        page.get_by_role("button", name="Prüfen und abgeben").click()
        expect(page.locator("main")).not_to_contain_text("Noch nicht beantwortet")
        shot("08-exam-confirm")
        page.get_by_role("button", name="Ja, jetzt abgeben").click()
        expect(page.locator("#exam-result")).to_contain_text("Bestanden")
        expect(page.locator("#exam-result")).to_contain_text("3 von 3 richtig")
        shot("09-exam-result")
        assert not errors, errors
    finally:
        context.close()
