"""Every rule the server enforces on a request is in the schema (issue 30), and the server keeps
to what the schema says: a generated client or form knows a rule before sending. Schemathesis
checks both directions over every operation (tests/reliability/test_schema_fuzz.py); this states
each rule once, against the schema and against the server."""

from __future__ import annotations

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

from accounts.data import DESIRED_RETENTION_MAX, DESIRED_RETENTION_MIN
from lms.local_time import time_zone_names
from reviews.services.review_batches import REVIEW_BATCH_MAX
from tests.factories import api_client_for, enrollment_create, learner_create

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
COMPONENTS = SCHEMA["components"]["schemas"]


def _resolved(node):
    """The component with its $refs inlined (the rules below have no cycles)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _resolved(COMPONENTS[node["$ref"].rsplit("/", 1)[1]])
        return {key: _resolved(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_resolved(value) for value in node]
    return node


def _enum(node) -> set:
    node = _resolved(node)
    return set(node["enum"] if "enum" in node else node["allOf"][0]["enum"])


def valid(component: str, instance) -> bool:
    schema = _resolved(COMPONENTS[component])
    # OpenAPI 3.0's nullable: what the tests below send is never null where it is not allowed.
    return jsonschema.Draft4Validator(schema).is_valid(instance)


def test_the_preferences_ranges_and_zones():
    me = COMPONENTS["PatchedMeUpdateRequest"]["properties"]
    assert me["desired_retention"]["minimum"] == DESIRED_RETENTION_MIN == 0.80
    assert me["desired_retention"]["maximum"] == DESIRED_RETENTION_MAX == 0.97
    zones = _enum(me["time_zone"])
    assert zones == time_zone_names() and "Europe/Berlin" in zones
    assert {"minimum", "maximum"} <= set(me["new_cards_per_day"])
    assert {"minimum", "maximum"} <= set(me["reviews_per_day"])
    assert _enum(COMPONENTS["RegisterRequest"]["properties"]["time_zone"]) == zones


@pytest.mark.parametrize(
    ("body", "is_valid"),
    [
        ({}, True),
        ({"quiet_hours_start": "22:00", "quiet_hours_end": "07:00"}, True),
        ({"quiet_hours_start": "22:00"}, False),
        ({"quiet_hours_end": "07:00"}, False),
        ({"desired_retention": 0.99}, False),
        ({"time_zone": "Mars/Olympus"}, False),
    ],
)
def test_quiet_hours_both_ends_or_neither(body, is_valid):
    assert valid("PatchedMeUpdateRequest", body) is is_valid


@pytest.mark.parametrize(
    ("body", "is_valid"),
    [
        ({"login": "lena", "password": "x"}, True),
        ({"username": "lena", "password": "x"}, True),
        ({"email": "lena@example.org", "password": "x"}, True),
        ({"login": "lena", "username": "  ", "password": "x"}, True),
        ({"password": "x"}, False),
        ({"login": " ", "password": "x"}, False),
        ({"login": "lena", "email": "lena@example.org", "password": "x"}, False),
    ],
)
def test_log_in_takes_exactly_one_of_login_username_email(body, is_valid):
    assert valid("TokenRequestRequest", body) is is_valid


@pytest.mark.parametrize(
    ("answer", "is_valid"),
    [
        ({"item": 1, "selected": ["a"]}, True),
        ({"item": 1, "text": ""}, True),
        ({"item": 1}, False),
        ({"item": 1, "text": "x", "number": "1"}, False),
        ({"item": 0, "text": "x"}, False),
        ({"item": 2**63, "text": "x"}, False),
    ],
)
def test_an_answer_has_exactly_one_answer_field(answer, is_valid):
    assert valid("AnswerInputRequest", answer) is is_valid


def test_section_viewed_needs_a_section_and_notes_a_field():
    assert valid("StepEventRequest", {"event": "opened"})
    assert not valid("StepEventRequest", {"event": "section_viewed"})
    assert not valid("StepEventRequest", {"event": "section_viewed", "section": ""})
    assert not valid("StepNotesRequest", {})
    assert valid("StepNotesRequest", {"lernauftrag": ""})


def test_a_text_field_the_server_strips_may_not_be_blank():
    assert valid("EmailConfirmRequest", {"token": "abc"})
    assert not valid("EmailConfirmRequest", {"token": " \t "})
    assert valid("AnswerInputRequest", {"item": 1, "selected": ["a"]})
    assert not valid("AnswerInputRequest", {"item": 1, "selected": ["a", "  "]})
    # The password is taken as typed (not stripped): blanks are characters there.
    assert valid("AccountDeleteRequest", {"password": "  "})


def test_a_new_password_has_the_validators_length():
    body = {"username": "mara", "email": "mara@example.org"}
    assert valid("RegisterRequest", body | {"password": "x" * 10})
    assert not valid("RegisterRequest", body | {"password": "x" * 9})


def test_a_body_that_needs_a_field_is_required():
    notes = SCHEMA["paths"]["/api/v1/modules/{module}/steps/{number}/notes/"]
    assert notes["put"]["requestBody"]["required"] and notes["patch"]["requestBody"]["required"]
    # PATCH /me/ may leave every field out (quiet hours: both or neither).
    assert not SCHEMA["paths"]["/api/v1/me/"]["patch"]["requestBody"].get("required")


def test_the_certificate_pdf_takes_no_format_parameter():
    operation = SCHEMA["paths"]["/api/v1/certificates/{code}/pdf/"]["get"]
    assert [p["name"] for p in operation["parameters"]] == ["code"]


def test_the_batch_limit_and_the_due_page():
    reviews = COMPONENTS["ReviewBatchRequest"]["properties"]["reviews"]
    assert reviews["maxItems"] == REVIEW_BATCH_MAX == 500
    due = SCHEMA["paths"]["/api/v1/reviews/due/"]["get"]["parameters"]
    limit = next(p for p in due if p["name"] == "limit")
    assert limit["schema"]["maximum"] == 500 and "at most 50" in limit["description"]


# --- the server holds to the same rules --------------------------------------------------------


@pytest.fixture
def client(course):
    learner = learner_create("lena")
    enrollment_create(learner, course)
    return api_client_for(learner)


@pytest.mark.django_db
def test_one_end_of_the_quiet_hours_is_refused_even_with_the_other_stored(client):
    both = {"quiet_hours_start": "22:00", "quiet_hours_end": "07:00"}
    assert client.patch("/api/v1/me/", both, format="json").status_code == 200
    refused = client.patch("/api/v1/me/", {"quiet_hours_start": "23:00"}, format="json")
    assert refused.status_code == 400
    assert "quiet_hours" in refused.json()["error"]["detail"]
    zone = client.patch("/api/v1/me/", {"time_zone": "Mars/Olympus"}, format="json")
    assert zone.status_code == 400 and "time_zone" in zone.json()["error"]["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/reviews/due/?include=",
        "/api/v1/reviews/due/?limit=",
        "/api/v1/notifications/?unread=",
        "/api/v1/notifications/?page=",
        "/api/v1/modules/?page=",
        "/api/v1/enrollments/?page=",
    ],
)
def test_an_empty_query_parameter_is_refused(client, url):
    response = client.get(url)
    assert response.status_code == 400, (url, response.status_code)
    assert response.json()["error"]["code"] in ("invalid", "invalid_query")


@pytest.mark.django_db
def test_a_due_page_without_the_backs_is_capped_not_refused(client):
    response = client.get("/api/v1/reviews/due/?limit=200")
    assert response.status_code == 200
    assert len(response.json()["cards"]) <= 50


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"card": "1", "rating": 3}, "card", "Muss eine ganze Zahl sein, ohne Anführungszeichen."),
        (
            {"card": 1, "rating": "3"},
            "rating",
            "Muss eine ganze Zahl sein, ohne Anführungszeichen.",
        ),
        ({"card": 1.0, "rating": 3}, "card", "Muss eine ganze Zahl sein, ohne Anführungszeichen."),
        (
            {"card": 1, "rating": 3, "client_review_id": 7},
            "client_review_id",
            "Muss eine Zeichenkette sein (in Anführungszeichen).",
        ),
    ],
)
def test_a_value_of_the_wrong_json_type_is_refused_by_name(client, body, field, message):
    """DRF would read "1" as 1 and 7 as "7"; the schema says integer and string, and so does
    the server, in the learner's language."""
    from reviews.models import ReviewLog

    response = client.post("/api/v1/reviews/", body, format="json", HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 400
    assert response.json()["error"]["detail"] == {field: [message]}
    assert not ReviewLog.objects.exists()


@pytest.mark.django_db
def test_a_wrong_type_inside_a_list_names_its_place(client):
    response = client.patch(
        "/api/v1/me/", {"desired_retention": "0.9"}, format="json", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.json()["error"]["detail"] == {
        "desired_retention": ["Must be a number, without quotes."]
    }
    response = client.put(
        "/api/v1/exam-attempts/1/answers/",
        {"answers": [{"item": 1, "selected": ["a", 2]}]},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400
    assert response.json()["error"]["detail"] == {
        "answers": {"0": {"selected": {"1": ["Must be a string (in quotes)."]}}}
    }


@pytest.mark.django_db
def test_a_bad_bundle_version_is_refused_also_when_the_client_holds_the_current_one(client):
    url = "/api/v1/modules/self-hosting-27/bundle/"
    etag = client.get(url)["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    for since in ("", "xyz"):
        response = client.get(f"{url}?since={since}", HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 400, since
        assert "since" in response.json()["error"]["detail"]
