"""A device logged in without ``device_name`` is named after its User-Agent (never "")."""

import pytest
from django.core.cache import cache
from django.utils import translation

from accounts.device_names import device_name_from_user_agent
from tests.factories import learner_password, token_client

FIREFOX_ANDROID = "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0"
CHROME_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
EDGE_WINDOWS = CHROME_WINDOWS + " Edg/131.0.2903.86"
SAFARI_IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
)


@pytest.mark.parametrize(
    ("user_agent", "german", "english"),
    [
        (FIREFOX_ANDROID, "Firefox auf Android", "Firefox on Android"),
        (CHROME_WINDOWS, "Chrome auf Windows", "Chrome on Windows"),
        (EDGE_WINDOWS, "Edge auf Windows", "Edge on Windows"),
        (SAFARI_IPHONE, "Safari auf iOS", "Safari on iOS"),
        ("okhttp/4.12.0", "okhttp/4.12.0", "okhttp/4.12.0"),
        ("Dart/3.5 (dart:io)", "Dart/3.5", "Dart/3.5"),
        ("Lernpfad/2.1 (Android 14; Pixel 8)", "Android", "Android"),
        ("", "Unbekanntes Gerät", "Unknown device"),
        ("   ", "Unbekanntes Gerät", "Unknown device"),
        ("Mozilla/5.0", "Unbekanntes Gerät", "Unknown device"),
    ],
)
def test_a_name_from_the_user_agent(user_agent, german, english):
    with translation.override("de"):
        assert device_name_from_user_agent(user_agent, max_length=100) == german
    with translation.override("en"):
        assert device_name_from_user_agent(user_agent, max_length=100) == english


def test_the_name_fits_the_column():
    assert device_name_from_user_agent("x" * 500, max_length=100) == "x" * 100


def _log_in(api_client, user_agent: str | None, **extra):
    headers = {} if user_agent is None else {"HTTP_USER_AGENT": user_agent}
    response = api_client.post(
        "/api/v1/auth/token/",
        {"username": "lena", "password": learner_password("lena"), **extra},
        format="json",
        HTTP_ACCEPT_LANGUAGE="de",
        **headers,
    )
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.django_db
def test_a_device_without_a_name_is_named_after_its_user_agent(api_client, make_learner):
    cache.clear()
    make_learner("lena")
    firefox = _log_in(api_client, FIREFOX_ANDROID)
    _log_in(api_client, "okhttp/4.12.0", device_name="")
    _log_in(api_client, "", device_name="   ")
    named = _log_in(api_client, FIREFOX_ANDROID, device_name="Mein Tablet")
    # A second phone with the same browser keeps the first one's token: only a name the client
    # chose replaces a device.
    _log_in(api_client, FIREFOX_ANDROID)
    devices = token_client(named["token"]).get("/api/v1/auth/tokens/").json()
    names = sorted(device["name"] for device in devices)
    assert names == [
        "Firefox auf Android",
        "Firefox auf Android",
        "Mein Tablet",
        "Unbekanntes Gerät",
        "okhttp/4.12.0",
    ]
    assert token_client(firefox["token"]).get("/api/v1/me/").status_code == 200
