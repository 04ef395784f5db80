"""Issue 28's learner pages in Chromium, German and English, 1280 and 375 px, axe-core on each.

A new learner signs up and confirms the address through the dev outbox of ``make run`` (mail
in files, /dev/outbox/), studies (steps, cards and notes through the factories), fails an
attempt and reads a result page that names the steps to review, their due cards and when the
next attempt opens; then the notes page (searched) and the statistics page, which at 375 px
fits without sideways scrolling. Screenshots: test-artifacts/screenshots/help-<lang>-<width>-*.
"""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from tests.browser.axe import AxeAudit, axe_path
from tests.browser.test_learner_pages_journey import ENGLISH, GERMAN, Visit, Words
from tests.web.conftest import PASSWORD
from tests.web.test_web_learner_page_fixes import _review_logs
from web.views.dev_outbox import FILE_BACKEND

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MODULE = "/modules/self-hosting-27/"
TEXTS = {
    "de": {
        "failed": "Nicht bestanden",
        "study": "Was du vor dem nächsten Versuch wiederholen solltest",
        "missed": "Die verpassten Fragen stammen aus diesen Schritten:",
        "next": "Der nächste Versuch ist möglich am",
        "review_due": re.compile(r"fälligen? Karten? dieser Schritte wiederholen"),
        "notes": "Meine Notizen",
        "search": "Suchen",
        "recalled": "Gewusst in den letzten 30 Tagen",
    },
    "en": {
        "failed": "Not passed",
        "study": "What to review before the next attempt",
        "missed": "The questions you missed came from these steps:",
        "next": "The next attempt opens on",
        "review_due": re.compile(r"Review the \d+ due cards? of these steps"),
        "notes": "My notes",
        "search": "Search",
        "recalled": "Recalled in the last 30 days",
    },
}


def _study(username: str, course) -> None:
    """What the learner did between sign-up and the exam: enrolled, every step completed with
    its review cards, two notes, reviews of the last days; the bank approved, and a policy that
    shows correctness at once and waits an hour between attempts."""
    from accounts.models import User
    from progress.services.enrollment import enrollment_create
    from progress.services.notes import step_notes_put
    from quizzes.models import ExamPolicy
    from reviews.api import cards_for_step_ensure
    from tests.factories import exam_bank_approve, steps_complete

    learner = User.objects.get(username=username)
    enrollment_create(learner_id=learner.pk, module_slug=course.slug)
    steps_complete(learner, course)
    now = timezone.now()
    for step in course.steps.all():
        cards_for_step_ensure(learner_id=learner.pk, step_id=step.pk, at=now)
    _review_logs(learner, course, passed=17, failed=6)
    step_notes_put(
        learner_id=learner.pk,
        module_slug=course.slug,
        number=1,
        notes={"lernauftrag": "nvidia-smi zeigt 23 GB belegt"},
    )
    step_notes_put(
        learner_id=learner.pk,
        module_slug=course.slug,
        number=4,
        notes={"praxisaufgabe": "Batchgröße halbiert: kein OOM mehr"},
    )
    exam_bank_approve(course)
    ExamPolicy.objects.filter(module=course).update(
        review_timing="immediately", wait_between_attempts_minutes=60
    )


def sign_up_through_the_dev_outbox(page: Page, base: str, w: Words, seen, *, username: str):
    """Sign up as a new learner, read the confirmation mail in the dev outbox of ``make run``
    (/dev/outbox/: the test's settings send mail to files, as ``make run`` does), follow its
    link, confirm and log in. ``seen(name)`` takes the outbox page's screenshot and audit."""
    page.goto(base + "/signup/")
    page.get_by_label(w.username, exact=True).fill(username)
    page.get_by_label(w.email).fill(f"{username}@example.org")
    page.get_by_label(w.full_name).fill(f"{username.title()} Lernende")
    page.get_by_label(w.password, exact=True).fill(PASSWORD)
    page.get_by_label(w.password_again).fill(PASSWORD)
    page.locator("main").get_by_role("button", name=w.signup).click()
    page.goto(base + "/dev/outbox/")
    mail = page.locator(".outbox-mail").filter(has_text=f"{username}@example.org")
    expect(mail).to_have_count(1)
    expect(page.locator(".messages")).to_have_count(0)
    seen("dev-outbox")
    mail.locator("a[href*='/confirm-email/']").click()
    page.locator("main").get_by_role("button", name=w.confirm_address).click()
    page.get_by_label(w.login_field).fill(username)
    page.get_by_label(w.password, exact=True).fill(PASSWORD)
    page.locator("main").get_by_role("button", name=w.log_in).click()
    expect(page.get_by_role("link", name=re.compile("Self-Hosting 27")).first).to_be_visible()


