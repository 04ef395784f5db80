"""The whole learner journey in Chromium, at 1280 px and at 375 px, in German and in English,
with axe-core on every page.

Sign up, confirm the address, log in, the module overview, enroll, read step 1 and write both
notes (one save), rate a quick check, complete steps 1 and 2, review by keyboard (Space, 3, u),
the statistics (due now as the review page counts it), the settings (German number format, the
time-zone picker, daily limits), the data export (a download), the keyboard help, the exam and
the certificate, and last the account deletion (a wrong password first). Every page is saved as
a screenshot under test-artifacts/screenshots/ (``journey-<language>-<width>-NN-<page>.png``)
and checked with axe-core (tests/browser/axe.py): a serious or critical violation on any page
fails the test.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest
from django.core import mail
from playwright.sync_api import Page, expect

from tests.browser.axe import AxeAudit, axe_path
from tests.browser.test_learner_journey import (
    correct_keys_of,
    sections_seen,
    study_the_rest_and_approve_the_bank,
)
from tests.helpers.browser import doc_shot
from tests.web.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MODULE = "/modules/self-hosting-27/"


@dataclass(frozen=True)
class Words:
    code: str
    locale: str
    signup: str
    username: str
    email: str
    full_name: str
    password: str
    password_again: str
    confirm_address: str
    login_field: str
    log_in: str
    enroll: str
    notes_saved: str
    knew_it: str
    show_answer: str
    completed: str
    review: str
    rated_good: str
    undone: str
    undo: str
    space: str
    due_now: str
    retention: str
    retention_typed: str
    retention_shown: str
    new_cards: str
    time_zone: str
    save_settings: str
    settings_saved: str
    download: str
    start_exam: str
    all_saved: str
    review_and_submit: str
    submit_now: str
    passed: str
    open_certificate: str
    delete_account: str
    delete_confirm: str
    wrong_password: str
    deleted: str


GERMAN = Words(
    code="de",
    locale="de-DE",
    signup="Registrieren",
    username="Benutzername",
    email="E-Mail-Adresse",
    full_name="Vor- und Nachname",
    password="Passwort",
    password_again="Passwort wiederholen",
    confirm_address="Meine Adresse bestätigen",
    login_field="Benutzername oder E-Mail-Adresse",
    log_in="Anmelden",
    enroll="In dieses Modul einschreiben",
    notes_saved="Deine Notizen sind gespeichert.",
    knew_it="Gewusst",
    show_answer="Antwort zeigen",
    completed="Schritt abgeschlossen.",
    review="Wiederholen",
    rated_good="Bewertet mit „Gut“.",
    undone="Die letzte Bewertung ist rückgängig gemacht.",
    undo="Letzte Bewertung rückgängig",
    space="Leertaste",
    due_now="jetzt fällig",
    retention="Gewünschte Behaltensquote",
    retention_typed="0,85",
    retention_shown="0,85",
    new_cards="Neue Karten pro Tag",
    time_zone="Zeitzone",
    save_settings="Einstellungen speichern",
    settings_saved="Deine Einstellungen sind gespeichert.",
    download="Meine Daten herunterladen",
    start_exam="Prüfung starten",
    all_saved="Alle Antworten gespeichert.",
    review_and_submit="Prüfen und abgeben",
    submit_now="Ja, jetzt abgeben",
    passed="Bestanden",
    open_certificate="Dein Zertifikat öffnen",
    delete_account="Mein Konto löschen",
    delete_confirm="Mein Konto und meine Daten löschen",
    wrong_password="Das Passwort stimmt nicht. Es wurde nichts gelöscht.",
    deleted="Dein Konto ist gelöscht",
)

ENGLISH = Words(
    code="en",
    locale="en-GB",
    signup="Sign up",
    username="User name",
    email="E-mail address",
    full_name="Full name (first and last name)",
    password="Password",
    password_again="Password again",
    confirm_address="Confirm my address",
    login_field="User name or e-mail address",
    log_in="Log in",
    enroll="Enroll in this module",
    notes_saved="Your notes are saved.",
    knew_it="I knew it",
    show_answer="Show the answer",
    completed="Step completed.",
    review="Review",
    rated_good="Rated “Good”.",
    undone="The last review is undone.",
    undo="Undo last review",
    space="Space",
    due_now="due now",
    retention="Desired retention",
    retention_typed="0.85",
    retention_shown="0.85",
    new_cards="New cards per day",
    time_zone="Time zone",
    save_settings="Save settings",
    settings_saved="Your settings are saved.",
    download="Download my data",
    start_exam="Start the exam",
    all_saved="All answers saved.",
    review_and_submit="Review and submit",
    submit_now="Yes, submit now",
    passed="Passed",
    open_certificate="Open your certificate",
    delete_account="Delete my account",
    delete_confirm="Delete my account and my data",
    wrong_password="The password is not correct. Nothing was deleted.",
    deleted="Your account is deleted",
)


class Visit:
    """Screenshot and axe audit of each page the journey shows; with ``docs``, the pages named
    with ``doc=`` are also saved as the learner guide's pictures (``doc_shot``)."""

    def __init__(self, page: Page, directory, prefix: str, audit: AxeAudit, *, docs: bool):
        self.page, self.directory, self.prefix, self.audit = page, directory, prefix, audit
        self.count, self.docs = 0, docs

    def __call__(self, name: str, *, doc: str | None = None, element=None) -> None:
        self.count += 1
        self.page.wait_for_load_state("load")
        path = self.directory / f"{self.prefix}-{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        if self.docs and doc is not None:
            doc_shot(self.page, doc, element=element)
        self.audit(self.page, name)


