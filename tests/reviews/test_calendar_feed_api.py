"""The private calendar address through the API (/me/calendar-feed/: create, read, rotate,
revoke; /me/ names it), and a password set or "log out everywhere" voiding it as it ends every
token: the old address answers 410 and a new one can be made."""

from __future__ import annotations

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.core.management import call_command
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from tests.accounts.test_credentials import NEW_PASSWORD, browser, phone
from tests.factories import learner_password
from tests.helpers.queries import assert_queries_within

pytestmark = pytest.mark.django_db

FEED = "/api/v1/me/calendar-feed/"
ROTATE = "/api/v1/me/calendar-feed/rotate/"
ME = "/api/v1/me/"


def _path(url: str) -> str:
    """The feed's address without the site (the test client speaks to the app directly)."""
    assert url.startswith("http") and url.endswith(".ics"), url
    return url[url.index("/calendar/") :]


def _ics_status(url: str) -> int:
    return Client().get(_path(url)).status_code


def _error_code(response) -> str:
    return response.json()["error"]["code"]


def _create(app) -> str:
    response = app.post(FEED)
    assert response.status_code == 201, response.content
    return response.json()["url"]


def test_a_learner_without_an_address_gets_404_and_me_names_none(make_learner):
    make_learner("lena")
    app = phone()
    assert app.get(ME).json()["calendar_feed"] is None
    for response in (app.get(FEED), app.post(ROTATE), app.delete(FEED)):
        assert response.status_code == 404
        assert _error_code(response) == "calendar_feed_missing"


def test_create_read_rotate_and_revoke(make_learner):
    make_learner("lena")
    app = phone()
    first = _create(app)
    assert app.get(FEED).json()["url"] == first
    assert app.get(ME).json()["calendar_feed"] == first
    assert _ics_status(first) == 200

    # A second create (a retried request) does not end the address a calendar uses.
    again = app.post(FEED)
    assert again.status_code == 409 and _error_code(again) == "calendar_feed_exists"
    assert _ics_status(first) == 200

    rotated = app.post(ROTATE)
    assert rotated.status_code == 200
    second = rotated.json()["url"]
    assert second != first
    assert _ics_status(first) == 410 and _ics_status(second) == 200
    assert app.get(ME).json()["calendar_feed"] == second

    assert app.delete(FEED).status_code == 204
    assert _ics_status(second) == 410
    assert app.get(FEED).status_code == 404
    assert app.get(ME).json()["calendar_feed"] is None
    # After a revoke, a new one can be made.
    assert _ics_status(_create(app)) == 200


def test_the_address_is_only_the_learner_s_own(make_learner):
    make_learner("lena")
    make_learner("mara")
    lena_url = _create(phone("lena"))
    mara = phone("mara")
    assert mara.get(FEED).status_code == 404
    assert mara.delete(FEED).status_code == 404
    assert _ics_status(lena_url) == 200


def test_the_operations_need_a_log_in(db):
    anonymous = Client()
    assert anonymous.get(FEED).status_code == 401
    assert anonymous.post(FEED).status_code == 401


def _voided_and_replaceable(url: str, *, password: str = NEW_PASSWORD) -> None:
    """The old address answers 410, the new log-in sees none, and a new one works."""
    assert _ics_status(url) == 410
    app = phone(password=password)
    assert app.get(ME).json()["calendar_feed"] is None
    assert app.get(FEED).status_code == 404
    assert _ics_status(_create(app)) == 200


def test_log_out_everywhere_through_the_api_voids_the_address(make_learner):
    make_learner("lena")
    make_learner("mara")
    app = phone()
    url = _create(app)
    mara_url = _create(phone("mara"))
    assert app.post("/api/v1/auth/logout-all/").status_code == 204
    _voided_and_replaceable(url, password=learner_password("lena"))
    assert _ics_status(mara_url) == 200


def test_log_out_everywhere_on_the_web_voids_the_address(make_learner):
    make_learner("lena")
    url = _create(phone())
    assert browser().post("/settings/logout-everywhere/").status_code == 302
    _voided_and_replaceable(url, password=learner_password("lena"))


def test_a_password_reset_voids_the_address(make_learner):
    lena = make_learner("lena")
    url = _create(phone())
    lena.refresh_from_db()
    uid = urlsafe_base64_encode(force_bytes(lena.pk))
    token = default_token_generator.make_token(lena)
    reset = Client()
    form = reset.get(f"/password-reset/{uid}/{token}/", follow=True)
    done = reset.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302
    _voided_and_replaceable(url)


def test_manage_py_changepassword_voids_the_address(make_learner, monkeypatch):
    make_learner("lena")
    url = _create(phone())
    monkeypatch.setattr(
        "django.contrib.auth.management.commands.changepassword.getpass.getpass",
        lambda prompt="": NEW_PASSWORD,
    )
    call_command("changepassword", "lena", stdout=None)
    _voided_and_replaceable(url)


def test_the_settings_page_shows_no_voided_address(make_learner):
    make_learner("lena")
    app = phone()
    url = _create(app)
    assert app.post("/api/v1/auth/logout-all/").status_code == 204
    page = browser()
    assert page.get("/settings/").context["calendar_feed_url"] is None
    assert page.post("/settings/calendar/new/").status_code == 302
    fresh = page.get("/settings/").context["calendar_feed_url"]
    assert fresh and fresh != url and _ics_status(fresh) == 200


def test_the_operations_read_a_fixed_number_of_queries(make_learner):
    make_learner("lena")
    app = phone()
    _create(app)
    assert_queries_within(lambda: app.get(FEED), budget=3)
    assert_queries_within(lambda: app.post(ROTATE), budget=7)