def mail_to_files(settings, folder) -> None:
    """Mail as ``make run`` sends it: to files in ``folder``, shown at /dev/outbox/ (DEBUG)."""
    settings.DEBUG = True
    settings.EMAIL_BACKEND = FILE_BACKEND
    settings.EMAIL_FILE_PATH = str(folder)


def journey(page: Page, base: str, w: Words, seen: Visit, *, username: str, width: int, course):
    t = TEXTS[w.code]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "response",
        lambda r: (
            errors.append(f"{r.status} {r.url}")
            if r.status >= 400 and not r.url.endswith("/favicon.ico")
            else None
        ),
    )

    sign_up_through_the_dev_outbox(page, base, w, seen, username=username)
    _study(username, course)

    # A failed attempt (submitted without answers) and its result page.
    page.goto(base + MODULE + "exam/")
    page.get_by_role("button", name=w.start_exam).click()
    page.get_by_role("button", name=w.review_and_submit).click()
    page.get_by_role("button", name=w.submit_now).click()
    expect(page.locator("#exam-result")).to_contain_text(t["failed"])
    plan = page.locator("#study-plan")
    expect(plan.get_by_role("heading", level=2)).to_have_text(t["study"])
    expect(plan).to_contain_text(t["missed"])
    expect(plan.locator(".study-steps a").first).to_have_attribute(
        "href", re.compile(r"/modules/self-hosting-27/steps/\d+/$")
    )
    # The review it links shows the due cards of those steps first.
    expect(plan.get_by_role("link", name=t["review_due"])).to_have_attribute(
        "href", re.compile(r"^/review/\?steps=\d+")
    )
    expect(page.locator("#next-attempt")).to_contain_text(t["next"])
    # The breadcrumb names the module.
    expect(page.locator(".breadcrumb li").first).to_contain_text("GPU, CUDA")
    seen("result-failed")

    # My notes, then a search.
    if width > 375:
        page.locator(".site-nav").get_by_role("link", name=t["notes"]).click()
    else:
        page.goto(base + "/my/notes/")
    expect(page.locator(".note-entry")).to_have_count(2)
    seen("notes")
    page.get_by_label(re.compile("Notizen durchsuchen|Search my notes")).fill("OOM")
    page.locator("main").get_by_role("button", name=t["search"]).click()
    expect(page.locator(".note-entry")).to_have_count(1)
    expect(page.locator(".note-entry a")).to_have_attribute(
        "href", f"{MODULE}steps/4/#note-praxisaufgabe"
    )
    seen("notes-searched")

    # Statistics: one "recalled" figure with its period; no sideways scroll on a phone.
    page.goto(base + "/stats/")
    expect(page.locator(".stat-list")).to_contain_text(t["recalled"])
    expect(page.locator("#stat-recalled")).to_have_text("74 %")
    seen("stats")
    if width <= 375:
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not errors, errors


@pytest.mark.parametrize(
    ("words", "width"),
    [(GERMAN, 1280), (GERMAN, 375), (ENGLISH, 1280), (ENGLISH, 375)],
    ids=["de-1280", "de-375", "en-1280", "en-375"],
)
def test_a_failed_attempt_says_what_to_review_and_the_pages_fit(
    chromium, live_server, course, screenshot_dir, settings, tmp_path, words, width
):
    axe_path()
    settings.SITE_URL = live_server.url
    mail_to_files(settings, tmp_path)
    phone = width <= 375
    context = chromium.new_context(
        locale=words.locale,
        viewport={"width": width, "height": 812 if phone else 900},
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
        bypass_csp=True,
    )
    page = context.new_page()
    audit = AxeAudit()
    try:
        journey(
            page,
            live_server.url,
            words,
            Visit(page, screenshot_dir, f"help-{words.code}-{width}", audit, docs=False),
            username=f"hilfe{words.code}{width}",
            width=width,
            course=course,
        )
    finally:
        context.close()
    assert len(audit.pages) == 5
    audit.assert_clean()
