"""LTI Dynamic Registration 1.0, platform side: the OpenID configuration and the client check.

lti1p3platform has no dynamic registration, so both documents are written here after the spec:
the platform's configuration (OpenID Connect Discovery plus the
``lti-platform-configuration`` claim) and the validation of the tool's client registration.
"""

from __future__ import annotations

import typing as t
from urllib.parse import urlparse

from lti1p3platform.constants import LTI_1P3_ACCESS_TOKEN_SCOPES

from tests.lti_platform.lti import PRODUCT_FAMILY_CODE

TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
MESSAGE_TYPES = ("LtiResourceLinkRequest", "LtiDeepLinkingRequest")


class RegistrationError(Exception):
    """A client registration the platform refuses; ``problems`` lists every reason."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def openid_configuration(issuer: str) -> dict[str, t.Any]:
    """The platform's configuration a tool reads before it registers."""
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/auth",
        "token_endpoint": f"{issuer}/token",
        "token_endpoint_auth_methods_supported": ["private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
        "jwks_uri": f"{issuer}/.well-known/jwks.json",
        "registration_endpoint": f"{issuer}/register",
        "scopes_supported": ["openid", *LTI_1P3_ACCESS_TOKEN_SCOPES],
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "claims_supported": ["sub", "iss", "name", "given_name", "family_name", "email"],
        "authorization_server": f"{issuer}/token",
        PLATFORM_CONFIGURATION: {
            "product_family_code": PRODUCT_FAMILY_CODE,
            "version": "0.1",
            "messages_supported": [
                {"type": "LtiResourceLinkRequest"},
                {"type": "LtiDeepLinkingRequest", "placements": ["ContentArea"]},
            ],
            "variables": [],
        },
    }


def _is_url(value: t.Any) -> bool:
    if not isinstance(value, str):
        return False
    parsed = urlparse(value)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


def client_registration_validate(body: t.Any) -> dict[str, t.Any]:
    """The stored form of a valid client registration; a RegistrationError lists all problems."""
    if not isinstance(body, dict):
        raise RegistrationError(["the registration must be a JSON object"])
    problems = []
    for name in ("initiate_login_uri", "jwks_uri"):
        if not _is_url(body.get(name)):
            problems.append(f"{name} must be an http(s) URL")
    redirect_uris = body.get("redirect_uris")
    if not isinstance(redirect_uris, list) or not redirect_uris:
        problems.append("redirect_uris must be a non-empty list")
    elif not all(_is_url(uri) for uri in redirect_uris):
        problems.append("every redirect_uri must be an http(s) URL")
    if not isinstance(body.get("client_name"), str) or not body["client_name"]:
        problems.append("client_name is required")
    if body.get("application_type", "web") != "web":
        problems.append("application_type must be web")
    if "id_token" not in body.get("response_types", ["id_token"]):
        problems.append("response_types must contain id_token")
    grant_types = body.get("grant_types", ["implicit", "client_credentials"])
    if not {"implicit", "client_credentials"} <= set(grant_types):
        problems.append("grant_types must contain implicit and client_credentials")
    if body.get("token_endpoint_auth_method", "private_key_jwt") != "private_key_jwt":
        problems.append("token_endpoint_auth_method must be private_key_jwt")
    configuration = body.get(TOOL_CONFIGURATION)
    if not isinstance(configuration, dict):
        problems.append(f"{TOOL_CONFIGURATION} is required")
        raise RegistrationError(problems)
    if not isinstance(configuration.get("domain"), str) or not configuration["domain"]:
        problems.append("the tool configuration needs a domain")
    if not _is_url(configuration.get("target_link_uri")):
        problems.append("the tool configuration's target_link_uri must be an http(s) URL")
    messages = configuration.get("messages")
    if not isinstance(messages, list) or not messages:
        problems.append("the tool configuration needs messages")
        messages = []
    for message in messages:
        if not isinstance(message, dict) or message.get("type") not in MESSAGE_TYPES:
            problems.append(f"every message needs a type among {', '.join(MESSAGE_TYPES)}")
        elif "target_link_uri" in message and not _is_url(message["target_link_uri"]):
            problems.append(f"the {message['type']} target_link_uri must be an http(s) URL")
    custom = configuration.get("custom_parameters", {})
    if not isinstance(custom, dict):
        problems.append("custom_parameters must be an object")
    if problems:
        raise RegistrationError(problems)
    # Without a scope the tool asks for every service (handy for /control/tools).
    requested = str(body.get("scope", " ".join(LTI_1P3_ACCESS_TOKEN_SCOPES))).split()
    return {
        "client_name": body["client_name"],
        "initiate_login_uri": body["initiate_login_uri"],
        "redirect_uris": list(redirect_uris),
        "jwks_uri": body["jwks_uri"],
        "target_link_uri": configuration["target_link_uri"],
        "domain": configuration["domain"],
        "messages": messages,
        "custom_parameters": custom,
        "claims": configuration.get("claims", []),
        "scope": [scope for scope in requested if scope in LTI_1P3_ACCESS_TOKEN_SCOPES],
        "registration": body,
    }


def registration_response(tool: dict[str, t.Any]) -> dict[str, t.Any]:
    """What the registration endpoint answers: the request with client_id and deployment_id."""
    body = dict(tool["registration"])
    configuration = dict(body[TOOL_CONFIGURATION])
    configuration["deployment_id"] = tool["deployment_id"]
    body.update(
        {
            "client_id": tool["client_id"],
            "scope": " ".join(tool["scope"]),
            TOOL_CONFIGURATION: configuration,
        }
    )
    return body
