"""The completion gate: the exam opens once the policy's share of the module's steps is done.

The pure rule (``quizzes.eligibility.step_gate``) at the share's edges; the service and the API
with the seed module (32 steps), retired steps, the start refusal's detail; the exam page's
list of missing steps with links; the dashboard of a learner who studied nothing.
"""

from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client

from quizzes.eligibility import StepState, exam_eligibility, step_gate
from tests.factories import steps_complete

NOW = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)


def steps(total: int, done: int) -> list[StepState]:
    return [
        StepState(number=n, slug=f"s{n}", term=f"T{n}", completed=n <= done)
        for n in range(1, total + 1)
    ]


@pytest.mark.parametrize(
    ("share", "total", "done", "required", "open_"),
    [
        (0, 32, 0, 0, True),  # 0 %: no step needed
        (50, 32, 15, 16, False),
        (50, 32, 16, 16, True),
        (50, 5, 2, 3, False),  # half of 5 is 2.5: rounded up
        (50, 5, 3, 3, True),
        (100, 32, 31, 32, False),
        (100, 32, 32, 32, True),
        (1, 32, 0, 1, False),  # any share above 0 needs at least one step
        (100, 0, 0, 0, True),  # a module without steps has nothing to require
    ],
)
def test_gate_share_edges(share, total, done, required, open_):
    gate = step_gate(required_share=share, steps=steps(total, done))
    assert (gate.required, gate.completed, gate.total, gate.open) == (required, done, total, open_)
    # While closed it lists every step not completed, in order; once open, none.
    expected = [n for n in range(done + 1, total + 1)] if not open_ else []
    assert [step.number for step in gate.missing] == expected


def test_gate_is_one_reason_among_all_with_its_message():
    closed = step_gate(required_share=100, steps=steps(4, 1))
    result = exam_eligibility(
        now=NOW,
        enrolled=False,
        steps=closed,
        attempts=[],
        certifying=True,
        max_attempts=3,
        wait=datetime.timedelta(0),
        final_passed=False,
        full_name_given=True,
    )
    assert [r.code for r in result.reasons] == ["not_enrolled", "steps_incomplete"]
    # In the default language (German): the reason messages are translated (issue 16).
    assert "1 von 4" in result.reasons[1].message and result.steps is closed
    partial = step_gate(required_share=50, steps=steps(4, 1))
    message = (
        exam_eligibility(
            now=NOW,
            enrolled=True,
            steps=partial,
            attempts=[],
            certifying=True,
            max_attempts=3,
            wait=datetime.timedelta(0),
            final_passed=False,
            full_name_given=True,
        )
        .reasons[0]
        .message
    )
    assert "mindestens 2 der 4 Schritte" in message and "noch 1" in message


# --- the seed module through the API ------------------------------------------------------------


@pytest.fixture
def newcomer(make_learner, enroll, client_for, bank):
    """Enrolled, nothing studied (the learner of issue 14: 0 of 32 steps)."""
    learner = make_learner("neu")
    enroll(learner, steps_done=False)
    return learner, client_for(learner)


def test_a_learner_who_studied_nothing_is_refused_with_every_missing_step(newcomer, course):
    from quizzes.models import ExamAttempt

    _learner, client = newcomer
    response = client.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "steps_incomplete"
    detail = error["detail"]
    assert (detail["steps_required"], detail["steps_completed"]) == (32, 0)
    assert [s["number"] for s in detail["missing_steps"]] == list(range(1, 33))
    assert detail["missing_steps"][0] == {"number": 1, "slug": "gpu-compute", "term": "GPU compute"}
    assert not ExamAttempt.objects.exists()

    overview = client.get("/api/v1/modules/self-hosting-27/exam/").json()
    assert overview["eligibility"]["can_start"] is False
    assert overview["eligibility"]["steps"]["required"] == 32
    assert len(overview["eligibility"]["steps"]["missing"]) == 32
    assert overview["policy"]["required_step_share"] == 100


def test_a_lowered_share_opens_the_exam_at_that_share(newcomer, course, exam, policy):
    learner, client = newcomer
    policy.required_step_share = 50
    policy.save()
    steps_complete(learner, course, count=15)
    refused = client.post("/api/v1/modules/self-hosting-27/exam/attempts/").json()["error"]
    assert refused["detail"]["steps_required"] == 16
    assert len(refused["detail"]["missing_steps"]) == 32 - 15
    steps_complete(learner, course, count=16)
    exam.start(client)


def test_zero_share_needs_no_step(newcomer, exam, policy):
    _learner, client = newcomer
    policy.required_step_share = 0
    policy.save()
    exam.start(client)


def test_retired_steps_do_not_count(newcomer, course, exam):
    """A step that left the course is neither required nor counted as done."""
    from courses.models import Step

    learner, client = newcomer
    steps_complete(learner, course, count=31)
    # Steps 1-31 are done; step 1 is then retired: 30 of the 31 active steps count as done.
    Step.objects.filter(module=course, number=1).update(status="retired")
    body = client.get("/api/v1/modules/self-hosting-27/exam/").json()["eligibility"]["steps"]
    assert (body["required"], body["completed"], body["total"]) == (31, 30, 31)
    assert [s["number"] for s in body["missing"]] == [32]
    steps_complete(learner, course)  # the active steps, 32 among them: the retired one is not
    exam.start(client)


# --- the pages ---------------------------------------------------------------------------------


def test_the_exam_page_says_what_is_missing_and_links_each_step(newcomer, course):
    learner, _client = newcomer
    steps_complete(learner, course, count=30)
    web = Client()
    web.force_login(learner)
    html = web.get("/modules/self-hosting-27/exam/").content.decode()
    assert "Schließe jeden Schritt des Moduls ab, bevor du die Prüfung beginnst" in html
    assert "(30 von 32 abgeschlossen)" in html
    links = re.findall(r'<a href="(/modules/self-hosting-27/steps/\d+/)">(\d+)\.', html)
    assert links == [
        ("/modules/self-hosting-27/steps/31/", "31"),
        ("/modules/self-hosting-27/steps/32/", "32"),
    ]
    assert "Prüfung starten" not in html
    english = web.get("/modules/self-hosting-27/exam/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Steps still to complete" in english


def test_the_dashboard_of_a_learner_who_studied_nothing_shows_no_passed_exam(newcomer):
    """Issue 14: "0 % · Prüfung: bestanden (100 %)" — the gate makes that impossible."""
    learner, client = newcomer
    refused = client.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert refused.status_code == 409
    web = Client()
    web.force_login(learner)
    html = web.get("/").content.decode()
    assert "0 von 32 Schritten abgeschlossen" in html
    assert "bestanden" not in html
    assert "Prüfung: <a" in html and "offen nach 32 weiteren Schritten" in html
