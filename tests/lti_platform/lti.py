"""The LTI 1.3 protocol of the test platform, on lti1p3platform's classes.

lti1p3platform builds and signs the id_token (``LTIAdvantageMessageLaunchAbstract``), the OIDC
login initiation URL (``OIDCLoginAbstract``), the AGS, NRPS and deep-linking claims, verifies the
tool's JWTs against its JWKS by ``kid`` (``tool_validate_and_decode``,
``validate_deeplinking_resp``) and issues and checks access tokens. What it leaves to the
platform is here: where the registration comes from, the platform key, and the claim checks it
skips (``aud``, ``iss``/``sub`` of a client assertion, ``jti``, the deployment of a
deep-linking response, the OIDC parameters besides ``client_id`` and ``nonce``).
"""

from __future__ import annotations

import threading
import typing as t
from dataclasses import dataclass
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest

PRODUCT_FAMILY_CODE = "lernpfad-test-platform"
PLATFORM_NAME = "Lernpfad test platform"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
COURSE_OFFERING = "http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"


class ToolJwtError(Exception):
    """A JWT from the tool that the platform refuses (the message says why)."""


@dataclass(frozen=True)
class PlatformKey:
    """The platform's RSA key pair in PEM, kept in the state folder across restarts."""

    private_pem: str
    public_pem: str

    @classmethod
    def load_or_create(cls, folder: Path) -> PlatformKey:
        """The key in ``folder/platform_key.pem``, created on the first start."""
        path = folder / "platform_key.pem"
        if path.exists():
            private = serialization.load_pem_private_key(path.read_bytes(), password=None)
        else:
            private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            path.write_bytes(
                private.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                )
            )
        assert isinstance(private, rsa.RSAPrivateKey)
        public = private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return cls(private_pem=path.read_text(), public_pem=public.decode())

    def jwks(self) -> dict[str, t.Any]:
        """The platform's public JWKS (the library's JWK with ``kid``, ``alg`` and ``use``)."""
        return {"keys": Registration().set_platform_public_key(self.public_pem).get_jwks()}


def deep_link_url(tool: dict[str, t.Any]) -> str:
    """Where a deep-linking launch goes: the message's own target, else the tool's."""
    for message in tool["messages"]:
        if message.get("type") == "LtiDeepLinkingRequest" and message.get("target_link_uri"):
            return message["target_link_uri"]
    return tool["target_link_uri"]


class ToolPlatformConfig(LTI1P3PlatformConfAbstract):
    """lti1p3platform's platform configuration for one registered tool."""

    def init_platform_config(self, **kwargs: t.Any) -> None:
        """Keep the issuer, the stored tool and the platform key."""
        self._issuer: str = kwargs["issuer"]
        self._tool: dict[str, t.Any] = kwargs["tool"]
        self._key: PlatformKey = kwargs["key"]

    def get_registration_by_params(self, **kwargs: t.Any) -> Registration:
        """The library's registration, built from the dynamically registered tool."""
        tool = self._tool
        return (
            Registration()
            .set_iss(self._issuer)
            .set_client_id(tool["client_id"])
            .set_deployment_id(tool["deployment_id"])
            .set_oidc_login_url(tool["initiate_login_uri"])
            .set_launch_url(tool["target_link_uri"])
            .set_deeplink_launch_url(deep_link_url(tool))
            .set_tool_key_set_url(tool["jwks_uri"])
            .set_platform_public_key(self._key.public_pem)
            .set_platform_private_key(self._key.private_pem)
        )


def platform_config(*, issuer: str, tool: dict[str, t.Any], key: PlatformKey) -> ToolPlatformConfig:
    """A fresh configuration per request, so the tool's JWKS is fetched anew (key rotation)."""
    config = ToolPlatformConfig(issuer=issuer, tool=tool, key=key)
    config.get_registration()
    return config


class LibraryRequest(Request):
    """The request shape lti1p3platform's launch and services read."""

    def build_metadata(self, request: t.Any) -> TRequest:
        """``request`` is already a dict with method, form_data, get_data, headers, json."""
        return request


class PlatformOIDCLogin(OIDCLoginAbstract):
    """The third-party login initiation; ``initiate_login`` answers the URL to redirect to."""

    def set_lti_message_hint(self, **kwargs: t.Any) -> None:
        """The opaque hint under which the platform remembers the launch."""
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> str:
        """The URL itself: the WSGI app turns it into a 302."""
        return url


class PlatformLaunch(LTIAdvantageMessageLaunchAbstract):
    """The id_token of a resource link or deep-linking launch, signed by the library."""

    def deep_linking_settings(self, *, return_url: str, data: str, title: str) -> None:
        """The deep-linking claim: one ltiResourceLink, with a line item if the tool likes."""
        self.set_dl(return_url, title=title, accept_types={"ltiResourceLink"})
        assert self._deep_linking_launch_data is not None
        settings = self._deep_linking_launch_data[DEEP_LINKING_SETTINGS]
        # The library always offers several items; this platform adds one activity per request.
        settings.update({"accept_multiple": False, "accept_lineitem": True, "data": data})

    def render_launch_form(self, launch_data: dict[str, t.Any], **kwargs: t.Any) -> t.Any:
        """The launch data (id_token, state, launch_url); the page template renders it."""
        return launch_data


def unverified_claims(token: str) -> dict[str, t.Any]:
    """A JWT's claims before any check, only to find which tool signed it."""
    try:
        return jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as error:
        raise ToolJwtError(f"not a JWT: {error}") from error


def _audiences(claims: dict[str, t.Any]) -> list[str]:
    audience = claims.get("aud")
    return [audience] if isinstance(audience, str) else list(audience or [])


class ClientAssertions:
    """The checks lti1p3platform skips on a client assertion (``jti`` replays included)."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def check(self, claims: dict[str, t.Any], *, client_id: str, audiences: list[str]) -> None:
        """Refuse an assertion not issued by the tool for this token endpoint, or replayed."""
        problems = []
        if claims.get("iss") != client_id or claims.get("sub") != client_id:
            problems.append("iss and sub must be the client_id")
        if not set(_audiences(claims)) & set(audiences):
            problems.append(f"aud must name the token endpoint ({audiences[0]})")
        for name in ("exp", "iat", "jti"):
            if name not in claims:
                problems.append(f"{name} is missing")
        if problems:
            raise ToolJwtError("; ".join(problems))
        with self._lock:
            if claims["jti"] in self._seen:
                raise ToolJwtError("jti was used before")
            self._seen.add(claims["jti"])


def deep_linking_response_check(
    claims: dict[str, t.Any], *, issuer: str, tool: dict[str, t.Any]
) -> None:
    """Refuse a deep-linking response not meant for this platform or deployment."""
    problems = []
    if issuer not in _audiences(claims):
        problems.append(f"aud must be the platform issuer {issuer}")
    if claims.get("iss") != tool["client_id"]:
        problems.append("iss must be the client_id")
    deployment = claims.get("https://purl.imsglobal.org/spec/lti/claim/deployment_id")
    if deployment != tool["deployment_id"]:
        problems.append(f"deployment_id must be {tool['deployment_id']}")
    if claims.get("https://purl.imsglobal.org/spec/lti/claim/version") != "1.3.0":
        problems.append("version must be 1.3.0")
    if "exp" not in claims:
        problems.append("exp is missing")
    if problems:
        raise ToolJwtError("; ".join(problems))
