"""A new learner goes through the course in a real browser, in German and in English on a phone.

Sign up, confirm the address with the mailed link, log in, enroll, read step 1 (copy the
command), rate a quick check, mark the step complete, review a due card with the keyboard
(Space, 3, u), take and pass the exam (answers autosaved through the REST API), open the
certificate and its public verification page. Every page is saved as a screenshot under
test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import pytest
from django.core import mail
from playwright.sync_api import Page, expect

from tests.helpers.browser import Shots, log_in
from tests.web.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@dataclass(frozen=True)
class Language:
    code: str
    locale: str
    signup: str
    username: str
    email: str
    full_name: str
    password: str
    password_again: str
    submit_signup: str
    check_mail: str
    confirm_address: str
    confirmed: str
    login_field: str
    log_in: str
    welcome: str
    enroll: str
    start_step_1: str
    show_answer: str
    knew_it: str
    rating_saved: str
    mark_complete: str
    completed: str
    next_step: str
    review: str
    rated_good: str
    undone: str
    start_exam: str
    all_saved: str
    review_and_submit: str
    submit_now: str
    passed: str
    open_certificate: str
    certificate: str


GERMAN = Language(
    code="de",
    locale="de-DE",
    signup="Registrieren",
    username="Benutzername",
    email="E-Mail-Adresse",
    full_name="Vor- und Nachname",
    password="Passwort",
    password_again="Passwort wiederholen",
    submit_signup="Registrieren",
    check_mail="Sieh in deine E-Mails",
    confirm_address="Meine Adresse bestätigen",
    confirmed="Deine E-Mail-Adresse ist bestätigt.",
    login_field="Benutzername oder E-Mail-Adresse",
    log_in="Anmelden",
    welcome="Willkommen bei Lernpfad!",
    enroll="In dieses Modul einschreiben",
    start_step_1="Mit Schritt 1 beginnen",
    show_answer="Antwort zeigen",
    knew_it="Gewusst",
    rating_saved="Deine Einschätzung ist gespeichert.",
    mark_complete="Schritt abschließen und weiter",
    completed="Schritt abgeschlossen.",
    next_step="Nächster Schritt",
    review="Wiederholen",
    rated_good="Bewertet mit „Gut“.",
    undone="Die letzte Bewertung ist rückgängig gemacht.",
    start_exam="Prüfung starten",
    all_saved="Alle Antworten gespeichert.",
    review_and_submit="Prüfen und abgeben",
    submit_now="Ja, jetzt abgeben",
    passed="Bestanden",
    open_certificate="Dein Zertifikat öffnen",
    certificate="Zertifikat",
)

ENGLISH = Language(
    code="en",
    locale="en-GB",
    signup="Sign up",
    username="User name",
    email="E-mail address",
    full_name="Full name (first and last name)",
    password="Password",
    password_again="Password again",
    submit_signup="Sign up",
    check_mail="Check your e-mail",
    confirm_address="Confirm my address",
    confirmed="Your e-mail address is confirmed.",
    login_field="User name or e-mail address",
    log_in="Log in",
    welcome="Welcome to Lernpfad!",
    enroll="Enroll in this module",
    start_step_1="Begin with step 1",
    show_answer="Show the answer",
    knew_it="I knew it",
    rating_saved="Your rating is saved.",
    mark_complete="Complete step and continue",
    completed="Step completed.",
    next_step="Next step",
    review="Review",
    rated_good="Rated “Good”.",
    undone="The last review is undone.",
    start_exam="Start the exam",
    all_saved="All answers saved.",
    review_and_submit="Review and submit",
    submit_now="Yes, submit now",
    passed="Passed",
    open_certificate="Open your certificate",
    certificate="Certificate",
)


def step_term(number: int) -> str:
    from courses.models import Step

    return Step.objects.get(number=number, status="active").term


def correct_keys_of(attempt_id: int) -> dict[int, list[str]]:
    """The answer key, read from the database: the page itself never carries it."""
    from quizzes.models import ExamAttemptItem

    return {
        item_id: keys
        for item_id, keys in ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list(
            "id", "correct_keys"
        )
    }


def sections_seen(username: str, number: int) -> None:
    """Under the "sections seen" rule with no minimum time, the evidence of step ``number``."""
    from django.contrib.auth import get_user_model

    from courses.models import Module
    from progress import api as progress_api
    from tests.factories import step_evidence_leave

    module = Module.objects.get(slug="self-hosting-27")
    progress_api.completion_rule_set(module_id=module.pk, rule="sections", reading_time_share=0)
    learner = get_user_model().objects.get(username=username)
    step_evidence_leave(learner, module.slug, number, quick_checks=False)


def study_the_rest_and_approve_the_bank(username: str) -> None:
    from accounts.models import User
    from courses.models import Module
    from tests.factories import exam_bank_approve, steps_complete

    module = Module.objects.get(slug="self-hosting-27")
    steps_complete(User.objects.get(username=username), module)
    exam_bank_approve(module)


def clipboard_soon(page: Page, expected: str = "nvidia-smi", timeout: float = 5.0) -> str:
    """The clipboard's text once it is ``expected``, or as it is after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    text = page.evaluate("navigator.clipboard.readText()")
    while text != expected and time.monotonic() < deadline:
        page.wait_for_timeout(50)
        text = page.evaluate("navigator.clipboard.readText()")
    return text


