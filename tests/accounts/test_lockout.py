"""Log-in lockout (django-axes, accounts/lockout.py): only failures count, per account from any
address and per address for any account; a course admin lifts a lock; the API answers in its
error shape, the web and admin log-in forms with a page."""

from __future__ import annotations

import datetime

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from tests.factories import learner_create, learner_password

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"
ACCOUNT_LIMIT = settings.AXES_FAILURE_LIMIT  # 10
ADDRESS_LIMIT = settings.LOGIN_FAILURE_LIMIT_ADDRESS  # 50


def token_post(username: str, password: str, address: str = "127.0.0.1", **headers):
    return APIClient().post(
        TOKEN,
        {"username": username, "password": password, "device_name": "phone"},
        format="json",
        REMOTE_ADDR=address,
        **headers,
    )


def web_login(username: str, password: str, address: str = "127.0.0.1", **headers):
    return Client().post(
        "/login/", {"username": username, "password": password}, REMOTE_ADDR=address, **headers
    )


def test_the_limits_are_per_account_and_per_address():
    assert (ACCOUNT_LIMIT, ADDRESS_LIMIT) == (10, 50)
    assert settings.AXES_LOCKOUT_PARAMETERS == ["username", "ip_address"]


def test_thirty_learners_behind_one_address_all_log_in(db):
    # Before: the log-in throttle counted every log-in per address, so the 11th learner of a
    # class behind one NAT got 429.
    learners = [learner_create(f"learner{number}") for number in range(30)]
    for learner in learners:
        response = token_post(learner.username, learner_password(learner.username))
        assert response.status_code == 200, response.content
    for learner in learners:
        response = web_login(learner.username, learner_password(learner.username))
        assert response.status_code == 302, response.status_code
    assert AccessAttempt.objects.count() == 0


def test_failures_lock_the_account_from_any_address(make_learner):
    make_learner("lena")
    make_learner("mara")
    for number in range(ACCOUNT_LIMIT - 1):
        response = token_post("lena", "falsch-falsch-falsch", address=f"10.0.0.{number}")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_credentials"
    locked = token_post("lena", "falsch-falsch-falsch", address="10.0.1.1")
    assert locked.status_code == 429
    # Now even the right password, from an address never seen, is refused before it is checked.
    refused = token_post("lena", learner_password("lena"), address="10.9.9.9")
    assert refused.status_code == 429
    error = refused.json()["error"]
    assert error["code"] == "login_locked"
    assert error["detail"] == {"retry_after_seconds": 15 * 60}
    assert refused["Retry-After"] == str(15 * 60)
    assert "15 Minuten" in error["message"]  # German by default
    # The web log-in and another account from the same addresses are not affected by it …
    assert web_login("lena", learner_password("lena"), address="10.9.9.9").status_code == 429
    assert token_post("mara", learner_password("mara"), address="10.0.0.1").status_code == 200


def test_the_lock_message_is_in_the_learners_language(make_learner):
    make_learner("lena")
    for _ in range(ACCOUNT_LIMIT):
        token_post("lena", "falsch-falsch-falsch")
    english = token_post("lena", learner_password("lena"), HTTP_ACCEPT_LANGUAGE="en")
    assert english.json()["error"]["message"] == (
        "Too many failed log-ins for this account or from this network. Wait 15 minutes and "
        "try again, or ask a course admin to lift the lock."
    )
    german = token_post("lena", learner_password("lena"), HTTP_ACCEPT_LANGUAGE="de")
    assert german.json()["error"]["message"].startswith(
        "Zu viele fehlgeschlagene Anmeldungen für dieses Konto oder aus diesem Netz."
    )


def test_failures_from_one_address_lock_that_address(make_learner):
    make_learner("lena")
    # Many accounts, none of them near its own limit: the address's count locks.
    for number in range(ADDRESS_LIMIT):
        response = token_post(f"guess{number % 7}", "falsch-falsch-falsch", address="10.1.1.1")
        expected = 429 if number == ADDRESS_LIMIT - 1 else 400
        assert response.status_code == expected, (number, response.content)
    assert token_post("lena", learner_password("lena"), address="10.1.1.1").status_code == 429
    assert web_login("lena", learner_password("lena"), address="10.1.1.1").status_code == 429
    # From another address the same account logs in: it was the address that was locked.
    assert token_post("lena", learner_password("lena"), address="10.2.2.2").status_code == 200


def test_a_written_x_forwarded_for_does_not_open_a_new_budget(make_learner):
    make_learner("lena")
    for number in range(ACCOUNT_LIMIT):
        token_post(f"guess{number}", "falsch", HTTP_X_FORWARDED_FOR=f"203.0.113.{number}")
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.1"}


def test_the_lock_ends_after_the_cool_off(make_learner):
    make_learner("lena")
    for _ in range(ACCOUNT_LIMIT):
        token_post("lena", "falsch-falsch-falsch")
    assert token_post("lena", learner_password("lena")).status_code == 429
    # Attempts during the lock did not lengthen it; 15 minutes after the last failure it ends.
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - datetime.timedelta(minutes=15, seconds=1)
    )
    assert token_post("lena", learner_password("lena")).status_code == 200


def test_an_admin_lifts_an_accounts_lock(make_learner):
    lena = make_learner("lena")
    make_learner("admin", is_staff=True, is_superuser=True)
    admin = Client()
    assert admin.post("/admin/login/", {"username": "admin", "password": learner_password("admin")})
    for number in range(ACCOUNT_LIMIT):
        token_post("lena", "falsch-falsch-falsch", address=f"10.0.0.{number}")
    assert token_post("lena", learner_password("lena")).status_code == 429

    users = admin.get("/admin/accounts/user/")
    assert "login_lockout_lift" in users.content.decode()
    lifted = admin.post(
        "/admin/accounts/user/",
        {"action": "login_lockout_lift", "_selected_action": [lena.pk]},
        follow=True,
    )
    assert lifted.status_code == 200
    assert f"{ACCOUNT_LIMIT} Einträge mit Fehlversuchen gelöscht" in lifted.content.decode()
    assert token_post("lena", learner_password("lena")).status_code == 200
    assert web_login("lena", learner_password("lena")).status_code == 302