def notes_section(page: Page):
    """The step page's last section with a note field (its prompt, the note, the save button)."""
    return page.locator("section:has(textarea[data-note])").last


def complete_button(page: Page):
    """The step's complete button ("Schritt abschließen", or "… and continue" with a next
    step): found by what it sends, so its wording may change."""
    return page.locator("button[name='event'][value='completed']")


def journey(page: Page, base: str, w: Words, seen: Visit, *, username: str, width: int) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "response",
        lambda response: (
            errors.append(f"{response.status} {response.url}")
            if response.status >= 400
            and not response.url.endswith("/favicon.ico")
            # The wrong password of the deletion form is the one 4xx page on purpose.
            and "/settings/delete/" not in response.url
            else None
        ),
    )

    page.goto(base + "/")
    expect(page.locator("html")).to_have_attribute("lang", w.code)
    seen("home")

    # Sign up, confirm the address with the mailed link, log in.
    page.goto(base + "/signup/")
    page.get_by_label(w.username, exact=True).fill(username)
    page.get_by_label(w.email).fill(f"{username}@example.org")
    page.get_by_label(w.full_name).fill(f"{username.title()} Lernende")
    page.get_by_label(w.password, exact=True).fill(PASSWORD)
    page.get_by_label(w.password_again).fill(PASSWORD)
    seen("signup")
    page.locator("main").get_by_role("button", name=w.signup).click()
    seen("signup-sent")
    (message,) = [m for m in mail.outbox if m.to == [f"{username}@example.org"]]
    page.goto(re.search(r"https?://\S+/confirm-email/\S+/", message.body)[0])
    seen("confirm-email")
    page.locator("main").get_by_role("button", name=w.confirm_address).click()
    seen("login")
    page.get_by_label(w.login_field).fill(username)
    page.get_by_label(w.password, exact=True).fill(PASSWORD)
    page.locator("main").get_by_role("button", name=w.log_in).click()
    expect(page.get_by_role("link", name=re.compile("Self-Hosting 27")).first).to_be_visible()
    seen("dashboard-new")

    # The module overview; enroll.
    page.get_by_role("link", name=re.compile("Self-Hosting 27")).first.click()
    seen("module")
    page.get_by_role("button", name=w.enroll).click()
    expect(page.locator("#module-progress")).to_be_visible()
    seen("module-enrolled", doc=f"learner-module-{w.code}")

    # Step 1: both notes written, one save keeps both.
    page.locator(f"a.button[href$='{MODULE}steps/1/']").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("GPU compute")
    notes = page.locator("textarea[data-note]")
    assert notes.count() >= 2
    for index in range(notes.count()):
        notes.nth(index).fill(f"Notiz {index + 1} von {username}")
    seen("step-1-notes-typed", doc=f"learner-notes-{w.code}", element=notes_section(page))
    page.get_by_role("button", name=re.compile("Notizen speichern|Save notes")).first.click()
    expect(page.locator(".messages")).to_contain_text(w.notes_saved)
    notes = page.locator("textarea[data-note]")
    for index in range(notes.count()):
        expect(notes.nth(index)).to_have_value(f"Notiz {index + 1} von {username}")

    # A quick check, revealed with the keyboard and rated; the step completed by keyboard.
    first_check = page.locator(".quick-check").first
    first_check.get_by_text(w.show_answer).focus()
    page.keyboard.press("Enter")
    expect(first_check.locator(".quick-check__answer")).to_be_visible()
    first_check.get_by_role("button", name=w.knew_it).click()
    seen("step-1-quick-check", doc=f"learner-quick-check-{w.code}", element=first_check)
    # This journey is not about the completion rule (test_completion_journey.py is): the
    # module asks for the sections seen, left here as a reader scrolling would leave them.
    sections_seen(username, 1)
    complete_button(page).focus()
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text(w.completed)
    seen("step-1-completed", doc=f"learner-step-{w.code}")
    page.goto(base + MODULE + "steps/2/")
    sections_seen(username, 2)
    complete_button(page).click()
    expect(page.locator(".messages")).to_contain_text(w.completed)
    page.goto(base + MODULE)
    seen("module-two-done")

    # Review by keyboard: no undo before the first review of the day, the key named in the
    # page's language.
    page.goto(base + "/review/")
    expect(page.locator("#review-front")).to_be_visible()
    expect(page.locator("#review-undo")).to_have_count(0)
    expect(page.locator("#review-reveal kbd")).to_have_text(w.space)
    count_text = page.locator("#review-count").inner_text()
    due_now = int(re.search(r"(\d+)", count_text).group(1))
    assert w.due_now in count_text
    seen("review-front", doc=f"learner-review-front-{w.code}")
    page.keyboard.press(" ")
    expect(page.locator("#review-back")).to_be_visible()
    seen("review-back", doc=f"learner-review-back-{w.code}")
    front = page.locator("#review-front").inner_text()
    page.keyboard.press("3")
    expect(page.locator(".messages")).to_contain_text(w.rated_good)
    expect(page.locator("#review-undo")).to_contain_text(w.undo)
    page.keyboard.press("u")
    expect(page.locator(".messages")).to_contain_text(w.undone)
    expect(page.locator("#review-front")).to_have_text(front)
    seen("review-undone")

    # Statistics: "due now" is the review page's number.
    if width <= 375:  # the phone's header keeps the navigation behind its menu button
        page.locator(".site-menu__button").click()
    page.locator(".site-nav").get_by_role("link", name=re.compile("Statistik|Statistics")).click()
    expect(page.locator("#stat-due-now")).to_have_text(str(due_now))
    expect(page.locator(".chart--heatmap")).to_be_visible()
    box = page.locator(".chart--heatmap").bounding_box()
    assert box["width"] >= min(width - 48, 400), box  # large, not a thumbnail
    seen("stats", doc=f"learner-stats-{w.code}")

    # Settings: the retention in the page's number format, the zone from the picker, a limit.
    page.goto(base + "/settings/")
    retention = page.get_by_label(w.retention)
    expect(retention).to_have_value("0,90" if w.code == "de" else "0.90")
    retention.fill(w.retention_typed)
    page.get_by_label(w.time_zone).select_option("Europe/Vienna")
    page.get_by_label(w.new_cards).fill("12")
    seen("settings", doc=f"learner-settings-{w.code}")
    page.get_by_role("button", name=w.save_settings).click()
    expect(page.locator(".messages")).to_contain_text(w.settings_saved)
    expect(page.get_by_label(w.retention)).to_have_value(w.retention_shown)
    expect(page.get_by_label(w.time_zone)).to_have_value("Europe/Vienna")
    expect(page.get_by_label(w.new_cards)).to_have_value("12")
    seen("settings-saved")

    # The data export: a JSON download with the notes written above.
    with page.expect_download() as download_info:
        page.get_by_role("link", name=w.download).click()
    download = download_info.value
    assert download.suggested_filename == f"lernpfad-{username}.json"
    with open(download.path(), encoding="utf-8") as handle:
        export = json.load(handle)
    assert export["account"]["username"] == username
    assert export["account"]["time_zone"] == "Europe/Vienna"
    assert f"Notiz 1 von {username}" in json.dumps(export, ensure_ascii=False)

    page.goto(base + "/help/keyboard/")
    expect(page.locator("main kbd").filter(has_text=w.space).first).to_be_visible()
    seen("keyboard-help")

    # The exam, once every step is done (the other 30 through the factories), and the
    # certificate.
    study_the_rest_and_approve_the_bank(username)
    page.goto(base + MODULE + "exam/")
    seen("exam-policy", doc=f"learner-exam-{w.code}")
    page.get_by_role("button", name=w.start_exam).click()
    attempt_id = int(re.search(r"/exam/attempts/(\d+)/", page.url).group(1))
    for item_id, correct in correct_keys_of(attempt_id).items():
        for key in correct:
            page.locator(f"#item-{item_id}-{key}").check()
    expect(page.locator("#exam-save-status")).to_have_text(w.all_saved)
    seen("exam-attempt", doc=f"learner-exam-attempt-{w.code}")
    page.get_by_role("button", name=w.review_and_submit).click()
    seen("exam-confirm")
    page.get_by_role("button", name=w.submit_now).click()
    expect(page.locator("#exam-result")).to_contain_text(w.passed)
    seen("exam-result", doc=f"learner-exam-result-{w.code}")
    page.get_by_role("link", name=w.open_certificate).click()
    seen("certificate", doc=f"learner-certificate-{w.code}")
    page.goto(base + "/")
    seen("dashboard", doc=f"learner-dashboard-{w.code}")

    # The account deletion: a wrong password deletes nothing, the right one everything.
    page.goto(base + "/settings/")
    page.get_by_role("link", name=w.delete_account).click()
    seen("delete", doc=f"learner-delete-{w.code}")
    page.get_by_label(w.password, exact=False).fill("not-the-password")
    page.get_by_role("button", name=w.delete_confirm).click()
    expect(page.locator("main")).to_contain_text(w.wrong_password)
    seen("delete-wrong-password")
    page.get_by_label(w.password, exact=False).fill(PASSWORD)
    page.get_by_role("button", name=w.delete_confirm).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(w.deleted)
    seen("deleted")
    from accounts.models import User

    assert not User.objects.filter(username=username).exists()
    if width <= 375:
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not errors, errors


