"""Single sign-on without a browser: bad SAML input refused with a 400 page and nothing written,
an unknown provider a 404, the local-password setting per provider, and the admin of the
providers (superusers only, in German)."""

from __future__ import annotations

import base64
import logging
import subprocess

import pytest
from allauth.socialaccount.models import SocialAccount, SocialApp
from django.contrib.auth.models import Group

from accounts.mails import password_reset_mails_send
from accounts.models import User
from accounts.roles import COURSE_ADMIN_GROUP, course_admin_group_sync
from tests.factories import learner_create, learner_password

pytestmark = pytest.mark.django_db

IDP = "https://idp.uni-x.example/idp/shibboleth"


@pytest.fixture
def saml_app(tmp_path):
    """An institution's SAML provider with a certificate of its own (made now with openssl)."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=idp", "-keyout", str(tmp_path / "k"), "-out", str(tmp_path / "c")],
        check=True, capture_output=True,
    )  # fmt: skip
    return SocialApp.objects.create(
        provider="saml",
        provider_id="uni-x",
        client_id="uni-x",
        name="Universität X",
        settings={
            "idp": {
                "entity_id": IDP,
                "sso_url": "https://idp.uni-x.example/sso",
                "x509cert": (tmp_path / "c").read_text(),
            },
            "attribute_mapping": {"uid": "urn:oid:1.3.6.1.4.1.5923.1.1.1.6"},
        },
    )


def _response(*, audience: str, signed: bool = False) -> str:
    """A SAML response for alice, as an attacker would write it: not signed by the IdP."""
    xml = f"""<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"
 xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r1" Version="2.0"
 IssueInstant="2030-01-01T00:00:00Z" Destination="http://lernpfad.example/sso/saml/uni-x/acs/">
 <saml:Issuer>{IDP}</saml:Issuer>
 <samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>
 <saml:Assertion ID="_a1" Version="2.0" IssueInstant="2030-01-01T00:00:00Z">
  <saml:Issuer>{IDP}</saml:Issuer>
  <saml:Subject><saml:NameID>alice</saml:NameID></saml:Subject>
  <saml:Conditions><saml:AudienceRestriction><saml:Audience>{audience}</saml:Audience>
  </saml:AudienceRestriction></saml:Conditions>
  <saml:AttributeStatement><saml:Attribute Name="urn:oid:1.3.6.1.4.1.5923.1.1.1.6">
   <saml:AttributeValue>alice@uni-x.example</saml:AttributeValue></saml:Attribute>
  </saml:AttributeStatement>
 </saml:Assertion></samlp:Response>"""
    return base64.b64encode(xml.encode()).decode()


@pytest.mark.parametrize(
    "saml_response",
    [
        pytest.param(
            _response(audience="http://lernpfad.example/sso/saml/uni-x/metadata/"), id="unsigned"
        ),
        pytest.param(_response(audience="https://other-sp.example/"), id="other-audience"),
        pytest.param("bm90IHhtbA==", id="not-xml"),
        pytest.param("%%%", id="not-base64"),
    ],
)
def test_a_bad_saml_response_is_refused_with_a_page_and_nothing_is_written(
    client, saml_app, caplog, saml_response
):
    # A browser always names the host; the ACS request is kept and replayed from it.
    client.defaults["HTTP_HOST"] = "lernpfad.example"
    with caplog.at_level(logging.WARNING, logger="lernpfad.sso"):
        response = client.post("/sso/saml/uni-x/acs/", {"SAMLResponse": saml_response}, follow=True)
    assert response.status_code == 400
    assert "Anmeldung über deine Einrichtung fehlgeschlagen" in response.content.decode()
    assert "kein Konto wurde angelegt" in response.content.decode()
    assert any("SSO log-in failed: provider uni-x" in line for line in caplog.messages)
    assert not User.objects.exists()
    assert not SocialAccount.objects.exists()


def test_an_unknown_provider_is_a_404(client, saml_app):
    assert (
        client.post("/sso/saml/nobody/acs/", {"SAMLResponse": "x"}, follow=True).status_code == 404
    )
    assert client.get("/sso/oidc/nobody/login/").status_code == 404
    assert not User.objects.exists()


def test_the_log_in_page_has_a_button_per_provider_and_the_english_page_too(client, saml_app):
    page = client.get("/login/").content.decode()
    assert "Mit Universität X anmelden" in page
    assert 'action="/sso/saml/uni-x/login/?process=login"' in page
    english = client.get("/login/", headers={"accept-language": "en"}).content.decode()
    assert "Log in with Universität X" in english


def _sso_account(app: SocialApp, username: str = "alice") -> User:
    user = learner_create(username)
    user.set_unusable_password()
    user.save()
    SocialAccount.objects.create(user=user, provider=app.provider_id, uid=f"{username}@uni-x")
    return user


@pytest.mark.parametrize("allowed", [False, True])
def test_local_passwords_follow_the_providers_setting(client, saml_app, allowed):
    saml_app.settings["local_passwords"] = allowed
    saml_app.save()
    user = _sso_account(saml_app)
    # No password log-in for an account made through the provider.
    assert (
        client.post(
            "/login/", {"username": "alice", "password": learner_password("alice")}
        ).status_code
        == 200
    )
    client.force_login(user)
    page = client.get("/settings/password/").content.decode()
    # A reset link goes out only where the provider allows local passwords.
    assert password_reset_mails_send(email=user.email) == (1 if allowed else 0)
    if allowed:
        assert "Link zum Setzen eines Passworts senden" in page
    else:
        assert "Dein Passwort ist das deiner Einrichtung" in page
        assert "Link zum Setzen" not in page


def test_an_account_with_a_password_keeps_it_when_it_connects_a_provider(saml_app):
    user = learner_create("carla")
    SocialAccount.objects.create(user=user, provider="uni-x", uid="carla@uni-x")
    assert password_reset_mails_send(email=user.email) == 1


def test_only_superusers_manage_the_providers_and_the_admin_speaks_german(client, saml_app):
    course_admin = learner_create("kurs", is_staff=True)
    course_admin_group_sync()
    course_admin.groups.add(Group.objects.get(name=COURSE_ADMIN_GROUP))
    client.force_login(course_admin)
    assert client.get("/admin/socialaccount/socialapp/").status_code == 403
    assert client.get(f"/admin/socialaccount/socialapp/{saml_app.pk}/change/").status_code == 403
    assert "socialaccount" not in client.get("/admin/").content.decode()

    client.force_login(learner_create("root", is_staff=True, is_superuser=True))
    page = client.get("/admin/socialaccount/socialapp/").content.decode()
    assert "Soziale Anwendungen" in page
    assert "Single Sign-on" in client.get("/admin/").content.decode()
    # A SAML provider without a provider ID of its own is refused.
    response = client.post(
        "/admin/socialaccount/socialapp/add/",
        {"provider": "saml", "provider_id": "", "name": "Uni Y", "client_id": "uni-y",
         "secret": "", "key": "", "settings": '{"local_passwords": "no"}'},
    )  # fmt: skip
    assert response.status_code == 200
    text = response.content.decode()
    assert "eine eigene Anbieter-ID" in text
    assert "ist true oder false" in text
    assert SocialApp.objects.count() == 1
