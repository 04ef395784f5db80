"""What every request must pass before a view sees it; API 4xx answers keep the error shape.

- A NUL in the path is a 404, in the query string a 400 (PostgreSQL text cannot hold NUL).
- An API body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is a 413, judged by ``Content-Length``.
- Pages answer only GET, HEAD and POST (a function view would serve TRACE like a GET).
- An API address without its trailing slash is a 404 naming the right one: ``APPEND_SLASH``
  would redirect a POST and drop its body. Pages keep the redirect.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.html import escape
from django.utils.translation import gettext as _
from rest_framework import exceptions

from lms.errors import error_body
from lms.text import text_is_storable

API_PREFIX = "/api/"
PAGE_METHODS = ("GET", "HEAD", "POST")

# The code and message an API 4xx gets when something other than a view answered it (Django's
# resolver, CSRF or debug pages); the messages are DRF's, translated by DRF.
_SHAPES = {
    400: ("bad_request", exceptions.ParseError.default_detail),
    403: ("permission_denied", exceptions.PermissionDenied.default_detail),
    404: ("not_found", exceptions.NotFound.default_detail),
    405: ("method_not_allowed", exceptions.MethodNotAllowed.default_detail),
}


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


class RequestGuardMiddleware:
    """Refuses what no view can answer well; sits after LocaleMiddleware (translated messages)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        api = is_api(request)
        response = _refusal(request, api=api)
        if response is None:
            response = self.get_response(request)
        if api and 400 <= response.status_code < 500 and not _is_json(response):
            response = _in_error_shape(response, method=request.method)
        return response


def _refusal(request: HttpRequest, *, api: bool) -> HttpResponse | None:
    if "\x00" in request.path:
        return _refuse(404, "not_found", str(exceptions.NotFound.default_detail), api=api)
    try:
        query = request.GET
    except TooManyFieldsSent:
        return _refuse(400, "invalid_query", _("The request has too many fields."), api=api)
    for key, values in query.lists():
        if not all(text_is_storable(text) for text in (key, *values)):
            return _refuse(
                400,
                "invalid_query",
                _("The query string contains a NUL character."),
                api=api,
            )
    if not api and request.method not in PAGE_METHODS:
        response = _refuse(
            405,
            "method_not_allowed",
            str(exceptions.MethodNotAllowed.default_detail).format(method=request.method[:20]),
            api=False,
        )
        response["Allow"] = ", ".join(PAGE_METHODS)
        return response
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if api and limit is not None and _content_length(request) > limit:
        return _refuse(
            413,
            "request_too_large",
            _("The request body is larger than %(limit)d bytes.") % {"limit": limit},
            detail={"max_bytes": limit},
            api=True,
        )
    if api and not request.path_info.endswith("/"):
        return _slash_missing(request)
    return None


def _resolves(request: HttpRequest, path: str) -> bool:
    try:
        resolve(path, getattr(request, "urlconf", None))
    except Resolver404:
        return False
    return True


def _slash_missing(request: HttpRequest) -> HttpResponse | None:
    if _resolves(request, request.path_info) or not _resolves(request, request.path_info + "/"):
        return None
    path = request.path + "/"
    return _refuse(
        404,
        "not_found",
        _("This address ends with a slash: %(path)s") % {"path": path},
        detail={"path": path},
        api=True,
    )


def _content_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _refuse(status: int, code: str, message: str, *, api: bool, detail=None) -> HttpResponse:
    if api:
        return JsonResponse(error_body(code, message, detail), status=status)
    return HttpResponse(
        f"<h1>{status}</h1><p>{escape(message)}</p>",
        status=status,
        content_type="text/html; charset=utf-8",
    )


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


def _in_error_shape(response: HttpResponse, *, method: str) -> HttpResponse:
    status = response.status_code
    code, message = _SHAPES.get(status, ("error", response.reason_phrase or str(status)))
    if status == 405:
        message = str(message).format(method=method[:20])
    shaped = JsonResponse(error_body(code, str(message)), status=status)
    for header in ("Allow", "Retry-After", "WWW-Authenticate", "Vary"):
        if header in response:
            shaped[header] = response[header]
    return shaped
