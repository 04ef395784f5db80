"""LTI Dynamic Registration 1.0, the tool's side: the platform admin pastes one URL; the
platform opens it with its configuration address and a one-time token; Lernpfad reads the
platform's configuration, registers itself there and records the platform, inactive until a
Lernpfad admin activates it (as Moodle keeps a dynamically registered tool "pending")."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.db import transaction
from django.urls import reverse
from lti_tool.models import LtiDeployment, LtiRegistration

TIMEOUT = 20
LTI_TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
LTI_PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
]


class RegistrationFailed(Exception):
    """The platform's configuration or answer was not usable; the message says which."""


@dataclass(frozen=True)
class PlatformConfiguration:
    issuer: str
    name: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    registration_endpoint: str


def platform_configuration(*, url: str, token: str) -> PlatformConfiguration:
    """Read the platform's OpenID configuration; its issuer must be the address's origin."""
    try:
        response = requests.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT)
        response.raise_for_status()
        config = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise RegistrationFailed(f"configuration unreadable: {exc}") from exc
    issuer = config.get("issuer") or ""
    if not url.startswith(issuer) or urlsplit(issuer).scheme not in ("https", "http"):
        raise RegistrationFailed("configuration address does not belong to the issuer")
    try:
        return PlatformConfiguration(
            issuer=issuer,
            name=(config.get(LTI_PLATFORM_CONFIGURATION) or {}).get("product_family_code")
            or urlsplit(issuer).hostname
            or issuer,
            authorization_endpoint=config["authorization_endpoint"],
            token_endpoint=config["token_endpoint"],
            jwks_uri=config["jwks_uri"],
            registration_endpoint=config["registration_endpoint"],
        )
    except KeyError as exc:
        raise RegistrationFailed(f"configuration lacks {exc.args[0]}") from exc


def tool_registration_request() -> dict:
    """What Lernpfad asks the platform to register (the spec's client registration)."""
    site = settings.SITE_URL
    launch = site + reverse("lti:launch")
    return {
        "application_type": "web",
        "client_name": "Lernpfad",
        "grant_types": ["client_credentials", "implicit"],
        "response_types": ["id_token"],
        "initiate_login_uri": site + reverse("lti:login"),
        "redirect_uris": [launch],
        "jwks_uri": site + reverse("lti:jwks"),
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(SCOPES),
        LTI_TOOL_CONFIGURATION: {
            "domain": urlsplit(site).netloc,
            "target_link_uri": launch,
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "messages": [
                {"type": "LtiDeepLinkingRequest", "target_link_uri": launch, "label": "Lernpfad"},
                {"type": "LtiResourceLinkRequest", "target_link_uri": launch},
            ],
            "description": "Lernpfad: Module, Wiederholung mit FSRS, Abschlussprüfung",
        },
    }


def platform_register(*, url: str, token: str) -> LtiRegistration:
    """Register Lernpfad with the platform and record the platform (inactive)."""
    config = platform_configuration(url=url, token=token)
    try:
        response = requests.post(
            config.registration_endpoint,
            json=tool_registration_request(),
            headers={"Authorization": f"Bearer {token}"},
            timeout=TIMEOUT,
        )
        response.raise_for_status()
        answer = response.json()
        client_id = answer["client_id"]
    except (requests.RequestException, ValueError, KeyError) as exc:
        raise RegistrationFailed(f"the platform refused the registration: {exc}") from exc
    deployment_id = (answer.get(LTI_TOOL_CONFIGURATION) or {}).get("deployment_id")
    with transaction.atomic():
        registration, _created = LtiRegistration.objects.update_or_create(
            issuer=config.issuer,
            client_id=client_id,
            defaults={
                "name": config.name,
                "auth_url": config.authorization_endpoint,
                "token_url": config.token_endpoint,
                "keyset_url": config.jwks_uri,
                "is_active": False,
            },
        )
        if deployment_id:
            LtiDeployment.objects.update_or_create(
                registration=registration,
                deployment_id=deployment_id,
                defaults={"is_active": True},
            )
    return registration
