"""lms.request_guards: NUL in the address, API bodies over the upload limit, page methods, and
the API's 4xx always in the error shape (issue 13's findings, each as it was found)."""

from __future__ import annotations

import pytest
from django.test import Client

from progress.models import StepNote
from tests.factories import api_client_for, enrollment_create

pytestmark = pytest.mark.django_db

NOTES = "/api/v1/modules/self-hosting-27/steps/1/notes/"
PAGE_ALLOW = "GET, HEAD, POST"


def assert_error_shape(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    error = response.json()["error"]
    assert set(error) == {"code", "message", "detail"}
    assert error["code"] == code, error
    return error


@pytest.fixture
def client(course, make_learner):
    learner = make_learner("lena")
    enrollment_create(learner, course)
    return api_client_for(learner)


# --- NUL in the address ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/certificates/%00/", "/certificates/a%00b/"])
def test_nul_in_a_public_page_path_is_a_404(course, path):
    response = Client().get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_nul_in_my_certificate_path_is_a_404(course, make_learner):
    page = Client()
    page.force_login(make_learner("lena"))
    assert page.get("/my/certificates/%00/").status_code == 404


@pytest.mark.parametrize(
    "path",
    ["/api/v1/modules/%00/", "/api/v1/exam-attempts/%00/", "/api/v1/no-such%00thing/"],
)
def test_nul_in_an_api_path_is_a_404_in_the_error_shape(client, path):
    assert_error_shape(client.get(path), 404, "not_found")


@pytest.mark.parametrize(
    "query",
    ["module=%00", "%00=1", "page=1&x=a%00b", "limit=%00"],
    ids=["value", "key", "mid", "n"],
)
def test_nul_in_an_api_query_is_a_400_in_the_error_shape(client, query):
    assert_error_shape(client.get(f"/api/v1/reviews/due/?{query}"), 400, "invalid_query")


def test_nul_in_a_page_query_is_a_400_page(course):
    response = Client().get("/login/?next=%00")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


def test_an_admin_query_with_nul_is_a_400(admin_client, course):
    assert admin_client.get("/admin/quizzes/examattempt/grades.csv?module=%00").status_code == 400


# --- API bodies over the upload limit --------------------------------------------------------


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_an_api_body_over_the_limit_is_a_413_in_the_error_shape(client, settings, debug):
    settings.DEBUG = debug
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = '{"lernauftrag": "' + "x" * limit + '"}'
    error = assert_error_shape(
        client.put(NOTES, body, content_type="application/json"), 413, "request_too_large"
    )
    assert error["detail"] == {"max_bytes": limit}
    assert "Bytes" in error["message"]  # German by default
    assert not StepNote.objects.exists()


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_an_anonymous_api_body_over_a_lowered_limit_is_a_413(course, settings, debug):
    settings.DEBUG = debug
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    body = '{"username": "lena", "password": "' + "x" * 1_000 + '"}'
    response = Client().post(
        "/api/v1/auth/token/", body, content_type="application/json", HTTP_ACCEPT_LANGUAGE="en"
    )
    error = assert_error_shape(response, 413, "request_too_large")
    assert error["message"] == "The request body is larger than 1000 bytes."


def test_a_body_just_under_the_limit_is_read(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    body = '{"lernauftrag": "' + "x" * 900 + '"}'
    assert client.put(NOTES, body, content_type="application/json").status_code == 200


# --- methods --------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["TRACE", "PUT", "DELETE", "OPTIONS", "PATCH", "FOO"])
@pytest.mark.parametrize("path", ["/", "/login/", "/certificates/abc/", "/admin/login/"])
def test_pages_answer_only_get_head_and_post(course, method, path):
    response = Client().generic(method, path)
    assert response.status_code == 405, (method, path, response.status_code)
    assert response["Allow"] == PAGE_ALLOW


@pytest.mark.parametrize("path", ["/api/v1/modules/", "/api/v1/me/", "/api/schema/"])
def test_trace_on_the_api_is_a_405_in_the_error_shape(client, path):
    response = client.generic("TRACE", path)
    assert_error_shape(response, 405, "method_not_allowed")
    assert "TRACE" not in response["Allow"]


# --- the API's 4xx never as an HTML page ----------------------------------------------------


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_an_unknown_api_address_is_json_also_with_debug(client, settings, debug):
    settings.DEBUG = debug
    assert_error_shape(client.get("/api/v1/no-such-thing/"), 404, "not_found")
    assert_error_shape(client.get("/api/v2/"), 404, "not_found")


# --- an API address without its trailing slash --------------------------------------------


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize("method", ["get", "post", "put", "delete"])
def test_an_api_address_without_its_slash_is_a_json_404_never_a_redirect(
    client, settings, debug, method
):
    """APPEND_SLASH redirected a POST (301: the client's next request is a GET, its body gone)
    and under DEBUG answered it with an HTML 500; the guard answers in the error shape."""
    settings.DEBUG = debug
    response = getattr(client, method)(
        "/api/v1/modules/self-hosting-27/enrollment", {}, format="json"
    )
    error = assert_error_shape(response, 404, "not_found")
    assert error["detail"] == {"path": "/api/v1/modules/self-hosting-27/enrollment/"}
    assert "/api/v1/modules/self-hosting-27/enrollment/" in error["message"]


def test_an_unknown_api_address_without_a_slash_is_the_plain_404(client, settings):
    settings.DEBUG = True
    error = assert_error_shape(client.post("/api/v1/no-such-thing", {}), 404, "not_found")
    assert error["detail"] is None


def test_a_page_without_its_slash_still_redirects(course):
    response = Client().get("/modules/self-hosting-27")
    assert response.status_code == 301
    assert response["Location"] == "/modules/self-hosting-27/"
