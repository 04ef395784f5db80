"""The exam page's autosave keeps the learner's latest answers, however slow the network.

Each save sends every answer of the attempt. Two saves in flight at once can reach the server
in the other order, and then the older answers overwrite the newer ones while the page says
"all saved". On a busy machine that happened by itself now and then (the journey test in
test_learner_journey.py then scored below 100); here the first save is held back on purpose
until the learner has answered the rest.
"""

from __future__ import annotations

import time

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from tests.factories import learner_create, steps_complete

pytestmark = pytest.mark.browser

MODULE = "self-hosting-27"
ALL_SAVED = "Alle Antworten gespeichert."


def test_a_slow_first_save_does_not_overwrite_the_answers_given_after_it(
    chromium, live_server, course, screenshot_dir
):
    from progress.services.enrollment import enrollment_create
    from quizzes.models import ExamAttemptItem

    learner = learner_create("lena")
    enrollment_create(learner_id=learner.pk, module_slug=MODULE)
    steps_complete(learner, course)  # the completion gate open; a practice exam is enough here
    client = Client()
    client.force_login(learner)
    attempt_url = client.post(f"/modules/{MODULE}/exam/start/")["Location"]
    attempt_id = int(attempt_url.rstrip("/").rsplit("/", 1)[1])
    save_path = reverse("exam-attempt-answers", args=[attempt_id])
    keys = dict(
        ExamAttemptItem.objects.filter(attempt_id=attempt_id)
        .order_by("position")
        .values_list("id", "correct_keys")
    )
    assert len(keys) > 2

    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    held, in_flight, finished = [], [], []

    def hold_the_first_save(route):
        if not held:
            held.append(route)  # answered below, once the learner has answered the rest
        else:
            route.continue_()

    page.route(lambda url: url.endswith(save_path), hold_the_first_save)
    page.on("request", lambda r: in_flight.append(r) if r.url.endswith(save_path) else None)

    def done(request):
        if request in in_flight:
            in_flight.remove(request)
            finished.append(request)

    page.on("requestfinished", done)
    page.on("requestfailed", done)
    status = page.locator("#exam-save-status")
    try:
        page.goto(live_server.url + attempt_url)
        first, *rest = keys.items()
        for key in first[1]:
            page.locator(f"#item-{first[0]}-{key}").check()
        _wait(page, lambda: held, "the first save")

        for item_id, correct in rest:
            for key in correct:
                page.locator(f"#item-{item_id}-{key}").check()
        # Time for another save to go out and come back (the page waits 400 ms after a change).
        _wait(page, lambda: finished, "", timeout=3.0, required=False)
        said_saved_too_early = status.text_content() == ALL_SAVED

        held[0].continue_()
        _wait(page, lambda: not in_flight, "every save to come back", timeout=30.0)
        expect(status).to_have_text(ALL_SAVED)
        page.screenshot(path=screenshot_dir / "exam-autosave-after-a-slow-save.png")
        stored = dict(
            ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list("id", "selected_keys")
        )
        assert {item_id: set(selected or ()) for item_id, selected in stored.items()} == {
            item_id: set(correct) for item_id, correct in keys.items()
        }
        assert not said_saved_too_early, "all saved, while the first save was still out"
    finally:
        context.close()


def _wait(page, condition, what: str, *, timeout: float = 15.0, required: bool = True) -> None:
    """Let the page run until ``condition()`` holds (Playwright's callbacks run meanwhile)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            assert not required, f"timed out after {timeout} s waiting for {what}"
            return
        page.wait_for_timeout(50)
