"""Small middleware of our own: a Content-Security-Policy header, and throttling of the HTML forms
that take a password (log-in, sign-up, password reset, admin log-in)."""

import contextlib

from django.conf import settings
from django.core.cache import caches
from django.http import HttpResponse
from django.urls import NoReverseMatch, reverse
from django.utils.connection import ConnectionProxy
from django.utils.translation import gettext as _
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

DEFAULT_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
)


class ContentSecurityPolicyMiddleware:
    """Adds a strict Content-Security-Policy to every response that has none yet."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.policy = getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_CSP)

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.policy)
        return response


class FormLoginRateThrottle(SimpleRateThrottle):
    """The API's "login" rate, per client address, for the HTML forms that take a password.

    Same cache key as the API's log-in throttle (scope "login"), so a client has one budget for
    the token endpoint, the log-in page and the admin log-in together. Rates are read per
    request, so overrides (tests, THROTTLE_LOGIN) apply.
    """

    scope = "login"
    cache = ConnectionProxy(caches, "login")

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


# The pages whose POST checks a password or sends e-mail (URL names; missing ones are skipped).
THROTTLED_FORMS = (
    "web:login",
    "web:signup",
    "web:password_reset",
    "web:email_confirmation_resend",
    "admin:login",
)


class FormThrottleMiddleware:
    """Throttles POSTs to the log-in, sign-up and password-reset pages like the API's log-in.

    Without it the web and admin log-in forms would allow unlimited password guessing, next to an
    API whose token endpoint is throttled.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self._paths: frozenset[str] | None = None

    def paths(self) -> frozenset[str]:
        if self._paths is None:
            found = set()
            for name in THROTTLED_FORMS:
                with contextlib.suppress(NoReverseMatch):
                    found.add(reverse(name))
            self._paths = frozenset(found)
        return self._paths

    def __call__(self, request):
        if request.method == "POST" and request.path in self.paths():
            throttle = FormLoginRateThrottle()
            if not throttle.allow_request(request, None):
                wait = max(1, int(throttle.wait() or 60))
                response = HttpResponse(
                    _("Too many attempts. Please wait a minute and try again."),
                    status=429,
                    content_type="text/plain; charset=utf-8",
                )
                response["Retry-After"] = str(wait)
                return response
        return self.get_response(request)
