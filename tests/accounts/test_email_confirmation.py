"""E-mail confirmation: a signed, expiring link at sign-up and on an address change; no log-in
and no reminder for an address nobody has confirmed; the link again on request, limited."""

from __future__ import annotations

import datetime
import importlib
import time
from urllib.parse import unquote

import pytest
from django.apps import apps
from django.core import mail, signing
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import mails
from accounts.models import User
from accounts.services import email_confirm, user_register
from accounts.tokens import EMAIL_CONFIRMATION_SALT, email_confirmation_token
from lms.errors import InvalidInput
from tests.accounts.conftest import confirmation_path_in, confirmation_token_in, reset_path_in
from tests.factories import api_client_for, learner_password

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register/"
CONFIRM = "/api/v1/auth/email-confirmation/"
RESEND = "/api/v1/auth/email-confirmation/resend/"
TOKEN = "/api/v1/auth/token/"
PASSWORD = learner_password("mara")


@pytest.fixture(autouse=True)
def _site_url(settings):
    settings.SITE_URL = "https://lernpfad.example"


def sign_up(committed, username="mara", *, language="de", email=None) -> User | None:
    with committed():
        return user_register(
            username=username,
            email=email or f"{username}@example.org",
            password=learner_password(username),
            language=language,
        )


def json_client(**defaults) -> APIClient:
    client = APIClient(**defaults)
    client.default_format = "json"
    return client


def web_post(client: Client, path: str, data: dict | None = None):
    """A POST with the CSRF token of the page, as a browser sends it."""
    client.get(path)
    return client.post(
        path, {**(data or {}), "csrfmiddlewaretoken": client.cookies["csrftoken"].value}
    )


def test_the_sign_up_mail_has_the_link_in_the_learners_language(committed):
    user = sign_up(committed, language="en")
    (message,) = mail.outbox
    assert message.to == ["mara@example.org"]
    assert message.subject == "Lernpfad: confirm your e-mail address"
    assert message.extra_headers["Content-Language"] == "en"
    assert message.extra_headers["Auto-Submitted"] == "auto-generated"
    assert "https://lernpfad.example/confirm-email/" in message.body
    assert "The link works for 3 days." in message.body
    # The link names no address: only the account and a keyed hash of the address.
    assert "mara" not in confirmation_token_in(message)
    sign_up(committed, "lena")
    german = mail.outbox[1]
    assert german.subject == "Lernpfad: Bestätige deine E-Mail-Adresse"
    assert "Bis dahin kannst du dich nicht anmelden" in german.body
    assert user.email_confirmed_at is None


def test_until_confirmed_the_account_cannot_log_in_and_gets_no_reminder(committed):
    user = sign_up(committed)
    user.refresh_from_db()
    assert user.email_confirmed_at is None and user.next_reminder_at is None
    api = APIClient()
    refused = api.post(TOKEN, {"username": "mara", "password": PASSWORD}, format="json")
    wrong = api.post(TOKEN, {"username": "mara", "password": "wrong-wrong-wrong"}, format="json")
    assert refused.status_code == wrong.status_code == 400
    assert refused.json() == wrong.json()
    web = Client()
    page = web.post("/login/", {"username": "mara@example.org", "password": PASSWORD})
    assert page.status_code == 200 and "_auth_user_id" not in web.session
    assert "noch nicht bestätigt" in page.content.decode()


def test_the_page_asks_on_get_and_confirms_on_post(committed):
    user = sign_up(committed)
    path = confirmation_path_in(mail.outbox[0])
    client = Client(enforce_csrf_checks=True)
    for _ in range(2):  # a mail scanner, a link preview: GET confirms nothing
        page = client.get(path)
        assert page.status_code == 200 and "Meine Adresse bestätigen" in page.content.decode()
    user.refresh_from_db()
    assert user.email_confirmed_at is None
    response = web_post(client, path)
    assert response.status_code == 302 and response["Location"] == "/login/"
    user.refresh_from_db()
    assert user.email_confirmed_at is not None and user.next_reminder_at is not None
    assert "_auth_user_id" not in client.session  # the link logs nobody in
    login = web_post(client, "/login/", {"username": "mara", "password": PASSWORD})
    assert login.status_code == 302
    # The link again: nothing changes, no error.
    confirmed_at = user.email_confirmed_at
    assert web_post(client, path).status_code == 302
    user.refresh_from_db()
    assert user.email_confirmed_at == confirmed_at


