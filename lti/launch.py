"""Checking an LTI 1.3 launch without a cookie of ours in the platform's frame.

pylti1p3 binds a launch to the browser with a cookie set at the OIDC log-in; a browser that
blocks third-party cookies never sends it back from inside the platform's iframe ("Missing
session cookie", "State not found"). Here the binding is one of:

- the state cookie, where the browser keeps it (a launch in a window of its own);
- the state read back from the platform's own storage with the LTI client-side postMessages
  (``lti_storage_target``): the browser proves it began the log-in, without a cookie of ours.

The state and the nonce are kept in Django's cache (one per deployment, so any host checks
them), each used once: a replayed id_token is refused. An unknown or inactive deployment is
refused, never created.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from lti_tool.models import LtiDeployment
from lti_tool.utils import DjangoToolConfig, _prepare_deployment
from pylti1p3.contrib.django import DjangoCacheDataStorage, DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.exception import LtiException

# How long a log-in may take between the OIDC redirect and the launch.
STATE_SECONDS = 10 * 60
STORAGE_KEY_PREFIX = "lernpfad_state_"


class ToolConfig(DjangoToolConfig):
    """django-lti's registrations; a deployment must be registered and active."""

    def find_deployment(self, iss, deployment_id):
        return self._deployment(issuer=iss, deployment_id=deployment_id)

    def find_deployment_by_params(self, iss, deployment_id, client_id, *args, **kwargs):
        return self._deployment(issuer=iss, deployment_id=deployment_id, client_id=client_id)

    def _deployment(self, *, issuer, deployment_id, client_id=None):
        lookups = {
            "registration__issuer": issuer,
            "registration__is_active": True,
            "deployment_id": deployment_id,
            "is_active": True,
        }
        if client_id is not None:
            lookups["registration__client_id"] = client_id
        self.deployment = LtiDeployment.objects.filter(**lookups).first()
        return None if self.deployment is None else _prepare_deployment(self.deployment)


class CookielessCacheStorage(DjangoCacheDataStorage):
    """pylti1p3's cache storage without its session-id cookie: the keys are the random
    nonce and launch id themselves, so no cookie is needed to find them."""

    def get_session_cookie_name(self):
        return None

    def value_take(self, key: str) -> bool:
        """Remove the key; True only for the one caller that removed it."""
        return bool(self._get_cache().delete(self._prepare_key(key)))


def launch_data_storage() -> CookielessCacheStorage:
    return CookielessCacheStorage()


def _state_key(state: str) -> str:
    return f"lti:state:{state}"


def oidc_login(request, *, storage_target: str = "") -> tuple[DjangoOIDCLogin, str, str]:
    """Validate the platform's log-in initiation; (login, the auth URL to send the browser
    to, its state). The state is remembered for ``STATE_SECONDS`` with where the browser
    keeps its copy: the platform's storage frame (``lti_storage_target``), or none."""
    login = DjangoOIDCLogin(request, ToolConfig(), launch_data_storage=launch_data_storage())
    if not (request.POST.get("target_link_uri") or request.GET.get("target_link_uri")):
        raise LtiException("Missing target_link_uri parameter")
    # The redirect URI is always our own launch address, whatever the initiation names.
    url = login.get_redirect_object(settings.SITE_URL + reverse("lti:launch")).get_redirect_url()
    state = _query_value(url, "state")
    parts = urlsplit(url)
    cache.set(
        _state_key(state),
        {"target": storage_target, "origin": f"{parts.scheme}://{parts.netloc}"},
        STATE_SECONDS,
    )
    return login, url, state


def state_storage(state: str) -> dict | None:
    """Where the browser keeps its copy of an unused state: ``{"target", "origin"}`` of the
    platform's storage, None when the state is unknown or the platform offers no storage."""
    entry = cache.get(_state_key(state)) if state else None
    return entry if entry and entry["target"] else None


def _query_value(url: str, name: str) -> str:
    return parse_qs(urlsplit(url).query)[name][0]


class PlatformLaunch(DjangoMessageLaunch):
    """A launch checked as this module's docstring says."""

    def __init__(self, request, *, storage_state: str | None = None):
        super().__init__(request, ToolConfig(), launch_data_storage=launch_data_storage())
        self._storage_state = storage_state
        # exp and iat must be there (pyjwt checks them when present); aud is checked by the
        # registration look-up (issuer, client id).
        self.set_jwt_verify_options({"verify_aud": False, "require": ["exp", "iat"]})

    def validate(self):
        """pylti1p3's checks, in an order where nothing is used up before the signature is
        good: a forged token cannot burn a real state or nonce."""
        if self._restored:
            raise LtiException("Can't validate restored launch")
        self._validated = True
        try:
            self.validate_state()
            self.validate_jwt_format()
            self.validate_registration()
            self.validate_jwt_signature()
            self.validate_deployment()
            self.validate_message()
            self.validate_nonce()
            self._state_use()
            return self.save_launch_data()
        except Exception:
            self._validated = False
            raise

    def validate_state(self):
        state = self._get_request_param("state")
        if not state or not cache.get(_state_key(state)):
            raise LtiException("State not found")
        if self._cookie_service.get_cookie(state) == state:
            return self
        if self._storage_state is not None and self._storage_state == state:
            return self
        raise StateNotBound("The browser did not prove it began this log-in")

    def validate_nonce(self):
        nonce = self._get_jwt_body().get("nonce")
        if not nonce:
            raise LtiException('"nonce" is empty')
        # Used once: a replayed id_token finds its nonce gone.
        if not self._session_service.data_storage.value_take(f"nonce-{nonce}"):
            raise LtiException("Invalid Nonce")
        return self

    def _state_use(self) -> None:
        if not cache.delete(_state_key(self._get_request_param("state"))):
            raise LtiException("State not found")


class StateNotBound(LtiException):
    """The state is ours and unused, but this browser showed neither cookie nor storage."""
