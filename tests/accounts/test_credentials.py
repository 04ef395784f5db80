"""A password change or reset, and "log out everywhere", end every other log-in of the account:
every mobile token and every other browser session (accounts.services.credentials_revoke,
User.save, User.get_session_auth_hash)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.hashers import make_password
from django.contrib.auth.tokens import default_token_generator
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.factories import learner_password

pytestmark = pytest.mark.django_db

User = get_user_model()
NEW_PASSWORD = "Wanderer-Spiegel-Kompass-47"
ME = "/api/v1/me/"


def browser(username: str = "lena", password: str | None = None) -> Client:
    """A browser logged in through the log-in page (a real session with its auth hash)."""
    client = Client()
    response = client.post(
        "/login/", {"username": username, "password": password or learner_password(username)}
    )
    assert response.status_code == 302, response.content
    return client


def phone(username: str = "lena", password: str | None = None, device: str = "phone"):
    """An API client with a fresh token of the account."""
    response = APIClient().post(
        "/api/v1/auth/token/",
        {
            "username": username,
            "password": password or learner_password(username),
            "device_name": device,
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


def logged_in(client: Client) -> bool:
    return client.get("/settings/").status_code == 200


def test_password_reset_revokes_tokens_and_ends_sessions(make_learner):
    lena = make_learner("lena")
    app, laptop = phone(), browser()
    assert app.get(ME).status_code == 200 and logged_in(laptop)

    lena.refresh_from_db()  # the reset token covers the last log-in, which those two moved
    uid = urlsafe_base64_encode(force_bytes(lena.pk))
    token = default_token_generator.make_token(lena)
    reset = Client()
    form = reset.get(f"/password-reset/{uid}/{token}/", follow=True)
    assert form.status_code == 200 and form.context["validlink"]
    done = reset.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302, done.context["form"].errors

    # Before: the token kept answering 200 after the reset.
    assert app.get(ME).status_code == 401
    assert not logged_in(laptop)
    assert AuthToken.objects.filter(user=lena).count() == 0
    assert phone(password=NEW_PASSWORD).get(ME).status_code == 200


def test_admin_password_form_revokes_tokens_and_ends_sessions(make_learner):
    lena = make_learner("lena")
    make_learner("admin", is_staff=True, is_superuser=True)
    app, laptop = phone(), browser()
    admin = browser("admin")
    response = admin.post(
        f"/admin/accounts/user/{lena.pk}/password/",
        {"usable_password": "true", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302, response.context["form"].errors
    assert app.get(ME).status_code == 401
    assert not logged_in(laptop)
    # The admin's own session is not touched by changing someone else's password.
    assert admin.get("/admin/").status_code == 200


def test_admin_disabling_password_log_in_revokes_tokens(make_learner):
    lena = make_learner("lena")
    make_learner("admin", is_staff=True, is_superuser=True)
    app = phone()
    response = browser("admin").post(
        f"/admin/accounts/user/{lena.pk}/password/",
        {"usable_password": "false", "unset-password": "1"},
    )
    assert response.status_code == 302
    lena.refresh_from_db()
    assert not lena.has_usable_password()
    assert app.get(ME).status_code == 401


def test_manage_py_changepassword_revokes_tokens(make_learner, monkeypatch):
    make_learner("lena")
    app, laptop = phone(), browser()
    monkeypatch.setattr(
        "django.contrib.auth.management.commands.changepassword.getpass.getpass",
        lambda prompt="": NEW_PASSWORD,
    )
    call_command("changepassword", "lena", stdout=None)
    assert app.get(ME).status_code == 401
    assert not logged_in(laptop)


def test_password_change_page_keeps_this_session_only(make_learner):
    make_learner("lena")
    here, elsewhere, app = browser(), browser(), phone()
    response = here.post(
        "/settings/password/",
        {
            "old_password": learner_password("lena"),
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )
    assert response.status_code == 302 and response["Location"] == "/settings/"
    assert logged_in(here)
    assert not logged_in(elsewhere)
    assert app.get(ME).status_code == 401
    assert browser(password=NEW_PASSWORD)
    refused = Client().post("/login/", {"username": "lena", "password": learner_password("lena")})
    assert refused.status_code == 200  # the form again, with its error


def test_password_change_page_refuses_a_wrong_old_password(make_learner):
    lena = make_learner("lena")
    here, app = browser(), phone()
    response = here.post(
        "/settings/password/",
        {
            "old_password": "not-my-password",
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert response.status_code == 200
    assert response.context["form"].errors["old_password"] == [
        "Dein aktuelles Passwort stimmt nicht."
    ]
    lena.refresh_from_db()
    assert lena.check_password(learner_password("lena"))
    assert app.get(ME).status_code == 200 and logged_in(here)


def test_password_change_page_refuses_two_different_new_passwords(make_learner):
    make_learner("lena")
    here = browser()
    response = here.post(
        "/settings/password/",
        {
            "old_password": learner_password("lena"),
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD + "x",
        },
    )
    assert response.status_code == 200 and "new_password2" in response.context["form"].errors


def test_password_change_page_needs_a_log_in(db):
    response = Client().get("/settings/password/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_log_out_everywhere_on_the_web_ends_every_session_and_token(make_learner):
    make_learner("lena")
    make_learner("mara")
    here, elsewhere, app = browser(), browser(), phone()
    other_learner = browser("mara")
    response = here.post("/settings/logout-everywhere/")
    assert response.status_code == 302 and response["Location"] == "/login/"
    assert not logged_in(here) and not logged_in(elsewhere)
    assert app.get(ME).status_code == 401
    assert logged_in(other_learner)
    # Logging in again works, with the same password.
    assert logged_in(browser())


def test_log_out_everywhere_is_a_post(make_learner):
    make_learner("lena")
    here = browser()
    assert here.get("/settings/logout-everywhere/").status_code == 405
    assert logged_in(here)


def test_api_logout_all_also_ends_browser_sessions(make_learner):
    make_learner("lena")
    laptop, app, tablet = browser(), phone(), phone(device="tablet")
    assert app.post("/api/v1/auth/logout-all/").status_code == 204
    assert app.get(ME).status_code == 401 and tablet.get(ME).status_code == 401
    # Before: only the tokens went, the browser stayed logged in.
    assert not logged_in(laptop)


@override_settings(
    PASSWORD_HASHERS=[
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.Argon2PasswordHasher",
    ]
)
def test_a_hash_upgrade_at_log_in_is_not_a_password_change(make_learner):
    lena = make_learner("lena")
    User.objects.filter(pk=lena.pk).update(
        password=make_password(learner_password("lena"), hasher="argon2")
    )
    app = phone()  # this log-in upgrades the hash from Argon2 to the first hasher
    lena.refresh_from_db()
    assert lena.password.startswith("md5$")
    assert app.get(ME).status_code == 200
    assert phone(device="tablet").get(ME).status_code == 200
    assert AuthToken.objects.filter(user=lena).count() == 2


def test_sessions_from_before_the_epoch_keep_working(make_learner):
    lena = make_learner("lena")
    # Epoch 0: exactly Django's hash, so the sessions that existed before the field stay valid.
    assert lena.session_epoch == 0
    assert lena.get_session_auth_hash() == AbstractBaseUser.get_session_auth_hash(lena)
    lena.session_epoch = 1
    assert lena.get_session_auth_hash() != AbstractBaseUser.get_session_auth_hash(lena)


def test_saving_other_fields_keeps_tokens(make_learner):
    lena = make_learner("lena")
    app = phone()
    lena.display_name = "Lena L."
    lena.save()
    assert app.get(ME).status_code == 200