def _token_made_ago(monkeypatch, age: datetime.timedelta, **claim) -> str:
    made_at = time.time() - age.total_seconds()
    with monkeypatch.context() as patched:
        patched.setattr(signing.time, "time", lambda: made_at)
        return email_confirmation_token(**claim)


def test_expired_changed_and_foreign_links_confirm_nothing(committed, make_learner, monkeypatch):
    user = sign_up(committed)
    other = sign_up(committed, "otto")
    claim = {"user_id": user.pk, "address": user.email}
    good = email_confirmation_token(**claim)
    _payload, stamp, signature = good.split(":")
    other_payload = email_confirmation_token(user_id=other.pk, address=other.email).split(":")[0]
    expired = _token_made_ago(monkeypatch, datetime.timedelta(days=3, minutes=1), **claim)
    young_enough = _token_made_ago(monkeypatch, datetime.timedelta(days=2, hours=23), **claim)
    bad = {
        "expired": (expired, "confirmation_link_expired"),
        "another account, this signature": (
            f"{other_payload}:{stamp}:{signature}",
            "confirmation_link_invalid",
        ),
        "cut short": (good[:-3], "confirmation_link_invalid"),
        "another purpose's signature": (
            signing.dumps([user.pk, "x"], salt="accounts.something-else"),
            "confirmation_link_invalid",
        ),
        "an address the account does not have": (
            email_confirmation_token(user_id=user.pk, address="someone@example.org"),
            "confirmation_link_invalid",
        ),
        "not a list": (
            signing.dumps({"user": user.pk}, salt=EMAIL_CONFIRMATION_SALT),
            "confirmation_link_invalid",
        ),
        "garbage": ("%00", "confirmation_link_invalid"),
    }
    api = json_client(HTTP_ACCEPT_LANGUAGE="en")
    for name, (token, code) in bad.items():
        response = api.post(CONFIRM, {"token": token}, format="json")
        assert response.status_code == 400, name
        assert response.json()["error"]["code"] == code, name
        page = Client().get(f"/confirm-email/{token}/")
        if "\x00" in unquote(token):
            # A NUL in a path never reaches a view (lms.request_guards): 404.
            assert page.status_code == 404, name
            continue
        assert page.status_code == 400, name
        assert "/confirm-email/" in page.content.decode()  # the way to a new link
    user.refresh_from_db()
    other.refresh_from_db()
    assert user.email_confirmed_at is None and other.email_confirmed_at is None
    assert "abgelaufen" in Client().get(f"/confirm-email/{expired}/").content.decode()
    assert api.post(CONFIRM, {"token": young_enough}, format="json").status_code == 200


def test_an_address_change_waits_for_its_link(committed, make_learner):
    lena = make_learner("lena")
    api = api_client_for(lena)
    with committed():
        response = api.patch("/api/v1/me/", {"email": "lena.neu@example.org"}, format="json")
    assert response.status_code == 200
    assert response.json()["email"] == "lena@example.org"
    assert response.json()["pending_email"] == "lena.neu@example.org"
    (message,) = mail.outbox
    assert message.to == ["lena.neu@example.org"]
    assert "behält dein Konto seine alte Adresse" in message.body
    # Until the link is opened, the old address logs in and gets the reminders and resets.
    password = learner_password("lena")
    old = json_client().post(TOKEN, {"email": "lena@example.org", "password": password})
    assert old.status_code == 200
    lena.refresh_from_db()
    assert lena.email == "lena@example.org" and lena.email_confirmed_at is not None

    assert json_client().post(CONFIRM, {"token": confirmation_token_in(message)}).status_code == 200
    lena.refresh_from_db()
    assert (lena.email, lena.pending_email) == ("lena.neu@example.org", "")
    assert (
        json_client().post(TOKEN, {"email": "lena@example.org", "password": password}).status_code
        == 400
    )
    assert (
        json_client()
        .post(TOKEN, {"email": "lena.neu@example.org", "password": password})
        .status_code
        == 200
    )


def test_a_link_for_an_address_asked_for_before_confirms_nothing(committed, make_learner):
    lena = make_learner("lena")
    api = api_client_for(lena)
    for address in ("first@example.org", "second@example.org"):
        with committed():
            api.patch("/api/v1/me/", {"email": address}, format="json")
    first, second = mail.outbox
    assert first.to == ["first@example.org"] and second.to == ["second@example.org"]
    response = json_client().post(CONFIRM, {"token": confirmation_token_in(first)})
    assert response.status_code == 400
    lena.refresh_from_db()
    assert lena.email == "lena@example.org" and lena.pending_email == "second@example.org"


