"""The course admin's item editor in a real browser, as the demo course admin ``kurs`` with a
German browser at 1280 and 375 px: a generated question edited without JSON (a choice
changed, a second right answer ticked) with the learner's preview following along, then a
GIFT file with feedback, categories, comments and HTML imported and exported byte for byte.
Screenshots under test-artifacts/screenshots/item-editor-*.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.helpers.browser import Shots, log_in

pytestmark = pytest.mark.browser

EVERY_KIND = Path(__file__).parent.parent / "quizzes" / "data" / "every-kind-feedback.gift"


@pytest.mark.parametrize("width", [1280, 375])
def test_kurs_edits_a_question_with_a_live_preview_and_round_trips_gift(
    chromium, live_server, course, screenshot_dir, width
):
    from courses.models import Module
    from quizzes.models import ExamItem
    from quizzes.services.items import exam_items_generate

    exam_items_generate(module_id=course.pk)
    call_command("demo_setup")
    item = ExamItem.objects.filter(module=course, kind="single_choice").order_by("id").first()
    right = next(o for o in item.options if o["key"] in item.correct_keys)
    other = next(o for o in item.options if o["key"] not in item.correct_keys)
    empty = Module.objects.create(
        slug="fragen-1", series="Fragen", number=1, title="Fragensammlung", header="Fragen 1"
    )
    context = chromium.new_context(
        locale="de-DE",
        timezone_id="Europe/Berlin",
        viewport={"width": width, "height": 900},
        accept_downloads=True,
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    shot = Shots(page, screenshot_dir, f"item-editor-{width}")

    try:
        log_in(page, live_server.url + "/admin/login/", "kurs", "lernpfad-kurs-demo")
        page.goto(live_server.url + f"/admin/quizzes/examitem/{item.pk}/change/")
        expect(page.locator("h1")).to_contain_text("ändern")
        # No JSON anywhere: the options are rows with a tick for the right one.
        for name in ("options", "correct_keys", "answer_key"):
            expect(page.locator(f"[name={name}]")).to_have_count(0)
        expect(page.locator("#content-main")).not_to_contain_text('[{"key"')
        rows = page.locator("[data-item-rows=choice_rows] tbody tr")
        expect(page.locator("input[name=choice_rows-0-text]")).to_have_value(
            item.options[0]["text"]
        )
        # Only the chosen kind's fields are shown.
        expect(page.locator("fieldset.kind-short_answer")).to_be_hidden()
        preview = page.frame_locator("#item-preview-phone")
        desktop = page.frame_locator("#item-preview-desktop")
        expect(preview.locator(".exam-item")).to_contain_text(right["text"])
        expect(preview.locator(".exam-item input[type=radio]")).to_have_count(len(item.options))
        shot("edit-before")

        # Multiple choice, a changed option text, a second right answer ticked.
        page.get_by_label("Art").select_option("multiple_choice")
        expect(page.locator("fieldset.kind-multiple_choice")).to_be_visible()
        index = next(i for i, o in enumerate(item.options) if o["key"] == other["key"])
        changed = "Eine geänderte Antwort im Browser"
        page.locator(f"input[name=choice_rows-{index}-text]").fill(changed)
        page.locator(f"input[name=choice_rows-{index}-correct]").check()
        page.locator(f"input[name=choice_rows-{index}-feedback]").fill("Auch richtig.")
        expect(preview.locator(".exam-item")).to_contain_text(changed)
        expect(preview.locator(".exam-item input[type=checkbox][name=item-0]")).to_have_count(
            len(item.options)
        )
        expect(preview.locator(".exam-item")).to_contain_text("Wähle alle richtigen Antworten.")
        if width > 700:
            expect(desktop.locator(".exam-item")).to_contain_text(changed)
        # A row added and removed again; the preview follows.
        page.get_by_role("button", name="Antwortmöglichkeit hinzufügen").click()
        expect(rows).to_have_count(len(item.options) + 3)
        rows.last.locator("input[type=text]").first.fill("Eine fünfte Möglichkeit")
        expect(preview.locator(".exam-item")).to_contain_text("Eine fünfte Möglichkeit")
        rows.last.get_by_role("button", name="Diese Zeile entfernen").click()
        expect(preview.locator(".exam-item")).not_to_contain_text("Eine fünfte Möglichkeit")
        shot("edit-preview")

        page.get_by_role("button", name="Sichern und weiter bearbeiten").click()
        expect(page.locator(".messagelist")).to_contain_text("erfolgreich geändert")
        item.refresh_from_db()
        assert item.kind == "multiple_choice"
        assert item.options[index]["text"] == changed
        assert sorted(item.correct_keys) == sorted(
            {item.options[index]["key"], *(o["key"] for o in item.options if o == right)}
        )
        assert item.answer_feedback[item.options[index]["key"]] == "Auch richtig."
        shot("edit-saved")

        # A wrong edit: no right option ticked is refused in German, nothing written.
        for box in page.locator("input[name$=-correct]").all():
            box.uncheck()
        page.get_by_role("button", name="Sichern und weiter bearbeiten").click()
        expect(page.locator(".errorlist")).to_contain_text(
            "Kreuzen Sie mindestens eine richtige Antwort an."
        )
        # The refused form comes back with its rows and two spare ones, not the empty ones.
        expect(rows).to_have_count(len(item.options) + 2)
        expect(preview.locator(".exam-item")).to_contain_text(changed)
        shot("edit-refused")
        item.refresh_from_db()
        assert len(item.correct_keys) == 2

        # GIFT with feedback, categories, comments and HTML: imported, exported unchanged.
        page.goto(live_server.url + "/admin/quizzes/examitem/gift-import/")
        page.get_by_label("Modul").select_option(empty.slug)
        page.get_by_label("GIFT-Datei").set_input_files(str(EVERY_KIND))
        page.get_by_role("button", name="Vorschau").click()
        expect(page.locator("#gift-summary")).to_contain_text("6 neue Fragen")
        expect(page.locator("#gift-warnings")).to_have_count(0)
        shot("gift-preview")
        page.get_by_role("button", name="6 Fragen importieren").click()
        expect(page.locator(".messagelist")).to_contain_text("6 Frage(n)")
        shot("gift-imported")
        imported = ExamItem.objects.get(module=empty, title="Primzahlen")
        assert imported.answer_feedback["a"] == "<i>Ja</i>, die einzige gerade."
        assert imported.category == "$course$/top/Grundlagen"

        # The imported items in the editor: HTML formatting in the preview, numbers as rows.
        page.goto(live_server.url + f"/admin/quizzes/examitem/{imported.pk}/change/")
        expect(page.locator("input[name=choice_rows-0-feedback]")).to_have_value(
            "<i>Ja</i>, die einzige gerade."
        )
        expect(page.locator("h2").first).not_to_contain_text("<p>")
        expect(preview.locator(".exam-item__prompt b")).to_have_text("Primzahlen")
        expect(preview.locator(".exam-item__prompt li")).to_have_text("Tipp: Teiler prüfen")
        shot("gift-html-item")
        numerical = ExamItem.objects.get(module=empty, kind="numerical")
        page.goto(live_server.url + f"/admin/quizzes/examitem/{numerical.pk}/change/")
        expect(page.locator("fieldset.kind-numerical")).to_be_visible()
        expect(page.locator("fieldset.kind-single_choice")).to_be_hidden()
        expect(page.locator("input[name=number_rows-0-tolerance]")).to_have_value("0.01")
        expect(page.locator("input[name=number_rows-1-min]")).to_have_value("1.4")
        expect(preview.locator("input[inputmode=decimal]")).to_have_count(1)
        shot("gift-numerical-item")

        page.goto(live_server.url + "/admin/quizzes/examitem/gift-export/")
        page.get_by_label("Modul").select_option(empty.slug)
        with page.expect_download() as download_info:
            page.get_by_role("button", name="Herunterladen").click()
        download = download_info.value
        assert download.suggested_filename == f"{empty.slug}.gift"
        assert Path(download.path()).read_bytes() == EVERY_KIND.read_bytes()
        assert errors == []
    finally:
        context.close()