def main_nav_link(page: Page, name: str):
    """A link of the main navigation; on a phone it is in the header's menu, opened first."""
    menu = page.locator(".site-menu")
    if menu.is_visible() and menu.get_attribute("open") is None:
        menu.locator("summary").click()
    return page.get_by_role("navigation").get_by_role("link", name=name, exact=True)


def journey(page: Page, base: str, lang: Language, shots: Shots, *, username: str) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # Browsers ask every site for /favicon.ico; the certificate verification page (quizzes app)
    # names no icon, so that one 404 is expected.
    page.on(
        "response",
        lambda response: (
            errors.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico")
            else None
        ),
    )

    # Start page; keyboard users get the skip link first.
    page.goto(base + "/")
    expect(page.locator("html")).to_have_attribute("lang", lang.code)
    shots("home")
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()

    # Sign up.
    main_nav_link(page, lang.signup).click()
    page.get_by_label(lang.username, exact=True).fill(username)
    page.get_by_label(lang.email).fill(f"{username}@example.org")
    # The name the certificate will state (optional here; the exam asks for it otherwise).
    page.get_by_label(lang.full_name).fill(f"{username.title()} Lernende")
    page.get_by_label(lang.password, exact=True).fill(PASSWORD)
    page.get_by_label(lang.password_again).fill(PASSWORD)
    shots("signup")
    page.locator("main").get_by_role("button", name=lang.submit_signup).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(lang.check_mail)
    shots("signup-sent")

    # Confirm the address with the mailed link (a button: opening the link changes nothing),
    # then log in.
    (message,) = [m for m in mail.outbox if m.to == [f"{username}@example.org"]]
    link = re.search(r"https?://\S+/confirm-email/\S+/", message.body)[0]
    assert link.startswith(base)
    page.goto(link)
    shots("confirm-email")
    page.locator("main").get_by_role("button", name=lang.confirm_address).click()
    expect(page.locator(".messages")).to_contain_text(lang.confirmed)
    expect(page.locator(".messages")).to_contain_text(lang.welcome)
    shots("confirmed-login")
    page.get_by_label(lang.login_field).fill(username)
    page.get_by_label(lang.password, exact=True).fill(PASSWORD)
    page.locator("main").get_by_role("button", name=lang.log_in).click()
    expect(page.get_by_role("link", name=re.compile("Self-Hosting 27"))).to_be_visible()
    shots("dashboard-new")

    # Enroll from the module page.
    page.get_by_role("link", name=re.compile("Self-Hosting 27")).click()
    shots("module")
    page.get_by_role("button", name=lang.enroll).click()
    expect(page.locator("#module-progress")).to_be_visible()
    shots("module-enrolled")

    # Read step 1; copy its command.
    page.get_by_role("link", name=re.compile(re.escape(lang.start_step_1))).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("GPU compute")
    expect(page.get_by_role("heading", name="1. Verstehen")).to_be_visible()
    copy = page.locator(".copy-button").first
    expect(copy).to_be_visible()
    copy.click()
    # The page writes the clipboard asynchronously: a read right after the click could come first
    # on a busy machine, so read until the write is done (Playwright's wait_for_function would
    # take the pending read, a Promise, for true).
    assert clipboard_soon(page) == "nvidia-smi"
    shots("step-1")

    # A quick check: reveal with the keyboard, then rate. The step's first one repeats its
    # definition, so the rating is the definition card's first review; the lines every step
    # shares are reflection prompts without a rating.
    # "Was ist der Zweck?" is asked as the rated quick check, not again for reflection.
    expect(page.locator(".reflection-prompt")).to_have_count(4)
    first_check = page.locator(".quick-check").first
    summary = first_check.get_by_text(lang.show_answer)
    summary.focus()
    page.keyboard.press("Enter")
    expect(first_check.locator(".quick-check__answer")).to_be_visible()
    first_check.get_by_role("button", name=lang.knew_it).click()
    expect(page.locator(".messages")).to_contain_text(lang.rating_saved)
    expect(
        page.locator(".quick-check").first.get_by_role("button", name=lang.knew_it)
    ).to_have_attribute("aria-pressed", "true")
    shots("quick-check-rated")

    # Mark the step complete (keyboard: focus the button, Enter). This journey is not about the
    # completion rule (test_completion_journey.py is): the module asks for the sections seen.
    sections_seen(username, 1)
    page.get_by_role("button", name=lang.mark_complete).focus()
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text(lang.completed)
    shots("step-1-completed")
    # Completing went on to step 2. Step 1's only card was just rated (due again in minutes):
    # complete step 2 for a due card.
    expect(page.get_by_role("heading", level=1)).to_have_text(step_term(2))
    sections_seen(username, 2)
    page.get_by_role("button", name=lang.mark_complete).click()
    expect(page.locator(".messages")).to_contain_text(lang.completed)

    # Review a due card with the keyboard only: Space reveals, 3 rates Good, u undoes.
    main_nav_link(page, lang.review).click()
    expect(page.locator("#review-front")).to_be_visible()
    expect(page.locator("#review-front")).to_have_text(step_term(2))  # names its term
    expect(page.locator(".review-card__context")).to_contain_text("GPU, CUDA und Inferenz")
    expect(page.locator("#review-back")).to_be_hidden()
    # Every rating button names its next interval.
    shots("review-front")
    page.keyboard.press(" ")
    expect(page.locator("#review-back")).to_be_visible()
    for rating in "1234":
        expect(page.locator(f"[data-rating='{rating}'] .interval")).not_to_be_empty()
    shots("review-back")
    front = page.locator("#review-front").inner_text()
    page.keyboard.press("3")
    expect(page.locator(".messages")).to_contain_text(lang.rated_good)
    page.keyboard.press("u")
    expect(page.locator(".messages")).to_contain_text(lang.undone)
    expect(page.locator("#review-front")).to_have_text(front)
    page.keyboard.press(" ")
    page.keyboard.press("3")
    expect(page.locator(".messages")).to_contain_text(lang.rated_good)
    shots("review-after")

    # The exam: start, answer (autosaved through the API), confirm, pass. It opens once every
    # step is completed and certifies from an approved bank: the other 31 steps are completed
    # and the bank approved through the factories (tests/browser/test_exam_journey.py clicks
    # through the gate).
    study_the_rest_and_approve_the_bank(username)
    page.goto(base + "/modules/self-hosting-27/exam/")
    shots("exam-policy")
    page.get_by_role("button", name=lang.start_exam).click()
    expect(page.locator("#exam-time-left")).to_have_text(re.compile(r"^(19|20):\d\d$"))
    html = page.content()
    assert "correct_keys" not in html and "is_correct" not in html
    attempt_id = int(re.search(r"/exam/attempts/(\d+)/", page.url).group(1))
    keys = correct_keys_of(attempt_id)
    for item_id, correct in keys.items():
        for key in correct:
            page.locator(f"#item-{item_id}-{key}").check()
    expect(page.locator("#exam-save-status")).to_have_text(lang.all_saved)
    shots("exam-attempt")
    page.get_by_role("button", name=lang.review_and_submit).click()
    shots("exam-confirm")
    page.get_by_role("button", name=lang.submit_now).click()
    expect(page.locator("#exam-result")).to_contain_text(lang.passed)
    expect(page.locator("#exam-result")).to_contain_text("100")
    shots("exam-result")

    # The certificate, and its public verification page.
    page.get_by_role("link", name=lang.open_certificate).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(lang.certificate)
    expect(page.locator(".certificate")).to_contain_text("GPU, CUDA und Inferenzoptimierung")
    shots("certificate")
    page.locator(".certificate a").click()
    expect(page.get_by_text("GPU, CUDA und Inferenzoptimierung")).to_be_visible()
    shots("certificate-public")

    # The remaining pages render for this learner.
    for path, name in (("/", "dashboard"), ("/stats/", "stats"), ("/settings/", "settings")):
        page.goto(base + path)
        shots(name)
    assert not errors, errors


