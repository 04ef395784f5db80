"""Registration, mobile tokens (per device, hashed, expiring, revocable), log-out, throttling of
registration."""

import datetime

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.models import Device
from tests.accounts.conftest import confirmation_token_in
from tests.factories import api_client_for, learner_password, token_client
from tests.helpers.queries import assert_queries_constant

pytestmark = pytest.mark.django_db

User = get_user_model()
REGISTER = "/api/v1/auth/register/"
TOKEN = "/api/v1/auth/token/"
CONFIRM = "/api/v1/auth/email-confirmation/"
STRONG = "Lernpfad-ist-toll-2026"


@pytest.fixture(autouse=True)
def _fresh_throttle():
    # Throttle counters live in the cache; each test starts with none.
    cache.clear()
    yield
    cache.clear()


def login(api_client, username="lena", device="phone"):
    response = api_client.post(
        TOKEN,
        {"username": username, "password": learner_password(username), "device_name": device},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_register_confirm_then_log_in_gives_a_working_token(api_client, committed):
    """The mobile flow: register (202, no token), open the mailed link's token through the API,
    then log in for a token."""
    with committed():
        response = api_client.post(
            REGISTER,
            {
                "username": "mara",
                "email": "Mara@Example.org",
                "password": STRONG,
                "display_name": "Mara",
                "time_zone": "Europe/Vienna",
                "device_name": "Pixel 8",
            },
            format="json",
        )
    assert response.status_code == 202, response.content
    assert set(response.json()) == {"status", "message"} and "token" not in response.json()
    credentials = {"username": "mara", "password": STRONG, "device_name": "Pixel 8"}
    # Not yet confirmed: refused like a wrong password.
    refused = api_client.post(TOKEN, credentials, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid_credentials"

    (message,) = mail.outbox
    assert message.to == ["Mara@example.org"]  # create_user lower-cases the domain
    token = confirmation_token_in(message)
    confirmed = api_client.post(CONFIRM, {"token": token}, format="json")
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "confirmed"

    body = api_client.post(TOKEN, credentials, format="json").json()
    assert body["user"]["username"] == "mara"
    assert body["user"]["language"] == "de" and body["user"]["time_zone"] == "Europe/Vienna"
    assert "password" not in body["user"]
    expiry = datetime.datetime.fromisoformat(body["expiry"])
    assert expiry - timezone.now() > datetime.timedelta(days=29)
    me = token_client(body["token"]).get("/api/v1/me/")
    assert me.status_code == 200 and me.json()["display_name"] == "Mara"
    assert Device.objects.get(user__username="mara").name == "Pixel 8"


def test_tokens_are_stored_hashed(api_client, make_learner):
    make_learner("lena")
    token = login(api_client)["token"]
    row = AuthToken.objects.get(user__username="lena")
    assert token not in (row.digest, row.token_key)
    assert len(row.digest) == 128 and row.token_key == token[:15]


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"password": "kurz"}, "password"),  # shorter than 10 characters
        ({"password": "1234567890"}, "password"),  # common and numeric
        ({"password": "mara@example.org"}, "password"),  # like the e-mail address
        ({"username": "LENA"}, "username"),  # taken, whatever the case
        ({"username": "lena@example.org"}, "username"),  # an address, and lena's
        ({"username": "mara@example.org"}, "username"),  # an address
        ({"email": "not-an-address"}, "email"),
        ({"time_zone": "Mars/Olympus_Mons"}, "time_zone"),
        ({"language": "fr"}, "language"),
        ({"username": "mit leerzeichen"}, "username"),
    ],
)
def test_register_rejects_bad_input_and_writes_nothing(api_client, make_learner, changes, field):
    make_learner("lena")
    data = {"username": "mara", "email": "mara@example.org", "password": STRONG, **changes}
    response = api_client.post(REGISTER, data, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["detail"][field]
    assert User.objects.count() == 1 and AuthToken.objects.count() == 0


def test_register_reports_every_password_problem(api_client):
    body = api_client.post(
        REGISTER,
        {"username": "mara", "email": "mara@example.org", "password": "12345"},
        format="json",
    ).json()
    # Django's own messages and the strength validator's, in the request's language (German
    # by default).
    messages = body["error"]["detail"]["password"]
    assert len(messages) == 4
    assert "zu kurz" in messages[0] and "zu üblich" in messages[1]
    assert messages[3].startswith("Dieses Passwort ist zu leicht zu erraten.")


def test_token_by_username_or_email(api_client, make_learner):
    make_learner("lena")
    by_name = login(api_client)
    by_mail = api_client.post(
        TOKEN, {"email": "LENA@example.org", "password": learner_password("lena")}, format="json"
    )
    assert by_mail.status_code == 200
    assert by_mail.json()["token"] != by_name["token"]
    assert AuthToken.objects.filter(user__username="lena").count() == 2


@pytest.mark.parametrize(
    "data",
    [
        {"username": "lena", "password": "falsch-falsch-falsch"},
        {"username": "nobody", "password": "falsch-falsch-falsch"},
        {"email": "nobody@example.org", "password": "falsch-falsch-falsch"},
    ],
)
def test_wrong_credentials_are_one_400(api_client, make_learner, data):
    make_learner("lena")
    response = api_client.post(TOKEN, data, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_credentials"
    assert AuthToken.objects.count() == 0


def test_inactive_user_gets_no_token(api_client, make_learner):
    make_learner("lena", is_active=False)
    response = api_client.post(
        TOKEN, {"username": "lena", "password": learner_password("lena")}, format="json"
    )
    assert response.status_code == 400


def test_token_needs_exactly_one_of_username_and_email(api_client, make_learner):
    make_learner("lena")
    both = {"username": "lena", "email": "lena@example.org", "password": learner_password("lena")}
    assert api_client.post(TOKEN, both, format="json").status_code == 400
    assert api_client.post(TOKEN, {"password": "x"}, format="json").status_code == 400


@override_settings(
    REST_FRAMEWORK={
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"login": "3/min"},
    }
)
def test_repeated_registrations_get_429_in_the_error_shape(api_client, make_learner):
    make_learner("lena")
    for number in range(3):
        taken = {"username": "lena", "email": f"x{number}@example.org", "password": STRONG}
        assert api_client.post(REGISTER, taken, format="json").status_code == 400
    new = {"username": "mara", "email": "mara@example.org", "password": STRONG}
    response = api_client.post(REGISTER, new, format="json")
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "throttled" and error["detail"]["retry_after_seconds"] > 0
    assert "Retry-After" in response.headers
    # Log-ins are not rated (django-axes counts their failures: tests/accounts/test_lockout.py).
    right = {"username": "lena", "password": learner_password("lena")}
    assert api_client.post(TOKEN, right, format="json").status_code == 200
    # Another client address has its own budget.
    other = api_client.post(REGISTER, new, format="json", REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 202


def test_logout_revokes_only_this_token(api_client, make_learner):
    make_learner("lena")
    phone = token_client(login(api_client, device="phone")["token"])
    tablet = token_client(login(api_client, device="tablet")["token"])
    assert phone.post("/api/v1/auth/logout/").status_code == 204
    assert phone.get("/api/v1/me/").status_code == 401
    assert tablet.get("/api/v1/me/").status_code == 200
    assert list(Device.objects.values_list("name", flat=True)) == ["tablet"]


def test_logout_all_revokes_every_token(api_client, make_learner):
    make_learner("lena")
    make_learner("mara")
    phone = token_client(login(api_client, device="phone")["token"])
    tablet = token_client(login(api_client, device="tablet")["token"])
    mara = token_client(login(api_client, username="mara")["token"])
    assert phone.post("/api/v1/auth/logout-all/").status_code == 204
    assert phone.get("/api/v1/me/").status_code == 401
    assert tablet.get("/api/v1/me/").status_code == 401
    assert mara.get("/api/v1/me/").status_code == 200


def test_session_logout_needs_csrf_and_ends_the_session(make_learner):
    user = make_learner("lena")
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get("/api/v1/me/").status_code == 200
    # A session-authenticated write without the CSRF token is refused: CSRF is on.
    assert client.post("/api/v1/auth/logout/").status_code == 403
    client.get("/admin/login/")  # sets the csrftoken cookie
    csrf = client.cookies["csrftoken"].value
    assert client.post("/api/v1/auth/logout/", HTTP_X_CSRFTOKEN=csrf).status_code == 204
    assert client.get("/api/v1/me/").status_code in (401, 403)


def test_devices_list_and_revoke_one(api_client, make_learner):
    make_learner("lena")
    phone_login = login(api_client, device="phone")
    tablet_login = login(api_client, device="tablet")
    phone = token_client(phone_login["token"])
    devices = phone.get("/api/v1/auth/tokens/").json()
    assert [(d["name"], d["current"]) for d in devices] == [("tablet", False), ("phone", True)]
    tablet_id = tablet_login["device_id"]
    assert phone.delete(f"/api/v1/auth/tokens/{tablet_id}/").status_code == 204
    assert token_client(tablet_login["token"]).get("/api/v1/me/").status_code == 401
    assert phone.delete(f"/api/v1/auth/tokens/{tablet_id}/").status_code == 404


def test_logging_in_again_on_a_device_replaces_its_token(api_client, make_learner):
    make_learner("lena")
    old = login(api_client, device="phone")["token"]
    new = login(api_client, device="phone")["token"]
    assert token_client(old).get("/api/v1/me/").status_code == 401
    assert token_client(new).get("/api/v1/me/").status_code == 200
    assert Device.objects.count() == 1


@override_settings(
    REST_KNOX={
        **settings.REST_KNOX,
        "TOKEN_LIMIT_PER_USER": 3,
    }
)
def test_the_oldest_tokens_go_beyond_the_limit(api_client, make_learner):
    make_learner("lena")
    tokens = [login(api_client, device=f"device {i}")["token"] for i in range(4)]
    assert AuthToken.objects.count() == 3
    assert token_client(tokens[0]).get("/api/v1/me/").status_code == 401
    assert token_client(tokens[3]).get("/api/v1/me/").status_code == 200


def test_an_expired_token_is_refused(api_client, make_learner):
    make_learner("lena")
    token = login(api_client)["token"]
    AuthToken.objects.update(expiry=timezone.now() - datetime.timedelta(seconds=1))
    response = token_client(token).get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def test_a_garbage_token_is_401_in_the_error_shape(make_learner):
    response = token_client("not-a-token").get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


@pytest.mark.parametrize(
    "method, url",
    [
        ("post", "/api/v1/auth/logout/"),
        ("post", "/api/v1/auth/logout-all/"),
        ("get", "/api/v1/auth/tokens/"),
        ("delete", "/api/v1/auth/tokens/1/"),
    ],
)
def test_token_endpoints_need_log_in(api_client, method, url):
    response = getattr(api_client, method)(url)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_device_list_queries_do_not_grow_with_the_devices(api_client, make_learner):
    user = make_learner("lena")
    client = api_client_for(user)
    login(api_client, device="phone")

    def more_devices():
        for index in range(5):
            login(api_client, device=f"tablet {index}")

    assert_queries_constant(
        lambda: client.get("/api/v1/auth/tokens/").json(), grow=more_devices, budget=2
    )
    assert len(client.get("/api/v1/auth/tokens/").json()) == 6


def test_a_token_request_authenticates_with_one_statement(api_client, make_learner):
    make_learner("lena")
    token = login(api_client, device="phone")["token"]
    client = token_client(token)

    def more_tokens():
        for device in ("tablet", "laptop"):
            login(api_client, device=device)

    # The token row joined with its user, whatever else the account holds.
    assert_queries_constant(
        lambda: client.get("/api/v1/me/").status_code, grow=more_tokens, budget=2
    )
    assert client.get("/api/v1/me/").status_code == 200


def test_expired_tokens_of_other_devices_go_at_the_next_log_in(api_client, make_learner):
    make_learner("lena")
    old = login(api_client, device="old phone")["token"]
    AuthToken.objects.update(expiry=timezone.now() - datetime.timedelta(days=1))
    login(api_client, device="new phone")
    assert list(Device.objects.values_list("name", flat=True)) == ["new phone"]
    assert token_client(old).get("/api/v1/me/").status_code == 401
