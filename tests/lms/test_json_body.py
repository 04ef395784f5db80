"""The API's JSON parser (lms.parsers): a body it cannot take is a 400 parse_error in the error
shape, in the learner's language; never a 500, and nothing is written.

Issue 13: ``[`` × 10,000 on a notes PUT and 5,000 nested objects on a sync were 500s
(RecursionError), and a lone surrogate reached the database driver.
"""

from __future__ import annotations

import pytest

from progress.models import ProgressEvent, StepNote
from tests.factories import api_client_for, enrollment_create

pytestmark = pytest.mark.django_db

NOTES = "/api/v1/modules/self-hosting-27/steps/1/notes/"
SYNC = "/api/v1/progress/sync/"


@pytest.fixture
def client(course, make_learner):
    learner = make_learner("lena")
    enrollment_create(learner, course)
    return api_client_for(learner)


def send(client, method: str, url: str, body: str, **headers):
    return getattr(client, method)(url, body, content_type="application/json", **headers)


def assert_parse_error(response) -> str:
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "parse_error"
    assert set(error) == {"code", "message", "detail"}
    return error["message"]


def nested_objects(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("put", NOTES, "[" * 10_000),
        ("put", NOTES, "[" * 10_000 + "]" * 10_000),
        ("post", SYNC, '{"events": [' + nested_objects(5_000) + "]}"),
        # Deep enough to pass json, too deep for the API (JSON_MAX_DEPTH).
        ("put", NOTES, '{"lernauftrag": ' + "[" * 40 + "]" * 40 + "}"),
        ("post", SYNC, '{"events": [' + nested_objects(40) + "]}"),
    ],
    ids=["notes-10000-open", "notes-10000-closed", "sync-5000-objects", "notes-40", "sync-40"],
)
def test_a_deeply_nested_body_is_a_parse_error(client, method, url, body):
    assert_parse_error(send(client, method, url, body))
    assert not StepNote.objects.exists()
    assert not ProgressEvent.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        '{"lernauftrag": "Notiz \\ud800"}',
        '{"lernauftrag": "\\udfff"}',
        '{"\\ud83d": "key"}',
    ],
    ids=["high", "low", "in-a-key"],
)
def test_a_lone_surrogate_is_a_parse_error(client, body):
    message = assert_parse_error(send(client, "put", NOTES, body))
    assert "Surrogat" in message  # German by default
    assert not StepNote.objects.exists()


def test_a_surrogate_pair_is_a_character(client):
    response = send(client, "put", NOTES, '{"lernauftrag": "Gut \\ud83d\\ude00"}')
    assert response.status_code == 200, response.content
    assert StepNote.objects.get().text == "Gut \U0001f600"


def test_the_message_follows_the_language(client):
    body = "[" * 10_000
    german = assert_parse_error(send(client, "put", NOTES, body))
    english = assert_parse_error(send(client, "put", NOTES, body, HTTP_ACCEPT_LANGUAGE="en"))
    assert "tiefer als 32 Ebenen" in german
    assert "nested deeper than 32 levels" in english


@pytest.mark.parametrize("body", ['{"lernauftrag": ', "nope", '{"a": NaN}', "\xff"])
def test_unparseable_bodies_stay_parse_errors(client, body):
    assert_parse_error(send(client, "put", NOTES, body))
