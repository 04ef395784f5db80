"""A learner changes the password in a real browser: logged in in two browsers and on a phone
(a token), the change in one browser logs out the other and the phone, the new password logs in;
then "log out everywhere" and the lockout page after too many wrong passwords. Screenshots of
every page."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.factories import learner_create, learner_password

pytestmark = pytest.mark.browser

NEW_PASSWORD = "Wanderer-Spiegel-Kompass-47"


def _api(base: str, path: str, *, token: str | None = None, body: dict | None = None):
    """(status, JSON) of a request to the live server, as a phone app makes it."""
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", "Accept-Language": "en"}
        | ({"Authorization": f"Token {token}"} if token else {}),
        method="POST" if body is not None else "GET",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _log_in(page, base: str, password: str, *, field: str, secret: str, button: str) -> None:
    page.goto(base + "/login/")
    page.get_by_label(field).fill("lena")
    page.get_by_label(secret, exact=True).fill(password)
    page.get_by_role("button", name=button, exact=True).click()


def test_password_change_logs_out_every_other_browser_and_app(
    chromium, live_server, screenshot_dir
):
    learner_create("lena")
    base = live_server.url
    status, issued = _api(
        base,
        "/api/v1/auth/token/",
        body={"username": "lena", "password": learner_password("lena"), "device_name": "phone"},
    )
    assert status == 200
    token = issued["token"]
    assert _api(base, "/api/v1/me/", token=token)[0] == 200

    laptop = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    tablet = chromium.new_context(locale="en-US", viewport={"width": 375, "height": 812})
    here, there = laptop.new_page(), tablet.new_page()

    def shot(page, name: str) -> None:
        page.screenshot(path=screenshot_dir / f"password-{name}.png", full_page=True)

    try:
        german = {"field": "Benutzername oder E-Mail-Adresse", "secret": "Passwort"}
        english = {"field": "User name or e-mail address", "secret": "Password"}
        _log_in(here, base, learner_password("lena"), **german, button="Anmelden")
        _log_in(there, base, learner_password("lena"), **english, button="Log in")
        # After the log-in the account's language (German) applies; the tablet switches to
        # English (stored on the account; the laptop keeps its language cookie).
        there.get_by_text("Menü", exact=True).click()  # a phone: the switch is in the menu
        there.get_by_label("Sprache").select_option("en")
        there.get_by_role("button", name="Wechseln").click()
        there.goto(base + "/settings/")
        expect(there.locator("h1")).to_have_text("Settings")

        # The settings page leads to the password page.
        here.goto(base + "/settings/")
        shot(here, "01-settings-de")
        here.get_by_role("link", name="Passwort ändern").click()
        expect(here.locator("h1")).to_have_text("Passwort ändern")
        shot(here, "02-form-de")

        # A weak new password is refused, with the reason in German.
        here.get_by_label("Aktuelles Passwort").fill(learner_password("lena"))
        here.get_by_label("Neues Passwort", exact=True).fill("Sommer2026!")
        here.get_by_label("Neues Passwort wiederholen").fill("Sommer2026!")
        here.get_by_role("button", name="Passwort ändern").click()
        expect(here.locator(".errorlist")).to_contain_text(
            "Dieses Passwort ist zu leicht zu erraten."
        )
        shot(here, "03-weak-refused-de")

        here.get_by_label("Aktuelles Passwort").fill(learner_password("lena"))
        here.get_by_label("Neues Passwort", exact=True).fill(NEW_PASSWORD)
        here.get_by_label("Neues Passwort wiederholen").fill(NEW_PASSWORD)
        here.get_by_role("button", name="Passwort ändern").click()
        expect(here.locator(".message")).to_contain_text("Dein Passwort ist geändert.")
        expect(here.locator("h1")).to_have_text("Einstellungen")  # still logged in here
        shot(here, "04-changed-de")

        # The other browser is logged out, the phone's token is refused.
        there.goto(base + "/settings/")
        expect(there.locator("h1")).to_have_text("Log in")
        shot(there, "05-other-browser-logged-out-en")
        status, body = _api(base, "/api/v1/me/", token=token)
        assert status == 401 and body["error"]["code"] == "authentication_failed", body

        # The old password no longer works, the new one does.
        _log_in(there, base, learner_password("lena"), **english, button="Log in")
        expect(there.locator(".message--error")).to_be_visible()
        _log_in(there, base, NEW_PASSWORD, **english, button="Log in")
        there.goto(base + "/settings/")
        expect(there.locator("h1")).to_have_text("Settings")
        shot(there, "06-new-password-logs-in-en")
        status, _body = _api(
            base,
            "/api/v1/auth/token/",
            body={"username": "lena", "password": NEW_PASSWORD, "device_name": "phone"},
        )
        assert status == 200

        # "Log out everywhere" in one browser ends the other one too.
        there.get_by_role("button", name="Log out everywhere").click()
        expect(there.locator("h1")).to_have_text("Log in")
        expect(there.locator(".message")).to_contain_text("You are logged out everywhere")
        shot(there, "07-logged-out-everywhere-en")
        here.goto(base + "/settings/")
        expect(here.locator("h1")).to_have_text("Anmelden")
        shot(here, "08-also-logged-out-de")
    finally:
        laptop.close()
        tablet.close()


def test_too_many_wrong_passwords_show_the_lock_page(chromium, live_server, screenshot_dir):
    learner_create("lena")
    base = live_server.url
    for _ in range(10):
        status, body = _api(
            base,
            "/api/v1/auth/token/",
            body={"username": "lena", "password": "falsch-falsch", "device_name": "phone"},
        )
    assert status == 429 and body["error"]["code"] == "login_locked", body
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        _log_in(
            page,
            base,
            learner_password("lena"),
            field="Benutzername oder E-Mail-Adresse",
            secret="Passwort",
            button="Anmelden",
        )
        expect(page.locator("h1")).to_have_text("Anmeldung gesperrt")
        expect(page.locator(".message--error")).to_contain_text("Warte 15 Minuten")
        page.screenshot(path=screenshot_dir / "password-09-locked-de.png", full_page=True)
    finally:
        context.close()
