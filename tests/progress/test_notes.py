"""GET/PUT /api/v1/modules/{module}/steps/{number}/notes/: private notes per writing prompt."""

import pytest
from rest_framework.test import APIClient

from courses.services.importing import course_import
from progress.models import NOTE_MAX_LENGTH, StepNote
from tests.factories import api_client_for
from tests.helpers.queries import assert_queries_constant

pytestmark = pytest.mark.django_db

NOTES = "/api/v1/modules/self-hosting-27/steps/{}/notes/"


def client_for(user, *, enroll_in=("self-hosting-27",)) -> APIClient:
    client = api_client_for(user)
    for module in enroll_in:
        assert client.post(f"/api/v1/modules/{module}/enrollment/").status_code == 201
    return client


@pytest.fixture
def client(course, lena):
    return client_for(lena)


def test_notes_start_empty(client):
    body = client.get(NOTES.format(2)).json()
    assert body == {
        "module": "self-hosting-27",
        "number": 2,
        "praxisaufgabe": "",
        "lernauftrag": "",
        "updated_at": None,
    }


def test_put_and_get_notes(client, lena):
    text = "CUDA ist die Plattform, mit der Programme auf der GPU rechnen.\nBeispiel: PyTorch."
    response = client.put(
        NOTES.format(2), {"praxisaufgabe": text, "lernauftrag": "Kerndefinition."}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["praxisaufgabe"] == text
    body = client.get(NOTES.format(2)).json()
    assert body["praxisaufgabe"] == text and body["lernauftrag"] == "Kerndefinition."
    assert body["updated_at"] is not None
    assert StepNote.objects.filter(learner=lena, step__number=2).count() == 2


def test_a_prompt_left_out_stays_and_an_empty_one_is_deleted(client, lena):
    client.put(NOTES.format(3), {"praxisaufgabe": "A", "lernauftrag": "B"}, format="json")
    body = client.put(NOTES.format(3), {"lernauftrag": "B2"}, format="json").json()
    assert (body["praxisaufgabe"], body["lernauftrag"]) == ("A", "B2")
    body = client.put(NOTES.format(3), {"praxisaufgabe": "  "}, format="json").json()
    assert (body["praxisaufgabe"], body["lernauftrag"]) == ("", "B2")
    assert list(StepNote.objects.values_list("prompt", flat=True)) == ["lernauftrag"]


def test_notes_are_per_step(client):
    client.put(NOTES.format(4), {"lernauftrag": "Schritt vier"}, format="json")
    assert client.get(NOTES.format(5)).json()["lernauftrag"] == ""


def test_notes_are_private(client, make_learner, lena):
    client.put(NOTES.format(2), {"lernauftrag": "Geheim"}, format="json")
    mara = client_for(make_learner("mara"))
    assert mara.get(NOTES.format(2)).json()["lernauftrag"] == ""
    mara.put(NOTES.format(2), {"lernauftrag": "Maras Text"}, format="json")
    assert client.get(NOTES.format(2)).json()["lernauftrag"] == "Geheim"
    assert StepNote.objects.get(learner=lena).text == "Geheim"


@pytest.mark.parametrize(
    "data, code",
    [
        ({"lernauftrag": "x" * (NOTE_MAX_LENGTH + 1)}, "invalid"),
        ({}, "invalid"),
        ({"tagebuch": "x"}, "invalid"),
        ({"lernauftrag": ["eine", "Liste"]}, "invalid"),
        ({"lernauftrag": None}, "invalid"),
    ],
)
def test_bad_notes_are_400_and_write_nothing(client, data, code):
    response = client.put(NOTES.format(2), data, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not StepNote.objects.exists()


def test_the_longest_note_fits(client):
    text = "ä" * NOTE_MAX_LENGTH
    assert client.put(NOTES.format(2), {"lernauftrag": text}, format="json").status_code == 200
    assert client.get(NOTES.format(2)).json()["lernauftrag"] == text


def test_a_step_without_the_prompt_takes_no_note_for_it(lena, module_document):
    # The small test document has neither "Optionale Praxisaufgabe" nor "Lernauftrag".
    course_import(paths=[module_document()])
    client = client_for(lena, enroll_in=["homelab-3"])
    url = "/api/v1/modules/homelab-3/steps/1/notes/"
    response = client.put(url, {"lernauftrag": "x"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "prompt_not_in_step"
    assert response.json()["error"]["detail"] == {"prompts": ["lernauftrag"]}


def test_notes_need_enrollment_and_an_existing_step(course, lena, client):
    client.delete("/api/v1/modules/self-hosting-27/enrollment/")
    for method in ("get", "put"):
        response = getattr(client, method)(NOTES.format(2), {"lernauftrag": "x"}, format="json")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_enrolled"
    client.post("/api/v1/modules/self-hosting-27/enrollment/")
    assert client.get(NOTES.format(99)).json()["error"]["code"] == "step_not_found"
    assert client.get("/api/v1/modules/nope/steps/1/notes/").json()["error"]["code"] == (
        "module_not_found"
    )


def test_notes_need_log_in(course, api_client):
    assert api_client.get(NOTES.format(2)).status_code == 401
    assert api_client.put(NOTES.format(2), {"lernauftrag": "x"}, format="json").status_code == 401


def test_notes_query_counts_are_constant(client):
    # The step with the enrollment, the notes: without notes and with both.
    assert_queries_constant(
        lambda: client.get(NOTES.format(6)),
        grow=lambda: client.put(
            NOTES.format(6), {"praxisaufgabe": "A", "lernauftrag": "B"}, format="json"
        ),
        budget=2,
    )
    assert client.get(NOTES.format(6)).json()["lernauftrag"] == "B"


# --- optimistic concurrency: ETag and If-Match ----------------------------------------------


def test_a_read_and_a_write_carry_the_notes_etag(client):
    empty = client.get(NOTES.format(2))
    assert empty["ETag"].startswith('W/"')
    written = client.put(NOTES.format(2), {"lernauftrag": "Eins."}, format="json")
    assert written["ETag"] != empty["ETag"]
    assert client.get(NOTES.format(2))["ETag"] == written["ETag"]
    # Same texts, same version (another step's notes have their own).
    assert client.get(NOTES.format(3))["ETag"] == empty["ETag"]


def test_a_write_with_the_current_etag_applies(client):
    etag = client.get(NOTES.format(2))["ETag"]
    response = client.put(
        NOTES.format(2), {"lernauftrag": "Vom Handy."}, format="json", HTTP_IF_MATCH=etag
    )
    assert response.status_code == 200 and response.json()["lernauftrag"] == "Vom Handy."
    # PATCH takes the new ETag the same way.
    again = client.patch(
        NOTES.format(2), {"praxisaufgabe": "Dazu."}, format="json", HTTP_IF_MATCH=response["ETag"]
    )
    assert again.status_code == 200
    assert (again.json()["lernauftrag"], again.json()["praxisaufgabe"]) == ("Vom Handy.", "Dazu.")


def test_a_stale_write_is_a_412_with_the_current_text_and_writes_nothing(client, lena):
    """Phone and browser read the same version; the browser writes first, then the phone."""
    phone_etag = client.get(NOTES.format(2))["ETag"]
    browser = client.put(NOTES.format(2), {"lernauftrag": "Vom Browser."}, format="json")
    assert browser.status_code == 200
    stale = client.put(
        NOTES.format(2), {"lernauftrag": "Vom Handy."}, format="json", HTTP_IF_MATCH=phone_etag
    )
    assert stale.status_code == 412
    error = stale.json()["error"]
    assert error["code"] == "notes_changed" and error["message"]
    assert error["detail"]["lernauftrag"] == "Vom Browser."
    assert error["detail"]["praxisaufgabe"] == ""
    assert error["detail"]["etag"] == browser["ETag"]
    assert error["detail"]["updated_at"] is not None
    assert StepNote.objects.get(learner=lena, step__number=2).text == "Vom Browser."
    # The phone merges and writes with the version the 412 named.
    merged = client.put(
        NOTES.format(2),
        {"lernauftrag": "Vom Browser. Vom Handy."},
        format="json",
        HTTP_IF_MATCH=error["detail"]["etag"],
    )
    assert merged.status_code == 200


def test_if_match_accepts_the_strong_form_and_a_star(client):
    etag = client.get(NOTES.format(2))["ETag"]
    assert etag.startswith('W/"')
    weak = client.put(NOTES.format(2), {"lernauftrag": "A"}, format="json", HTTP_IF_MATCH=etag[2:])
    assert weak.status_code == 200
    star = client.put(NOTES.format(2), {"lernauftrag": "B"}, format="json", HTTP_IF_MATCH="*")
    assert star.status_code == 200
    listed = '"nope", ' + star["ETag"]
    ok = client.put(NOTES.format(2), {"lernauftrag": "C"}, format="json", HTTP_IF_MATCH=listed)
    assert ok.status_code == 200
    stale = client.put(NOTES.format(2), {"lernauftrag": "D"}, format="json", HTTP_IF_MATCH=listed)
    assert stale.status_code == 412
