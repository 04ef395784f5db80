"""Our middleware: the health endpoints, a Content-Security-Policy, and a per-address rate for
the anonymous forms that create an account or send mail (log-in failures are django-axes')."""

import contextlib

from django.conf import settings
from django.core.cache import caches
from django.http import HttpResponseNotAllowed
from django.urls import NoReverseMatch, reverse
from django.utils.connection import ConnectionProxy
from django.utils.translation import gettext as _
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from lms.views import health_live, health_ready, too_many_requests

DEFAULT_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
)


# Not in the URLconf: they are no page of the site.
HEALTH_ENDPOINTS = {"/health/live/": health_live, "/health/ready/": health_ready}


class HealthCheckMiddleware:
    """Answers the health endpoints first: a probe from inside the container uses 127.0.0.1 and
    plain HTTP, and must open no session and count against no throttle."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        view = HEALTH_ENDPOINTS.get(request.path_info)
        if view is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        response = view(request)
        response["Cache-Control"] = "no-store"
        return response


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
    """The API's "login" rate per address, sharing its cache key: one budget for registering
    by API or page and for reset mails. Rates are read per request, so overrides apply."""

    scope = "login"
    cache = ConnectionProxy(caches, "login")

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


# The anonymous pages whose POST creates an account or sends e-mail (missing names are skipped).
THROTTLED_FORMS = ("web:signup", "web:password_reset", "web:email_confirmation_resend")


class FormThrottleMiddleware:
    """Throttles POSTs to the sign-up and password-reset pages like the API's registration."""

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
                return too_many_requests(
                    request,
                    message=_("Too many attempts. Please wait a minute and try again."),
                    retry_after=wait,
                )
        return self.get_response(request)
