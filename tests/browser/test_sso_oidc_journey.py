"""Logging in through an institution's OpenID Connect provider in Chromium: Debian's
LemonLDAP::NG portal, started by the test with its Demo users, signs RS256 ID tokens with a key
made now. A superuser connects it in the admin; the first log-in (form, consent) creates an
account, and the next one finds it by the ``sub`` claim although the provider now asserts
another address. A refused consent comes back as the provider's error: a 400 page that says
the log-in was cancelled, nothing created."""

from __future__ import annotations

import logging

import pytest
from playwright.sync_api import expect

from tests.factories import learner_create, learner_password
from tests.helpers.browser import Shots, log_in
from tests.helpers.sso import OIDC_INSTITUTION, OIDC_SLUG, oidc_app_create, oidc_provider_running

pytestmark = pytest.mark.browser

BUTTON = f"Mit {OIDC_INSTITUTION} anmelden"


@pytest.fixture
def provider(live_server, tmp_path):
    yield from oidc_provider_running(live_server, tmp_path)


def _provider_log_in(page, user: str) -> None:
    """The portal's form; a Demo user's password is the user name."""
    page.locator("input[name=user]").fill(user)
    page.locator("input[name=password]").fill(user)
    page.locator("input[name=password]").press("Enter")


def _app_add_in_admin(page, base: str, provider, shot: Shots) -> None:
    """A superuser connects the provider as docs/operations/sso.md says."""
    root = learner_create("root", is_staff=True, is_superuser=True)
    log_in(page, base + "/admin/login/", root.username, learner_password(root.username))
    page.goto(base + "/admin/socialaccount/socialapp/add/")
    page.locator("select[name=provider]").select_option("openid_connect")
    page.locator("input[name=provider_id]").fill(OIDC_SLUG)
    page.locator("input[name=name]").fill(OIDC_INSTITUTION)
    page.locator("input[name=client_id]").fill(provider.client_id)
    page.locator("input[name=secret]").fill(provider.client_secret)
    page.locator("textarea[name=settings]").fill(
        f'{{"server_url": "{provider.issuer}", "local_passwords": false}}'
    )
    page.locator("input[name=_save]").click()
    expect(page.locator(".messagelist")).to_contain_text(OIDC_INSTITUTION)
    shot("admin-provider-added")
    page.get_by_role("button", name="Abmelden").first.click()


def test_first_log_in_creates_the_account_and_the_next_finds_it_by_sub(
    chromium, live_server, provider, screenshot_dir
):
    from allauth.socialaccount.models import SocialAccount, SocialApp

    from accounts.models import User

    base = live_server.url
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    shot = Shots(page, screenshot_dir, "sso-oidc")
    try:
        _app_add_in_admin(page, base, provider, shot)
        app = SocialApp.objects.get()
        assert (app.provider, app.provider_id, app.settings["server_url"]) == (
            "openid_connect",
            OIDC_SLUG,
            provider.issuer,
        )

        page.goto(base + "/login/")
        expect(page.get_by_role("button", name=BUTTON)).to_be_visible()
        shot("login")
        page.get_by_role("button", name=BUTTON).click()
        expect(page.locator("input[name=user]")).to_be_visible()
        assert page.url.startswith(provider.base_url + "/oauth2/authorize")
        shot("provider-form")
        _provider_log_in(page, "dwho")
        # The provider asks once whether Lernpfad may know her address and profile.
        expect(page.get_by_role("button", name="Akzeptieren")).to_be_visible()
        shot("provider-consent")
        page.get_by_role("button", name="Akzeptieren").click()
        expect(page.locator("h1")).to_have_text("Hallo, Doctor Who")
        assert page.url == base + "/"
        shot("dashboard")

        user = User.objects.get(is_superuser=False)
        account = SocialAccount.objects.get()
        assert (account.provider, account.uid, account.user_id) == (OIDC_SLUG, "dwho", user.pk)
        assert (user.username, user.email) == ("dwho", "dwho@uni-x.example")
        assert (user.first_name, user.last_name) == ("Doctor", "Who")
        assert not user.has_usable_password()

        # Log out here and at the institution; the institution gives him another address.
        page.get_by_role("button", name="Abmelden").first.click()
        expect(page.get_by_role("link", name="Anmelden").first).to_be_visible()
        page.goto(provider.base_url + "/?logout=1")
        provider.mail_domain_change("neu.uni-y.example")

        # The second log-in (form again, consent remembered) is the same account, found by the
        # subject; the new address matches nothing and changes nothing.
        page.goto(base + "/login/")
        page.get_by_role("button", name=BUTTON).click()
        expect(page.locator("input[name=user]")).to_be_visible()
        _provider_log_in(page, "dwho")
        expect(page.locator("h1")).to_have_text("Hallo, Doctor Who")
        shot("dashboard-again")
        assert User.objects.filter(is_superuser=False).count() == 1
        account.refresh_from_db()
        assert (account.uid, account.user_id) == ("dwho", user.pk)
        assert account.extra_data["userinfo"]["email"] == "dwho@neu.uni-y.example"
        user.refresh_from_db()
        assert user.email == "dwho@uni-x.example"
    finally:
        context.close()


def test_a_refused_consent_is_a_cancelled_log_in_and_nothing_is_created(
    chromium, live_server, provider, screenshot_dir, caplog
):
    from allauth.socialaccount.models import SocialAccount

    from accounts.models import User

    oidc_app_create(provider)
    base = live_server.url
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    shot = Shots(page, screenshot_dir, "sso-oidc-refused")
    try:
        with caplog.at_level(logging.WARNING, logger="lernpfad.sso"):
            page.goto(base + "/login/")
            page.get_by_role("button", name=BUTTON).click()
            _provider_log_in(page, "rtyler")
            page.get_by_role("button", name="Verweigern").click()
            expect(page.locator("h1")).to_have_text(
                "Anmeldung über deine Einrichtung fehlgeschlagen"
            )
        assert page.url.startswith(f"{base}/sso/oidc/{OIDC_SLUG}/login/callback/?error=")
        expect(page.locator("main")).to_contain_text(
            "Die Anmeldung wurde bei deiner Einrichtung abgebrochen."
        )
        shot("error-page")
        page.goto(base + "/")
        expect(page.get_by_role("link", name="Anmelden").first).to_be_visible()
    finally:
        context.close()
    assert any(f"SSO log-in failed: provider {OIDC_SLUG}" in line for line in caplog.messages)
    assert not User.objects.exists()
    assert not SocialAccount.objects.exists()
