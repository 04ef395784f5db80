"""One language per API answer: the app's own messages and DRF's field details both follow
Accept-Language, else the learner's language setting (a token request), else German; the code
stays the contract whatever the language."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import token_create

pytestmark = pytest.mark.django_db

REVIEW = "/api/v1/reviews/"
NOT_MINE = {"card": 999_999, "rating": 3, "client_review_id": "r-1"}


def token_client(user, **headers) -> APIClient:
    _row, token = token_create(user=user, device_name="phone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}", **headers)
    return client


@pytest.fixture
def anna(make_learner):
    return make_learner("anna", language="en")


def test_a_token_request_without_accept_language_is_in_the_learners_language(anna, lena):
    english = token_client(anna).post(REVIEW, NOT_MINE, format="json")
    german = token_client(lena).post(REVIEW, NOT_MINE, format="json")
    assert english.json()["error"] == {
        "code": "card_not_found",
        "message": "You have no review card with this id.",
        "detail": None,
    }
    assert english["Content-Language"] == "en"
    assert german.json()["error"]["code"] == "card_not_found"
    assert german.json()["error"]["message"] == "Du hast keine Lernkarte mit dieser Nummer."
    assert german["Content-Language"] == "de"


def test_accept_language_wins_over_the_setting(anna):
    response = token_client(anna, HTTP_ACCEPT_LANGUAGE="de").post(REVIEW, NOT_MINE, format="json")
    assert response.json()["error"]["message"] == "Du hast keine Lernkarte mit dieser Nummer."
    assert response["Content-Language"] == "de"


@pytest.mark.parametrize(
    "language, message, required",
    [
        ("en", "The input is not valid.", "This field is required."),
        ("de", "Die Eingabe ist nicht gültig.", "Dieses Feld ist zwingend erforderlich."),
    ],
)
def test_the_message_and_the_field_details_share_one_language(anna, language, message, required):
    response = token_client(anna, HTTP_ACCEPT_LANGUAGE=language).post(
        REVIEW, {"rating": 3}, format="json"
    )
    error = response.json()["error"]
    assert (response.status_code, error["code"]) == (400, "invalid")
    assert error["message"] == message
    assert error["detail"]["card"] == [required]
    assert response["Content-Language"] == language


def test_an_anonymous_request_without_accept_language_is_german(course):
    response = APIClient().get("/api/v1/modules/no-such-module/")
    assert response.json()["error"] == {
        "code": "module_not_found",
        "message": "Es gibt kein Modul „no-such-module“.",
        "detail": None,
    }
