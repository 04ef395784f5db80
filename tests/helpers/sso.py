"""The single sign-on tests' institutions: a real SAML identity provider (SimpleSAMLphp from
Debian) and a real OpenID Connect provider (LemonLDAP::NG from Debian) per test, configured in
the database the way an operator does in the admin."""

from __future__ import annotations

from tests.conftest import _missing
from tests.helpers import oidc_provider, saml_idp

INSTITUTION = "Universität X"
SLUG = "uni-x"
USERS = {
    "alice": {
        "password": "Wunderland-Kaninchen-83",
        "eduPersonPrincipalName": "alice@uni-x.example",
        "mail": "alice@uni-x.example",
        "givenName": "Alice",
        "sn": "Liddell",
    },
    "bob": {
        "password": "Baumeister-Kran-61",
        "eduPersonPrincipalName": "bob@uni-x.example",
        "mail": "bob@lernpfad.example",
        "givenName": "Bob",
        "sn": "Bauer",
    },
}


def saml_app_create(idp, *, local_passwords: bool = False, slug: str = SLUG):
    """The institution's provider as the operator's guide (docs/operations/sso.md) fills it in."""
    from allauth.socialaccount.models import SocialApp

    return SocialApp.objects.create(
        provider="saml",
        provider_id=slug,
        client_id=slug,
        name=INSTITUTION,
        settings={
            "idp": {"entity_id": idp.entity_id, "metadata_url": idp.entity_id},
            "attribute_mapping": {
                "uid": saml_idp.EPPN,
                "email": saml_idp.MAIL,
                "first_name": saml_idp.GIVEN_NAME,
                "last_name": saml_idp.SURNAME,
            },
            "local_passwords": local_passwords,
        },
    )


def idp_running(live_server, tmp_path):
    """SimpleSAMLphp with alice and bob, trusting our SP (the live server) for ``SLUG``: the
    body of a test module's ``idp`` fixture (a skip, or a failure under
    LERNPFAD_REQUIRE_SERVICES=1, where PHP or SimpleSAMLphp is missing)."""
    reason = saml_idp.missing_reason()
    if reason:
        _missing(reason)
    base = live_server.url
    started = saml_idp.saml_idp_start(
        tmp_path / "idp",
        sp_entity_id=f"{base}/sso/saml/{SLUG}/metadata/",
        sp_acs_url=f"{base}/sso/saml/{SLUG}/acs/",
        users=USERS,
    )
    yield started
    started.stop()


# --- OpenID Connect: LemonLDAP::NG's portal with its Demo users (tests/helpers/oidc_provider.py)
OIDC_SLUG = "uni-y"
OIDC_INSTITUTION = "Universität Y"


def oidc_app_create(provider, *, slug: str = OIDC_SLUG):
    """The institution's OpenID Connect provider as the operator's guide fills it in."""
    from allauth.socialaccount.models import SocialApp

    return SocialApp.objects.create(
        provider="openid_connect",
        provider_id=slug,
        client_id=provider.client_id,
        secret=provider.client_secret,
        name=OIDC_INSTITUTION,
        settings={"server_url": provider.issuer, "local_passwords": False},
    )


def oidc_provider_running(live_server, tmp_path):
    """LemonLDAP::NG with its Demo users, Lernpfad (the live server) its one relying party for
    ``OIDC_SLUG``: the body of a test module's ``provider`` fixture (a skip, or a failure under
    LERNPFAD_REQUIRE_SERVICES=1, where its Debian packages are missing)."""
    reason = oidc_provider.missing_reason()
    if reason:
        _missing(reason)
    started = oidc_provider.oidc_provider_start(
        tmp_path / "oidc-provider",
        redirect_uri=f"{live_server.url}/sso/oidc/{OIDC_SLUG}/login/callback/",
    )
    yield started
    started.stop()
