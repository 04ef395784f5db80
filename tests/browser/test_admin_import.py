"""A course admin brings a changed module in through the admin, in real Chromium: upload the
seed module with one step's text changed, one removed and one added → the preview shows exactly
those and the learners affected → publish → a learner's progress on unchanged steps is intact
and the removed step retired → publishing the earlier version from the history brings the step
back. A broken document shows its file:line errors and changes no row. Screenshots of each page.

The course admin is a staff user in the group "Kursverwaltung" (accounts/roles.py), as the demo
course admin of ``make run`` is; not a superuser."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from tests.conftest import SEED_DIR
from tests.factories import learner_create
from tests.helpers.browser import doc_shot, log_in
from tests.publishing.edits import ADDED_TERM, SEED_MODULE, broken_seed, edited_seed, seed_text

pytestmark = pytest.mark.browser

T = "2026-01-01T00:00Z"


def _course_admin():
    from accounts.roles import COURSE_ADMIN_GROUP, course_admin_group_sync

    # A live-server test flushes the tables after it, the group's rows too: made again here.
    course_admin_group_sync()
    user = learner_create("kursadmin", is_staff=True)
    user.groups.add(Group.objects.get(name=COURSE_ADMIN_GROUP))
    return user


def _published_seed():
    from publishing.services import course_import_draft_create, course_import_publish

    files = [(p.name, p.read_bytes()) for p in sorted(SEED_DIR.glob("*.txt"))]
    draft, preview = course_import_draft_create(documents=files, user_id=None)
    return course_import_publish(
        course_import_id=draft.pk, fingerprint=preview.fingerprint, user_id=None
    )


def test_course_admin_imports_previews_publishes_and_undoes(
    chromium, live_server, tmp_path, screenshot_dir
):
    from courses.models import Module, Section, Step
    from progress.models import StepProgress
    from publishing.models import CourseImport

    first = _published_seed()
    module = Module.objects.get(slug="self-hosting-27")
    unchanged, removed, changed = (module.steps.get(number=n) for n in (1, 3, 5))
    learner = learner_create("lena")
    for step in (unchanged, removed, changed):
        StepProgress.objects.create(
            learner=learner, step=step, status="completed", completed_at=T, updated_at=T
        )
    _course_admin()
    edited = tmp_path / "edited" / SEED_MODULE
    edited.parent.mkdir()
    edited.write_text(edited_seed(seed_text(SEED_DIR)), encoding="utf-8")
    cards = [p for p in sorted(SEED_DIR.glob("*.txt")) if p.name != SEED_MODULE]
    broken = tmp_path / "broken" / SEED_MODULE
    broken.parent.mkdir()
    broken.write_text(broken_seed(seed_text(SEED_DIR)), encoding="utf-8")

    context = chromium.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    console_errors = []
    page.on(
        "console",
        lambda m: (
            console_errors.append((m.text, m.location.get("url"))) if m.type == "error" else None
        ),
    )
    failed = []
    page.on("response", lambda r: failed.append((r.status, r.url)) if r.status >= 400 else None)

    def shot(name: str, *, doc: str | None = None) -> None:
        page.screenshot(path=screenshot_dir / f"admin-import-{name}.png", full_page=True)
        if doc is not None:
            doc_shot(page, doc)

    try:
        log_in(page, live_server.url + "/admin/login/", "kursadmin")
        page.goto(live_server.url + "/admin/courses/module/")
        shot("01-modules")
        page.get_by_role("link", name="Import documents").click()
        expect(page.locator("h1")).to_contain_text("Import documents")
        # The drop zone's script shows its hint once it runs (DOMContentLoaded): files set
        # before that would be listed by its first pass, but wait so the list is its work.
        expect(page.locator(".import-dropzone-hint")).to_be_visible()
        page.locator("input[type=file]").set_input_files([edited, *cards])
        expect(page.locator("[data-chosen] li")).to_have_count(4)  # the drop zone's list
        shot("02-upload", doc="admin-import-upload-en")
        page.get_by_role("button", name="Preview").click()

        # The preview: exactly one added, one changed, one retired; the rest renumbered.
        expect(page.locator("h1")).to_contain_text("Preview of import")
        counts = page.locator("#module-self-hosting-27 .import-counts td")
        expect(counts).to_have_text(["1", "1", "28", "2", "1"])
        rows = page.locator("#module-self-hosting-27 tr.import-step")
        expect(rows.locator("xpath=self::*[@data-kind='added']")).to_have_count(1)
        expect(page.locator("tr.import-step[data-kind='added']")).to_contain_text(ADDED_TERM)
        changed_row = page.locator("tr.import-step[data-kind='changed']")
        expect(changed_row).to_contain_text("Compute capability")
        expect(changed_row.locator("td").nth(3)).to_have_text("1")  # lena's progress
        retired_row = page.locator("tr.import-step[data-kind='retired']")
        expect(retired_row).to_contain_text(removed.term)
        expect(retired_row.locator("td").nth(3)).to_have_text("1")
        diff = page.locator(".import-diff-line")
        expect(diff.filter(has_text="Schritt 5 / 32")).to_have_attribute("data-sign", "-")
        expect(diff.filter(has_text="Schritt 4 / 32")).to_have_attribute("data-sign", "+")
        # The lead and "1. Verstehen" both start with the changed sentence.
        expect(diff.filter(has_text="unterstützten Hardwarefunktionen")).to_have_count(2)
        expect(diff.filter(has_text="die Hardwarefunktionen einer")).to_have_count(2)
        for line in diff.filter(has_text="unterstützten Hardwarefunktionen").all():
            expect(line).to_have_attribute("data-sign", "-")
        for line in diff.filter(has_text="die Hardwarefunktionen einer").all():
            expect(line).to_have_attribute("data-sign", "+")
        shot("03-preview", doc="admin-import-preview-en")
        page.get_by_role("button", name="Publish").click()
        expect(page.locator(".messagelist")).to_contain_text("Published: self-hosting-27")
        shot("04-published")

        removed.refresh_from_db()
        assert removed.status == Step.Status.RETIRED
        assert StepProgress.objects.get(learner=learner, step=unchanged).status == "completed"
        assert StepProgress.objects.filter(step=removed).count() == 1  # kept, on a retired step
        assert Step.objects.active().filter(module=module, slug="gpu-partitionierung").exists()

        # Undo: publish the first import again from the history.
        page.goto(live_server.url + "/admin/publishing/courseimport/")
        expect(page.locator("#result_list tbody tr")).to_have_count(2)
        shot("05-history", doc="admin-import-history-en")
        page.goto(live_server.url + f"/admin/publishing/courseimport/{first.pk}/change/")
        expect(page.locator(".import-documents")).to_contain_text(SEED_MODULE)
        shot("06-history-detail")
        page.get_by_role("button", name="Publish this version again").click()
        expect(page.locator("tr.import-step[data-kind='added']")).to_contain_text(removed.term)
        expect(page.locator("tr.import-step[data-kind='added']")).to_contain_text("brought back")
        expect(page.locator("tr.import-step[data-kind='retired']")).to_contain_text(ADDED_TERM)
        shot("07-undo-preview", doc="admin-import-undo-en")
        page.get_by_role("button", name="Publish").click()
        expect(page.locator(".messagelist")).to_contain_text("Published")
        removed.refresh_from_db()
        assert removed.status == Step.Status.ACTIVE and removed.number == 3
        assert StepProgress.objects.get(learner=learner, step=removed).status == "completed"

        # A broken document: its file:line errors, and no row changed.
        before = (
            Step.objects.count(),
            Section.objects.count(),
            CourseImport.objects.count(),
            list(Step.objects.order_by("pk").values_list("pk", "status", "content_hash")),
        )
        page.goto(live_server.url + "/admin/publishing/courseimport/upload/")
        page.locator("input[type=file]").set_input_files([broken])
        page.get_by_role("button", name="Preview").click()
        expect(page.locator("#import-problems")).to_contain_text(f"{SEED_MODULE}:393:")
        expect(page.locator(".import-problems")).to_contain_text("Nothing was changed.")
        shot("08-broken", doc="admin-import-broken-en")
        after = (
            Step.objects.count(),
            Section.objects.count(),
            CourseImport.objects.count(),
            list(Step.objects.order_by("pk").values_list("pk", "status", "content_hash")),
        )
        assert after == before

        # The same workspace for a German admin (same session, German browser).
        german = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
        german.add_cookies(context.cookies())
        page = german.new_page()
        page.goto(live_server.url + "/admin/publishing/courseimport/upload/")
        expect(page.locator("h1")).to_have_text("Dokumente importieren")
        page.locator("input[type=file]").set_input_files([edited, *cards])
        page.get_by_role("button", name="Vorschau").click()
        expect(page.locator("h1")).to_contain_text("Vorschau des Imports")
        expect(page.locator("tr.import-step[data-kind='retired']")).to_contain_text("stillgelegt")
        shot("09-preview-de", doc="admin-import-preview-de")
        german.close()
        # Nothing blocked by the CSP, no script error; the one failed response is the 400 of
        # the broken upload itself.
        assert failed == [(400, live_server.url + "/admin/publishing/courseimport/upload/")]
        # (Chromium asks for /favicon.ico, which the site does not serve.)
        assert [
            e for e in console_errors if "status of 400" not in e[0] and "favicon" not in e[1]
        ] == []
    finally:
        context.close()