def test_new_learner_goes_through_the_course_in_german(
    chromium, live_server, course, screenshot_dir, settings
):
    settings.SITE_URL = live_server.url  # certificate links are absolute
    context = chromium.new_context(
        locale=GERMAN.locale,
        viewport={"width": 1280, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    )
    page = context.new_page()
    try:
        journey(page, live_server.url, GERMAN, Shots(page, screenshot_dir, "de"), username="jana")
    finally:
        context.close()


def test_same_journey_in_english_on_a_phone(
    chromium, live_server, course, screenshot_dir, settings
):
    settings.SITE_URL = live_server.url
    context = chromium.new_context(
        locale=ENGLISH.locale,
        viewport={"width": 375, "height": 812},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        permissions=["clipboard-read", "clipboard-write"],
    )
    page = context.new_page()
    try:
        # The browser asks for English and gets it; the switch in the header works both ways.
        page.goto(live_server.url + "/")
        expect(page.locator("html")).to_have_attribute("lang", "en")
        # On a phone the switch is in the header's menu.
        page.get_by_text("Menu", exact=True).click()
        page.get_by_label("Language").select_option("de")
        page.get_by_role("button", name="Switch").click()
        expect(page.locator("html")).to_have_attribute("lang", "de")
        page.get_by_text("Menü", exact=True).click()
        page.get_by_label("Sprache").select_option("en")
        page.get_by_role("button", name="Wechseln").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        journey(
            page, live_server.url, ENGLISH, Shots(page, screenshot_dir, "en-phone"), username="sam"
        )
        # Nothing is wider than the phone's screen.
        for path in (
            "/",
            "/modules/self-hosting-27/",
            "/modules/self-hosting-27/steps/1/",
            "/review/",
            "/stats/",
            "/settings/",
        ):
            page.goto(live_server.url + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, (path, width)
        from accounts.models import User

        assert User.objects.get(username="sam").language == "en"
    finally:
        context.close()


def test_pages_work_without_javascript(chromium, live_server, course, screenshot_dir):
    """Progressive enhancement: with JavaScript off, reading, completing and reviewing work."""
    from progress import api as progress_api
    from progress.services.enrollment import enrollment_create
    from tests.factories import learner_register

    learner = learner_register("nojs", password=PASSWORD)
    enrollment_create(learner_id=learner.pk, module_slug=course.slug)
    # The sections, without a minimum time (the strict rule is test_completion_journey.py's);
    # the quick check stays unrated, so step 1's card is due in the review below.
    progress_api.completion_rule_set(module_id=course.pk, rule="sections", reading_time_share=0)
    context = chromium.new_context(java_script_enabled=False, locale="de-DE")
    page = context.new_page()
    shots = Shots(page, screenshot_dir, "nojs")
    try:
        log_in(page, live_server.url + "/login/", "nojs", PASSWORD)
        page.goto(live_server.url + "/modules/self-hosting-27/steps/1/")
        expect(page.locator(".copy-button").first).to_be_hidden()
        page.locator(".quick-check summary").first.click()
        expect(page.locator(".quick-check__answer").first).to_be_visible()
        # Section by section: the button under each records it (no script reports them).
        sections = page.locator("form.section-read button")
        for index in range(sections.count()):
            page.locator("form.section-read button").nth(index).click()
        page.get_by_role("button", name="Schritt abschließen").click()
        expect(page.locator(".messages")).to_contain_text("Schritt abgeschlossen.")
        page.goto(live_server.url + "/review/")
        # Without the script the answer waits behind a <details> (the script's reveal button
        # stays hidden), and the keyboard hints, which need the script, are not shown.
        expect(page.locator("#review-back")).to_be_hidden()
        expect(page.locator("#review-reveal")).to_be_hidden()
        expect(page.locator("#review-keys")).to_be_hidden()
        shots("review")
        page.locator("[data-review-details] summary").click()
        expect(page.locator("#review-back")).to_be_visible()
        shots("review-back")
        page.locator("[data-rating='3']").click()
        expect(page.locator(".messages")).to_contain_text("Bewertet mit „Gut“.")
    finally:
        context.close()