def test_an_address_taken_meanwhile_is_not_moved_to(committed, make_learner):
    lena = make_learner("lena")
    api = api_client_for(lena)
    with committed():
        api.patch("/api/v1/me/", {"email": "shared@example.org"}, format="json")
    make_learner("sam", email="shared@example.org")
    response = json_client().post(CONFIRM, {"token": confirmation_token_in(mail.outbox[0])})
    assert response.status_code == 400 and response.json()["error"]["code"] == "email_taken"
    lena.refresh_from_db()
    assert lena.email == "lena@example.org"


def test_the_link_again_for_any_address_the_same_and_at_most_three_an_hour(committed, make_learner):
    sign_up(committed)  # the first confirmation mail
    make_learner("lena")  # confirmed
    api = APIClient()
    answers = []
    with committed():
        for address in ("mara@example.org", "lena@example.org", "nobody@example.org"):
            response = api.post(RESEND, {"email": address}, format="json")
            answers.append((response.status_code, response.json()))
    assert answers[0] == answers[1] == answers[2] and answers[0][0] == 202
    assert [message.to for message in mail.outbox] == [["mara@example.org"]] * 2
    with committed():
        for _ in range(3):
            assert api.post(RESEND, {"email": "MARA@example.org"}, format="json").status_code == 202
    # The sign-up mail and two more: three in the hour, then nothing (and no different answer).
    assert len(mail.outbox) == mails.ACCOUNT_MAILS_PER_HOUR
    # The web page does the same.
    with committed():
        page = web_post(Client(), "/confirm-email/", {"email": "nobody@example.org"})
    assert page.status_code == 302 and page["Location"] == "/signup/sent/"


def test_a_password_reset_confirms_a_waiting_address(committed):
    """Someone signed up with another person's address: that person cannot sign up (the address
    is taken) but is told so and can take the account over by resetting its password."""
    squatted = sign_up(committed, "squatter", email="victim@example.org")
    mail.outbox.clear()
    client = Client()
    with committed():
        client.post("/password-reset/", {"email": "victim@example.org"})
    (reset,) = mail.outbox
    form = client.get(reset_path_in(reset), follow=True)
    new = "my-own-passphrase-77"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    squatted.refresh_from_db()
    assert squatted.email_confirmed_at is not None and squatted.check_password(new)
    assert (
        json_client().post(TOKEN, {"email": "victim@example.org", "password": new}).status_code
        == 200
    )


def test_accounts_from_before_count_as_confirmed(make_learner):
    """The data migration: every existing account (demo accounts included) is confirmed."""
    make_learner("old")
    make_learner("nomail", email="")
    User.objects.update(email_confirmed_at=None)
    migration = importlib.import_module("accounts.migrations.0006_user_email_confirmation")
    migration.existing_accounts_confirm(apps, None)
    assert not User.objects.filter(email_confirmed_at=None).exists()


def test_demo_accounts_an_admin_and_createsuperuser_make_are_confirmed(capsys, make_learner):
    call_command("demo_setup")
    assert not User.objects.filter(email_confirmed_at=None).exists()
    assert make_learner("by-an-admin").email_confirmed_at is not None


def test_an_admin_can_confirm_an_address(committed, make_learner):
    waiting = sign_up(committed)
    admin = Client()
    admin.force_login(make_learner("root", is_staff=True, is_superuser=True))
    response = admin.post(
        "/admin/accounts/user/",
        {"action": "email_confirm_selected", "_selected_action": [waiting.pk], "index": "0"},
    )
    assert response.status_code == 302
    waiting.refresh_from_db()
    assert waiting.email_confirmed_at is not None and waiting.next_reminder_at is not None


def test_the_mails_link_to_the_pages_web_serves():
    assert reverse("web:email_confirm", args=["t:k"]) == mails.CONFIRM_EMAIL_PATH.format(
        token="t:k"
    )
    assert reverse("web:email_confirmation_resend") == mails.CONFIRM_EMAIL_RESEND_PATH
    assert reverse("web:password_reset") == mails.PASSWORD_RESET_PATH
    assert reverse("web:login") == mails.LOGIN_PATH
    assert reverse(
        "web:password_reset_confirm", kwargs={"uidb64": "MQ", "token": "abc-def"}
    ) == mails.PASSWORD_RESET_CONFIRM_PATH.format(uidb64="MQ", token="abc-def")


def test_the_service_refuses_what_the_api_refuses(committed):
    user = sign_up(committed)
    with pytest.raises(InvalidInput) as refused:
        email_confirm(token=email_confirmation_token(user_id=user.pk + 99, address=user.email))
    assert refused.value.code == "confirmation_link_invalid"
