"""Logging in through an institution's SAML identity provider in Chromium: Debian's
SimpleSAMLphp, started by the test, asserts eduPersonPrincipalName, mail and the names under their
OIDs. The first log-in creates an account (matched by the subject afterwards, not the address);
an address another account has is refused with a page that says why, and nothing is created; the
same signed answer POSTed again logs nobody in."""

from __future__ import annotations

import logging
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from tests.factories import learner_create
from tests.helpers.sso import INSTITUTION, SLUG, USERS, idp_running, saml_app_create

pytestmark = pytest.mark.browser


@pytest.fixture
def idp(live_server, tmp_path):
    yield from idp_running(live_server, tmp_path)


def _log_in_at_idp(page, base: str, name: str) -> None:
    page.goto(base + "/login/")
    page.get_by_role("button", name=f"Mit {INSTITUTION} anmelden").click()
    page.locator("input[name=username]").fill(name)
    page.locator("input[name=password]").fill(USERS[name]["password"])
    page.locator("input[name=password]").press("Enter")


def test_first_log_in_creates_the_account_and_the_second_finds_it_by_subject(
    chromium, live_server, idp, screenshot_dir
):
    from allauth.socialaccount.models import SocialAccount

    from accounts.models import User

    saml_app_create(idp)
    base = live_server.url
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    shot = lambda name: page.screenshot(  # noqa: E731
        path=screenshot_dir / f"sso-saml-{name}.png", full_page=True
    )
    try:
        page.goto(base + "/login/")
        expect(page.get_by_role("button", name=f"Mit {INSTITUTION} anmelden")).to_be_visible()
        shot("01-login")
        page.get_by_role("button", name=f"Mit {INSTITUTION} anmelden").click()
        expect(page.locator("input[name=password]")).to_be_visible()
        assert page.url.startswith(idp.base_url)
        shot("02-idp-form")
        page.locator("input[name=username]").fill("alice")
        page.locator("input[name=password]").fill(USERS["alice"]["password"])
        page.locator("input[name=password]").press("Enter")
        expect(page.locator("h1")).to_have_text("Hallo, Alice Liddell")
        assert page.url == base + "/"
        shot("03-dashboard")

        user = User.objects.get()
        account = SocialAccount.objects.get()
        assert (account.provider, account.uid, account.user_id) == (
            "uni-x",
            "alice@uni-x.example",
            user.pk,
        )
        assert user.username == "alice"
        assert user.email == "alice@uni-x.example"
        assert not user.has_usable_password()

        # No password here: the password page sends her to her institution.
        page.goto(base + "/settings/password/")
        expect(page.locator("main")).to_contain_text("Du meldest dich über deine Einrichtung an")
        shot("04-password-page")

        # Log out; the second log-in (a new assertion; the IdP remembers her, so no form)
        # finds the same account by the subject.
        page.get_by_role("button", name="Abmelden").first.click()
        expect(page.get_by_role("link", name="Anmelden").first).to_be_visible()
        page.goto(base + "/login/")
        page.get_by_role("button", name=f"Mit {INSTITUTION} anmelden").click()
        expect(page.locator("h1")).to_have_text("Hallo, Alice Liddell")
        assert User.objects.count() == 1
        assert SocialAccount.objects.count() == 1
    finally:
        context.close()
    assert "PHP Fatal" not in idp.log()


def test_an_address_another_account_has_is_refused_and_nothing_is_created(
    chromium, live_server, idp, screenshot_dir
):
    from allauth.socialaccount.models import SocialAccount

    from accounts.models import User

    saml_app_create(idp)
    owner = learner_create("bob-local", email="Bob@Lernpfad.example")
    base = live_server.url
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        _log_in_at_idp(page, base, "bob")
        expect(page.locator("h1")).to_have_text("Es gibt schon ein Konto mit dieser E-Mail-Adresse")
        page.screenshot(path=screenshot_dir / "sso-saml-address-in-use.png", full_page=True)
        page.goto(base + "/")
        expect(page.get_by_role("link", name="Anmelden").first).to_be_visible()
    finally:
        context.close()
    assert list(User.objects.values_list("pk", flat=True)) == [owner.pk]
    assert not SocialAccount.objects.exists()


def test_a_replayed_assertion_is_refused_in_the_same_and_in_another_browser(
    chromium, live_server, idp, screenshot_dir, caplog
):
    """The IdP's signed answer, POSTed to the ACS a second time (by the same browser, or by
    someone who copied it), logs nobody in: the request it answered was used up by the first
    log-in."""
    from allauth.socialaccount.models import SocialAccount
    from django.contrib.sessions.models import Session

    from accounts.models import User

    saml_app_create(idp)
    base = live_server.url
    acs = f"{base}/sso/saml/{SLUG}/acs/"
    answers: list[str] = []
    context = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    other = chromium.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()

    def keep_answer(request) -> None:
        if request.method == "POST" and request.url == acs:
            answers.append(parse_qs(request.post_data)["SAMLResponse"][0])

    page.on("request", keep_answer)
    try:
        _log_in_at_idp(page, base, "alice")
        expect(page.locator("h1")).to_have_text("Hallo, Alice Liddell")
        assert len(answers) == 1
        sessions = Session.objects.count()

        with caplog.at_level(logging.WARNING, logger="lernpfad.sso"):
            for browser in (context, other):
                replayed = browser.request.post(acs, form={"SAMLResponse": answers[0]})
                assert replayed.status == 400, replayed.status
                assert "Anmeldung über deine Einrichtung fehlgeschlagen" in replayed.text()
        assert [line for line in caplog.messages if "SSO log-in failed: provider uni-x" in line]

        stranger = other.new_page()
        stranger.goto(base + "/")
        expect(stranger.get_by_role("link", name="Anmelden").first).to_be_visible()
        stranger.set_content(replayed.text())
        stranger.screenshot(path=screenshot_dir / "sso-saml-replayed.png", full_page=True)
    finally:
        other.close()
        context.close()
    assert User.objects.count() == 1
    assert SocialAccount.objects.count() == 1
    assert Session.objects.count() <= sessions
