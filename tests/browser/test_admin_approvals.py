"""The course admin's week, in real Chromium as the demo course admin ``kurs`` (German, 1280 and
375 px): a Windows-1252 term card imports with a notice, a PNG renamed .txt is refused by name,
deleting a step in the middle of the module and publishing keeps every approval, and undo gives
every review back exactly. At 375 px the preview names the items an import would send back for
review and warns in red when the approved bank would no longer fill a certifying attempt.
Screenshots of each page."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.conftest import SEED_DIR
from tests.factories import exam_bank_approve
from tests.helpers.browser import Shots, log_in
from tests.publishing.edits import (
    MIDDLE_STEP_ALONE,
    MIDDLE_STEP_DRAWN_ON,
    SEED_MODULE,
    seed_text,
    without_step,
)

pytestmark = pytest.mark.browser

CARD = "000_f1ef75877a9e6e7d.txt"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10" + bytes(range(256)) * 8
UPLOAD = "/admin/publishing/courseimport/upload/"


def _published_seed():
    from publishing.services import course_import_draft_create, course_import_publish

    files = [(p.name, p.read_bytes()) for p in sorted(SEED_DIR.glob("*.txt"))]
    draft, preview = course_import_draft_create(documents=files, user_id=None)
    return course_import_publish(
        course_import_id=draft.pk, fingerprint=preview.fingerprint, user_id=None
    )


def _reviews() -> dict[int, tuple]:
    from quizzes.models import ExamItem

    return {
        pk: (status, reviewer, at)
        for pk, status, reviewer, at in ExamItem.objects.values_list(
            "pk", "status", "reviewed_by_id", "reviewed_at"
        )
    }


def _write(directory, name: str, data: bytes):
    directory.mkdir(exist_ok=True)
    path = directory / name
    path.write_bytes(data)
    return path


def test_kurs_keeps_approvals_through_a_middle_step_and_gets_an_answer_for_every_upload(
    chromium, live_server, tmp_path, screenshot_dir
):
    from courses.models import Module
    from publishing.models import CourseImport, ImportDocument
    from quizzes.models import ExamItem, ExamPolicy

    first = _published_seed()
    call_command("demo_setup")  # the course admin "kurs"; the authored bank approved
    module = Module.objects.get(slug="self-hosting-27")
    exam_bank_approve(module)  # and the generated one, as a course admin would
    approved = ExamItem.objects.approved().count()
    assert approved == 119 + 35
    removed = module.steps.get(number=MIDDLE_STEP_ALONE)
    before = _reviews()

    cards = [p for p in sorted(SEED_DIR.glob("*.txt")) if p.name not in (SEED_MODULE, CARD)]
    card_text = (SEED_DIR / CARD).read_text(encoding="utf-8")
    windows_card = _write(tmp_path / "windows", CARD, card_text.encode("cp1252"))
    image = _write(tmp_path / "image", "begriffskarte.txt", PNG)
    module_text = seed_text(SEED_DIR)
    shorter = _write(
        tmp_path / "shorter",
        SEED_MODULE,
        without_step(module_text, MIDDLE_STEP_ALONE).encode("utf-8"),
    )
    drawn_on = _write(
        tmp_path / "drawn-on",
        SEED_MODULE,
        without_step(module_text, MIDDLE_STEP_DRAWN_ON).encode("utf-8"),
    )

    context = chromium.new_context(
        locale="de-DE", timezone_id="Europe/Berlin", viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    failed = []
    page.on("response", lambda r: failed.append((r.status, r.url)) if r.status >= 400 else None)
    shot = Shots(page, screenshot_dir, "admin-approvals")
    try:
        log_in(page, live_server.url + "/admin/login/", "kurs", "lernpfad-kurs-demo")

        # A term card saved by a Windows editor: imported, with a notice of the conversion.
        page.goto(live_server.url + UPLOAD)
        expect(page.locator(".import-dropzone-hint")).to_be_visible()
        page.locator("input[type=file]").set_input_files(
            [SEED_DIR / SEED_MODULE, windows_card, *cards]
        )
        page.get_by_role("button", name="Vorschau").click()
        expect(page.locator("h1")).to_contain_text("Vorschau des Imports")
        expect(page.locator(".import-converted")).to_contain_text(
            f"{CARD} war als Windows-1252 gespeichert, nicht als UTF-8"
        )
        expect(page.locator(".import-nothing")).to_be_visible()  # the same card, converted
        shot("windows-card-notice")
        assert ImportDocument.objects.get(name=CARD, course_import__status="draft").text == (
            card_text.replace("\r\n", "\n")
        )

        # An image renamed .txt: refused by its name, in German; nothing written.
        imports = CourseImport.objects.count()
        page.goto(live_server.url + UPLOAD)
        page.locator("input[type=file]").set_input_files([image])
        page.get_by_role("button", name="Vorschau").click()
        expect(page.locator("#import-problems")).to_contain_text(
            "begriffskarte.txt:1: kein Textdokument (Byte 0x89"
        )
        expect(page.locator(".import-problems")).to_contain_text("Nichts wurde geändert.")
        shot("image-refused")
        assert CourseImport.objects.count() == imports

        # Delete a step in the middle: steps 14 … 32 are renumbered, no approval is lost.
        page.goto(live_server.url + UPLOAD)
        page.locator("input[type=file]").set_input_files([shorter, *cards, SEED_DIR / CARD])
        page.get_by_role("button", name="Vorschau").click()
        section = page.locator("#module-self-hosting-27")
        expect(section.locator("tr.import-step[data-kind='retired']")).to_contain_text(removed.term)
        expect(section.locator(".import-exam")).to_contain_text(
            "0 geprüfte Fragen gehen zur erneuten Prüfung"
        )
        expect(section.locator(".import-returned")).to_have_count(0)
        expect(section.locator(".import-bank-below")).to_have_count(0)
        shot("middle-step-preview")
        page.get_by_role("button", name="Veröffentlichen").click()
        expect(page.locator(".messagelist")).to_contain_text("Veröffentlicht: self-hosting-27")
        shot("middle-step-published")
        # The step's generated items retire with it; the authored ones that name it by their
        # GIFT tag are the author's and keep their approval.
        own = ExamItem.objects.filter(step=removed)
        generated = own.exclude(generator_key=None)
        assert generated.count() == generated.filter(is_retired=True).count() == 3
        assert own.filter(generator_key=None).approved().count() == 2
        assert ExamItem.objects.approved().count() == approved - generated.count()
        assert _reviews() == before  # retired items keep their review too

        # Undo: the first import again; every review is as it was.
        page.goto(live_server.url + f"/admin/publishing/courseimport/{first.pk}/change/")
        page.get_by_role("button", name="Diese Version erneut veröffentlichen").click()
        expect(page.locator("tr.import-step[data-kind='added']")).to_contain_text(removed.term)
        shot("undo-preview")
        page.get_by_role("button", name="Veröffentlichen").click()
        expect(page.locator(".messagelist")).to_contain_text("Veröffentlicht")
        assert ExamItem.objects.approved().count() == approved
        assert _reviews() == before

        # On a phone: an import that would send approved items back names them and why, and
        # warns in red when the approved bank would fall below what an attempt draws.
        need = approved - 2
        ExamPolicy.objects.update_or_create(module=module, defaults={"items_per_attempt": need})
        phone = chromium.new_context(
            locale="de-DE",
            timezone_id="Europe/Berlin",
            viewport={"width": 375, "height": 800},
            is_mobile=True,
        )
        phone.add_cookies(context.cookies())
        page = phone.new_page()
        page.on("response", lambda r: failed.append((r.status, r.url)) if r.status >= 400 else None)
        shot = Shots(page, screenshot_dir, "admin-approvals-375")
        page.goto(live_server.url + UPLOAD)
        page.locator("input[type=file]").set_input_files([drawn_on, *cards, SEED_DIR / CARD])
        page.get_by_role("button", name="Vorschau").click()
        section = page.locator("#module-self-hosting-27")
        expect(section.locator(".import-bank-below")).to_contain_text(
            f"weniger als die {need}, die eine zertifizierende Prüfung zieht"
        )
        returned = section.locator("tr.import-returned-item")
        expect(returned).to_have_count(4)
        expect(returned.first).to_contain_text("Antwortoptionen")
        expect(returned.first).to_contain_text("freigegeben")
        shot("returned-items-and-warning")
        page.goto(live_server.url + UPLOAD)
        page.locator("input[type=file]").set_input_files([image])
        page.get_by_role("button", name="Vorschau").click()
        expect(page.locator("#import-problems")).to_contain_text("begriffskarte.txt:1:")
        shot("image-refused")
        phone.close()
        assert _reviews() == before  # a preview changes nothing

        upload = live_server.url + UPLOAD
        assert failed == [(400, upload), (400, upload)]
    finally:
        context.close()