@pytest.mark.parametrize(
    ("words", "width"),
    [(GERMAN, 1280), (ENGLISH, 375), (GERMAN, 375), (ENGLISH, 1280)],
    ids=["de-1280", "en-375", "de-375", "en-1280"],
)
def test_the_whole_learner_journey_passes_axe_on_every_page(
    chromium, live_server, course, screenshot_dir, settings, words, width
):
    axe_path()  # fails (CI) or skips before anything runs when npm install was not run
    settings.SITE_URL = live_server.url
    phone = width <= 375
    context = chromium.new_context(
        locale=words.locale,
        viewport={"width": width, "height": 812 if phone else 900},
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
        accept_downloads=True,
        # axe.min.js goes in as an inline script, which the pages' CSP (rightly) refuses.
        bypass_csp=True,
    )
    page = context.new_page()
    audit = AxeAudit()
    prefix = f"journey-{words.code}-{width}"
    try:
        journey(
            page,
            live_server.url,
            words,
            Visit(page, screenshot_dir, prefix, audit, docs=width == 1280),
            username=f"{words.code}{width}",
            width=width,
        )
    finally:
        context.close()
    assert len(audit.pages) >= 25
    audit.assert_clean()


def test_the_audit_fails_on_a_serious_violation(chromium):
    """The audit above can fail: a nameless button and an image without text are critical."""
    axe_path()
    context = chromium.new_context(bypass_csp=True)
    page = context.new_page()
    try:
        page.set_content(
            '<!doctype html><html lang="en"><head><title>t</title></head><body><main>'
            '<h1>Broken</h1><img src="data:,"><button type="button"></button></main></body></html>'
        )
        audit = AxeAudit()
        audit(page, "broken")
        found = {v["id"] for v in audit.found["broken (about:blank)"]}
        assert {"image-alt", "button-name"} <= found
        with pytest.raises(AssertionError, match="button-name"):
            audit.assert_clean()
    finally:
        context.close()
