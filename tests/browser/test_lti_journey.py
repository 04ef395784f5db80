"""Lernpfad inside a learning platform, in Chromium with third-party cookies blocked.

The platform (tests/lti_platform, on lti1p3platform) runs at 127.0.0.1, Lernpfad at localhost:
two sites, so Lernpfad's pages in the platform's frame are third-party and the browser keeps no
cookie of theirs. The journey:

1. The platform admin pastes Lernpfad's registration URL (Dynamic Registration, in the
   platform's frame); a Lernpfad admin activates the platform in the German admin.
2. The teacher adds Lernpfad's final exam to the course (Deep Linking, in the frame).
3. The learner opens it in the frame: the log-in state goes through the platform's storage
   (postMessage), the launch card opens Lernpfad in a window of its own, logged in, on the exam.
4. The learner passes; a real Celery worker sends the score; the platform's gradebook has it.
5. Without platform storage, the frame offers a new window, where the whole start runs.

Screenshots: test-artifacts/screenshots/lti-*.png; the guides' pictures docs/assets/screens/lti-*.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import _missing
from tests.factories import exam_bank_approve, learner_create, steps_complete
from tests.helpers.browser import Shots, doc_shot, log_in
from tests.helpers.celery_worker import celery_worker_thread
from tests.helpers.waiting import wait_until
from tests.lti_platform.fixtures import lti_platform  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
# A start in the frame is several hops (log-in, the platform's storage, the platform's
# authorization, the launch, the storage again): more than expect()'s 5 s on a busy machine.
HOPS = 20_000

COURSE = "course-1"


@pytest.fixture
def blocking_browser(playwright):
    """Chromium that blocks third-party cookies (its switch for testing the phase-out)."""
    if not Path(CHROMIUM).exists():
        _missing(f"needs Chromium at {CHROMIUM} (apt-get install chromium)")
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--test-third-party-cookie-phaseout",
        ],
    )
    yield browser
    browser.close()


def new_page(browser, errors: list[str]):
    context = browser.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page


def tool_frame(page):
    return page.frame_locator("#lti-tool-frame")


def cookies_blocked_in(page) -> bool:
    """Whether the tool's frame can keep a cookie (it must not: third-party, blocked)."""
    frame = next(f for f in page.frames if f.url.startswith("http://localhost"))
    return not frame.evaluate(
        "() => { document.cookie = 'probe=1; path=/; SameSite=None; Secure';"
        " return document.cookie.includes('probe=1'); }"
    )


def where_the_start_stopped(page, platform) -> str:
    """The frames' addresses and text and the platform's storage log: what a start in the
    frame did before it stopped (the two full runs where it stopped left no trace)."""
    frames = [(frame.url, frame.content()[:1500]) for frame in page.frames]
    messages = platform.client.state()["storage_messages"]
    return json.dumps({"frames": frames, "storage_messages": messages}, indent=1)[:8000]


