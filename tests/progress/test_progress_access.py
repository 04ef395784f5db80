"""Access control of every personal endpoint, and a learner's whole journey with a real token.

A second learner never reads or changes the first one's data: their own view of the same URL
shows their own rows, and an object that is not theirs is a 404. Without log-in: 401.
"""

import re

import pytest
from django.core import mail
from django.core.cache import cache
from django.test import TestCase
from rest_framework.test import APIClient

from courses.models import Section
from progress.models import Enrollment, StepNote, StepProgress

# Completing here needs every section seen (the evidence rule: test_step_complete.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("completion_by_sections_only")]

MODULE = "/api/v1/modules/self-hosting-27/"
PASSWORD = "Ein-langes-Passwort-2026"


@pytest.fixture(autouse=True)
def _fresh_throttle():
    cache.clear()


def register(username: str, device: str = "phone") -> tuple[APIClient, dict]:
    """The mobile flow: register (202, a mail), confirm with the link's token, log in."""
    app = APIClient()
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = app.post(
            "/api/v1/auth/register/",
            {"username": username, "email": f"{username}@example.org", "password": PASSWORD},
            format="json",
        )
    assert response.status_code == 202, response.content
    (message,) = [m for m in mail.outbox if m.to == [f"{username}@example.org"]]
    token = re.search(r"/confirm-email/([^/\s]+)/", message.body)[1]
    confirmed = app.post("/api/v1/auth/email-confirmation/", {"token": token}, format="json")
    assert confirmed.status_code == 200, confirmed.content
    response = app.post(
        "/api/v1/auth/token/",
        {"username": username, "password": PASSWORD, "device_name": device},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    client = APIClient()
    client.default_format = "json"
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    return client, body


def kinds(number: int) -> list[str]:
    return list(
        Section.objects.filter(step__module__slug="self-hosting-27", step__number=number)
        .order_by("position")
        .values_list("kind", flat=True)
    )


def test_a_new_learner_registers_enrolls_and_works_through_steps(course):
    client, _ = register("mara")
    # A token from the log-in endpoint works the same.
    login = APIClient().post(
        "/api/v1/auth/token/",
        {"email": "mara@example.org", "password": PASSWORD, "device_name": "tablet"},
        format="json",
    )
    assert login.status_code == 200
    assert client.post(MODULE + "enrollment/").status_code == 201
    for number in (1, 2):
        assert client.get(MODULE + f"steps/{number}/").status_code == 200
        for kind in kinds(number):
            client.post(
                MODULE + f"steps/{number}/progress/",
                {"event": "section_viewed", "section": kind},
                format="json",
            )
        done = client.post(MODULE + f"steps/{number}/progress/", {"event": "completed"})
        assert done.json()["status"] == "completed"
    # Reading step 3 records nothing; the app says it opened it.
    assert client.get(MODULE + "steps/3/").status_code == 200
    assert client.get(MODULE + "progress/").json()["in_progress_steps"] == 0
    client.post(MODULE + "steps/3/progress/", {"event": "opened"}, format="json")
    progress = client.get(MODULE + "progress/").json()
    assert progress["percent_complete"] == 6
    assert (progress["completed_steps"], progress["in_progress_steps"]) == (2, 1)
    assert progress["next_step"]["number"] == 3
    outline = client.get(MODULE).json()
    assert [s["status"] for s in outline["outline"][:4]] == [
        "completed",
        "completed",
        "in_progress",
        "not_started",
    ]
    enrollments = client.get("/api/v1/enrollments/").json()["results"]
    assert enrollments[0]["percent_complete"] == 6


@pytest.fixture
def two_learners(course):
    """Lena with an enrollment, progress, a note and a synced event; Mara with nothing yet."""
    lena, lena_login = register("lena")
    mara, mara_login = register("mara")
    lena.post(MODULE + "enrollment/")
    lena.post(MODULE + "steps/1/progress/", {"event": "section_viewed", "section": "verstehen"})
    lena.put(MODULE + "steps/2/notes/", {"lernauftrag": "Lenas Notiz"}, format="json")
    sync = {
        "events": [
            {
                "client_event_id": "evt-1",
                "event": "opened",
                "module": "self-hosting-27",
                "step": 4,
                "occurred_at": "2026-01-05T10:00:00Z",
            }
        ]
    }
    assert lena.post("/api/v1/progress/sync/", sync, format="json").json()["counts"]["applied"]
    return lena, lena_login, mara, mara_login, sync


def test_another_learners_device_is_404(two_learners):
    lena, lena_login, mara, _, _ = two_learners
    response = mara.delete(f"/api/v1/auth/tokens/{lena_login['device_id']}/")
    assert response.status_code == 404
    assert lena.get("/api/v1/me/").status_code == 200
    assert [d["name"] for d in mara.get("/api/v1/auth/tokens/").json()] == ["phone"]
    assert mara.get("/api/v1/me/").json()["username"] == "mara"


def test_another_learners_enrollment_is_404(two_learners):
    _, _, mara, _, _ = two_learners
    assert mara.get(MODULE + "enrollment/").status_code == 404
    assert mara.delete(MODULE + "enrollment/").status_code == 404
    assert Enrollment.objects.filter(learner__username="lena").exists()
    assert mara.get("/api/v1/enrollments/").json()["count"] == 0


def test_another_learners_progress_is_neither_read_nor_changed(two_learners):
    _, _, mara, _, _ = two_learners
    assert mara.get(MODULE + "progress/").json()["error"]["code"] == "not_enrolled"
    response = mara.post(MODULE + "steps/1/progress/", {"event": "completed"})
    assert response.status_code == 404
    mara.post(MODULE + "enrollment/")
    body = mara.get(MODULE + "progress/").json()
    assert body["in_progress_steps"] == 0 and body["last_activity_at"] is None
    assert {s["status"] for s in mara.get(MODULE).json()["outline"]} == {"not_started"}
    mara.post(MODULE + "steps/1/progress/", {"event": "section_viewed", "section": "anwenden"})
    lena_row = StepProgress.objects.get(learner__username="lena", step__number=1)
    assert lena_row.sections_viewed == ["verstehen"]
    # Opening a step records it for the one who opened it only.
    opened = mara.post(MODULE + "steps/5/progress/", {"event": "opened"}, format="json")
    assert opened.status_code == 200
    assert StepProgress.objects.get(learner__username="mara", step__number=5).first_opened_at
    lena_5 = StepProgress.objects.get(learner__username="lena", step__number=5)
    assert lena_5.status == "not_started" and lena_5.first_opened_at is None


def test_another_learners_notes_stay_private(two_learners):
    _, _, mara, _, _ = two_learners
    assert mara.get(MODULE + "steps/2/notes/").status_code == 404
    mara.post(MODULE + "enrollment/")
    assert mara.get(MODULE + "steps/2/notes/").json()["lernauftrag"] == ""
    mara.put(MODULE + "steps/2/notes/", {"lernauftrag": "Maras Notiz"}, format="json")
    texts = dict(StepNote.objects.values_list("learner__username", "text"))
    assert texts == {"lena": "Lenas Notiz", "mara": "Maras Notiz"}


def test_client_event_ids_are_per_learner(two_learners):
    _, _, mara, _, sync = two_learners
    mara.post(MODULE + "enrollment/")
    # The same client event id from another learner is that learner's own event, not a replay.
    body = mara.post("/api/v1/progress/sync/", sync, format="json").json()
    assert body["results"][0]["status"] == "applied"
    opened = StepProgress.objects.filter(step__number=4, status="in_progress")
    assert sorted(opened.values_list("learner__username", flat=True)) == ["lena", "mara"]


PERSONAL = [
    ("get", "/api/v1/me/"),
    ("patch", "/api/v1/me/"),
    ("post", "/api/v1/auth/logout/"),
    ("post", "/api/v1/auth/logout-all/"),
    ("get", "/api/v1/auth/tokens/"),
    ("delete", "/api/v1/auth/tokens/1/"),
    ("get", "/api/v1/enrollments/"),
    ("get", MODULE + "enrollment/"),
    ("post", MODULE + "enrollment/"),
    ("delete", MODULE + "enrollment/"),
    ("get", MODULE + "progress/"),
    ("post", MODULE + "steps/1/progress/"),
    ("get", MODULE + "steps/1/notes/"),
    ("put", MODULE + "steps/1/notes/"),
    ("post", "/api/v1/progress/sync/"),
]


@pytest.mark.parametrize("method, url", PERSONAL)
def test_every_personal_endpoint_needs_log_in(two_learners, api_client, method, url):
    response = getattr(api_client, method)(url, {}, format="json")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_content_stays_public_and_records_nothing_anonymously(two_learners, api_client):
    before = StepProgress.objects.count()
    assert api_client.get(MODULE).json()["progress"] is None
    assert api_client.get(MODULE + "steps/7/").status_code == 200
    assert StepProgress.objects.count() == before