def test_an_admin_lifts_an_address_lock_in_the_axes_admin(make_learner):
    make_learner("lena")
    make_learner("admin", is_staff=True, is_superuser=True)
    admin = Client()
    assert admin.post("/admin/login/", {"username": "admin", "password": learner_password("admin")})
    for number in range(ADDRESS_LIMIT):
        token_post(f"guess{number}", "falsch-falsch-falsch", address="10.1.1.1")
    assert web_login("lena", learner_password("lena"), address="10.1.1.1").status_code == 429

    listing = admin.get("/admin/axes/accessattempt/?ip_address=10.1.1.1")
    assert listing.status_code == 200 and "10.1.1.1" in listing.content.decode()
    ids = list(AccessAttempt.objects.filter(ip_address="10.1.1.1").values_list("pk", flat=True))
    deleted = admin.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert deleted.status_code == 302
    assert web_login("lena", learner_password("lena"), address="10.1.1.1").status_code == 302


@pytest.mark.parametrize(
    ("language", "heading", "message"),
    [
        ("de", "Anmeldung gesperrt", "Warte 15 Minuten"),
        ("en", "Log-in locked", "Wait 15 minutes"),
    ],
)
def test_the_web_log_in_page_says_it_is_locked(make_learner, language, heading, message):
    make_learner("lena")
    for _ in range(ACCOUNT_LIMIT - 1):
        assert web_login("lena", "falsch-falsch-falsch").status_code == 200
    tenth = web_login("lena", "falsch-falsch-falsch", HTTP_ACCEPT_LANGUAGE=language)
    assert tenth.status_code == 429
    page = web_login("lena", learner_password("lena"), HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 429 and page["Retry-After"] == str(15 * 60)
    html = page.content.decode()
    assert f"<h1>{heading}</h1>" in html and message in html
    assert "sessionid" not in page.cookies


def test_the_admin_log_in_is_locked_too(make_learner):
    make_learner("admin", is_staff=True, is_superuser=True)
    for _ in range(ACCOUNT_LIMIT):
        Client().post("/admin/login/", {"username": "admin", "password": "falsch-falsch"})
    page = Client().post(
        "/admin/login/", {"username": "admin", "password": learner_password("admin")}
    )
    assert page.status_code == 429 and "Anmeldung gesperrt" in page.content.decode()


def test_a_failure_stores_no_password(make_learner):
    make_learner("lena")
    client = Client()
    client.post("/login/", {"username": "lena", "password": "geheim-geheim-1"})
    client.force_login(learner_create("mara"))
    client.post(
        "/settings/password/",
        {
            "old_password": "geheim-geheim-2",
            "new_password1": "Wanderer-Spiegel-Kompass-47",
            "new_password2": "Wanderer-Spiegel-Kompass-47",
        },
    )
    stored = " ".join(AccessAttempt.objects.values_list("post_data", flat=True))
    assert AccessAttempt.objects.count() == 2
    for secret in ("geheim-geheim-1", "geheim-geheim-2", "Wanderer-Spiegel-Kompass-47"):
        assert secret not in stored


def test_the_password_page_counts_and_obeys_the_lock(make_learner):
    # A stolen session must not be a way to guess the password: the old-password check is a
    # log-in for axes.
    mara = make_learner("mara")
    client = Client()
    client.force_login(mara)
    body = {
        "old_password": "falsch-falsch-falsch",
        "new_password1": "Wanderer-Spiegel-Kompass-47",
        "new_password2": "Wanderer-Spiegel-Kompass-47",
    }
    for _ in range(ACCOUNT_LIMIT - 1):
        assert client.post("/settings/password/", body).status_code == 200
    assert client.post("/settings/password/", body).status_code == 429
    right = {**body, "old_password": learner_password("mara")}
    assert client.post("/settings/password/", right).status_code == 429
    mara.refresh_from_db()
    assert mara.check_password(learner_password("mara"))


@override_settings(AXES_FAILURE_LIMIT=3, LOGIN_FAILURE_LIMIT_ADDRESS=5)
def test_the_limits_follow_the_settings(make_learner):
    make_learner("lena")
    for _ in range(2):
        assert token_post("lena", "falsch", address="10.0.0.1").status_code == 400
    assert token_post("lena", "falsch", address="10.0.0.2").status_code == 429
    for number in range(4):
        assert token_post(f"guess{number}", "falsch", address="10.0.0.3").status_code == 400
    assert token_post("guess9", "falsch", address="10.0.0.3").status_code == 429


@override_settings(AXES_COOLOFF_TIME=datetime.timedelta(minutes=1))
def test_the_message_counts_the_minutes(make_learner):
    make_learner("lena")
    for _ in range(ACCOUNT_LIMIT):
        token_post("lena", "falsch-falsch-falsch")
    refused = token_post("lena", learner_password("lena"), HTTP_ACCEPT_LANGUAGE="en")
    assert "Wait 1 minute and try again" in refused.json()["error"]["message"]
    assert refused.json()["error"]["detail"] == {"retry_after_seconds": 60}
    german = token_post("lena", learner_password("lena"), HTTP_ACCEPT_LANGUAGE="de")
    assert "Warte 1 Minute und" in german.json()["error"]["message"]