def test_a_course_in_the_platform_runs_lernpfad_and_gets_the_exam_score(
    blocking_browser,
    live_server,
    lti_platform,  # noqa: F811
    course,
    screenshot_dir,
    settings,
):
    from lti_tool.models import LtiRegistration, LtiUser

    settings.SITE_URL = base = live_server.url
    platform = lti_platform
    errors: list[str] = []

    # 1. Dynamic Registration: the platform admin pastes one URL.
    context, page = new_page(blocking_browser, errors)
    shots = Shots(page, screenshot_dir, "lti")
    page.goto(platform.client.register_page_url(base + "/lti/register/"))
    frame = page.frame_locator("#registration-frame")
    expect(frame.locator("h1")).to_contain_text("Lernpfad bei lernpfad-test-platform registrieren")
    shots("register-confirm")
    frame.get_by_role("button", name="Registrieren").click()
    expect(page.locator("#registration-status")).to_have_text("registered")
    expect(frame.locator("h1")).to_have_text("Lernpfad ist registriert")
    shots("registered")
    registration = LtiRegistration.objects.get(issuer=platform.url)
    assert registration.is_active is False

    # The Lernpfad admin activates the platform.
    learner_create("admin", is_staff=True, is_superuser=True)
    log_in(page, base + "/admin/login/", "admin")
    page.goto(f"{base}/admin/lti_tool/ltiregistration/{registration.pk}/change/")
    expect(page.locator("#content h2, #content h1").first).to_be_visible()
    page.get_by_label("aktiv").first.check()
    doc_shot(page, "lti-admin-registration-de")
    shots("admin-activate")
    page.get_by_role("button", name="Sichern", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("erfolgreich")
    registration.refresh_from_db()
    assert registration.is_active
    context.close()

    # 2. The teacher adds the final exam (Deep Linking, in the platform's frame).
    context, page = new_page(blocking_browser, errors)
    shots.page = page
    page.goto(platform.client.course_url(COURSE, user="teacher-1", storage="parent"))
    page.locator("#add-activity").click()
    frame = tool_frame(page)
    expect(frame.locator("h1")).to_have_text("Was soll dieser Link öffnen?", timeout=HOPS)
    assert cookies_blocked_in(page)
    frame.get_by_label("GPU, CUDA und Inferenzoptimierung – Abschlussprüfung").check()
    doc_shot(page, "lti-deep-link-de")
    shots("deep-link-picker")
    frame.get_by_role("button", name="Zum Kurs hinzufügen").click()
    expect(frame.locator("body")).to_contain_text("Activity added", timeout=HOPS)
    frame.locator("#back").click()
    row = page.locator("li.resource", has_text="Abschlussprüfung")
    expect(row).to_have_count(1)
    shots("exam-added")
    (column,) = platform.client.state()["line_items"].values()
    assert column["label"].endswith("Abschlussprüfung")  # the gradebook column, before any score
    context.close()

    # 3. The learner opens it in the frame; third-party cookies are blocked.
    context, page = new_page(blocking_browser, errors)
    shots.page = page
    page.goto(platform.client.course_url(COURSE, user="learner-1", storage="parent"))
    page.locator("li.resource", has_text="Abschlussprüfung").locator("a.launch").click()
    frame = tool_frame(page)
    opener = frame.get_by_role("link", name="Prüfung in Lernpfad öffnen")
    try:
        expect(opener).to_be_visible(timeout=HOPS)
    except AssertionError as missing:
        raise AssertionError(where_the_start_stopped(page, platform)) from missing
    assert cookies_blocked_in(page)
    subjects = [m.get("subject") for m in platform.client.state()["storage_messages"]]
    assert "lti.put_data" in subjects and "lti.get_data" in subjects, subjects
    doc_shot(page, "lti-launch-card-de")
    shots("launch-card")
    learner = LtiUser.objects.get(sub="learner-1").auth_user
    exam_bank_approve(course)
    steps_complete(learner, course)
    with context.expect_page() as opened:
        opener.click()
    lernpfad = opened.value
    expect(lernpfad).to_have_url(re.compile(r"/modules/self-hosting-27/exam/$"), timeout=HOPS)
    expect(lernpfad.locator("#exam-mode")).to_contain_text("Prüfung mit Zertifikat")
    Shots(lernpfad, screenshot_dir, "lti-window")("exam-page")

    # 4. The learner passes; the worker sends the score to the platform's gradebook.
    from quizzes.models import ExamAttemptItem

    with celery_worker_thread("lti-journey"):
        lernpfad.get_by_role("button", name="Prüfung starten").click()
        attempt_id = int(re.search(r"/exam/attempts/(\d+)/", lernpfad.url).group(1))
        for item_id, keys in ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list(
            "id", "correct_keys"
        ):
            for key in keys:
                lernpfad.locator(f"#item-{item_id}-{key}").check()
        expect(lernpfad.locator("#exam-save-status")).to_have_text("Alle Antworten gespeichert.")
        lernpfad.get_by_role("button", name="Prüfen und abgeben").click()
        lernpfad.get_by_role("button", name="Ja, jetzt abgeben").click()
        expect(lernpfad.locator("#exam-result")).to_contain_text("Bestanden")
        Shots(lernpfad, screenshot_dir, "lti-window")("exam-passed")
        wait_until(lambda: platform.client.score_posts(), what="the score on the platform")
    (post,) = platform.client.score_posts()
    assert post["status"] == 201 and post["body"]["userId"] == "learner-1"
    assert post["body"]["scoreGiven"] == 100
    context.close()

    # 5. A platform without storage: the frame offers a window of Lernpfad's own.
    context, page = new_page(blocking_browser, errors)
    shots.page = page
    page.goto(platform.client.course_url(COURSE, user="learner-2", storage="off"))
    page.locator("li.resource", has_text="Abschlussprüfung").locator("a.launch").click()
    frame = tool_frame(page)
    window_link = frame.get_by_role("link", name="Lernpfad in neuem Fenster öffnen")
    expect(window_link).to_be_visible(timeout=HOPS)
    doc_shot(page, "lti-new-window-de")
    shots("new-window-offer")
    with context.expect_page() as opened:
        window_link.click()
    second = opened.value
    expect(second).to_have_url(re.compile(r"/modules/self-hosting-27/exam/$"), timeout=HOPS)
    Shots(second, screenshot_dir, "lti-window")("learner-2-exam-page")
    assert LtiUser.objects.get(sub="learner-2").auth_user is not None
    context.close()
    assert not errors, errors
