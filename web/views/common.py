"""Small pieces the web views share: turning domain errors into messages, safe redirects."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme

from lms.errors import DomainError


def error_message(request: HttpRequest, exc: DomainError) -> None:
    """Show a service's domain error as a page message (the service's own words)."""
    messages.error(request, exc.message)


def safe_next(request: HttpRequest, fallback: str) -> str:
    """The ``next`` URL from the form when it stays on this site, else ``fallback``."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback
