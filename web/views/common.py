"""Small pieces the web views share: turning domain errors into pages or messages, safe
redirects, the content version the pages' cached fragments vary on."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme

from lms.errors import DomainError, NotFound

View = Callable[..., HttpResponse]
# The page a refused POST returns to, from the request and the view's URL arguments.
BackUrl = Callable[..., str]


def error_message(request: HttpRequest, exc: DomainError) -> None:
    """Show a service's domain error as a page message (the service's own words)."""
    messages.error(request, exc.message)


def domain_errors_as_pages(
    *, back: BackUrl | None = None, not_found_is_404: bool = True
) -> Callable[[View], View]:
    """Turn the domain errors a web view lets through into what a browser shows.

    A ``NotFound`` is a 404 page: the module, step or quick check the URL names does not exist
    for this learner (``not_found_is_404=False`` where the missing thing came in the form, as a
    review card does: then it is a message like any other refusal). Any other ``DomainError`` of
    a POST is the service's message on the page ``back(request, **url_kwargs)`` names, which is
    where the form came from. Without ``back``, and on a GET, it is not caught (a 500, as a bug).

    A decorator rather than a middleware: the page to return to is the view's, and the API's
    and the admin's errors stay theirs (DRF turns domain errors into JSON itself).
    """

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except DomainError as exc:
                if isinstance(exc, NotFound) and not_found_is_404:
                    raise Http404(exc.message) from exc
                if back is None or request.method != "POST":
                    raise
                error_message(request, exc)
                return redirect(back(request, **kwargs))

        return wrapped

    return decorate


def safe_next(request: HttpRequest, fallback: str) -> str:
    """The ``next`` URL from the form when it stays on this site, else ``fallback``."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


def content_version(module) -> str:
    """The module's content version, as read with its content: the reading pages' ``{% cache %}``
    fragments vary on it, so an import or admin edit is seen at once by every process."""
    return module.content_version.hex
