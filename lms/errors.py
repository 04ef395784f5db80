"""One error shape for the whole API.

Services raise ``DomainError`` subclasses; ``api_exception_handler`` turns them, and DRF's own
exceptions, into ``{"error": {"code": ..., "message": ..., "detail": ...}}`` with a 4xx status.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class DomainError(Exception):
    """Base of every business-rule error a service raises."""

    code = "invalid"
    status_code = status.HTTP_400_BAD_REQUEST
    default_message = "The request could not be processed."

    def __init__(self, message: str | None = None, *, detail: Any = None, code: str | None = None):
        self.message = message or self.default_message
        self.detail = detail
        if code:
            self.code = code
        super().__init__(self.message)


class NotFound(DomainError):
    code = "not_found"
    status_code = status.HTTP_404_NOT_FOUND
    default_message = "Not found."


class Conflict(DomainError):
    code = "conflict"
    status_code = status.HTTP_409_CONFLICT
    default_message = "The request conflicts with the current state."


class Forbidden(DomainError):
    code = "forbidden"
    status_code = status.HTTP_403_FORBIDDEN
    default_message = "You may not do this."


class Gone(DomainError):
    """It existed and was withdrawn for good (a revoked private address): 410."""

    code = "gone"
    status_code = status.HTTP_410_GONE
    default_message = "This no longer exists."


class InvalidInput(DomainError):
    code = "invalid"
    status_code = status.HTTP_400_BAD_REQUEST


class TooManyRequests(DomainError):
    """Refused until later; ``detail["retry_after_seconds"]`` (if given) also becomes the
    ``Retry-After`` header, as with DRF's throttles."""

    code = "throttled"
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_message = "Too many requests. Please try again later."


# --- the not-found errors every app meets: one wording each --------------------------------


class ModuleNotFound(NotFound):
    code = "module_not_found"

    def __init__(self, module_slug: str) -> None:
        super().__init__(f"There is no module '{module_slug}'.")


class StepNotFound(NotFound):
    code = "step_not_found"

    def __init__(self, module_slug: str, number: int) -> None:
        super().__init__(f"Module '{module_slug}' has no step {number}.")


class NotEnrolled(NotFound):
    """The learner is not enrolled in the module (a 404: the learner's progress there is not
    something that exists)."""

    code = "not_enrolled"

    def __init__(self, module_slug: str, *, enroll_first: bool = False) -> None:
        hint = "; enroll first" if enroll_first else ""
        super().__init__(f"You are not enrolled in '{module_slug}'{hint}.")


def error_body(code: str, message: str, detail: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "detail": detail}}


_DRF_CODES = {
    exceptions.ValidationError: "invalid",
    exceptions.ParseError: "parse_error",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler producing the one error shape."""
    if isinstance(exc, DomainError):
        response = Response(error_body(exc.code, exc.message, exc.detail), status=exc.status_code)
        if isinstance(exc, TooManyRequests) and isinstance(exc.detail, dict):
            wait = exc.detail.get("retry_after_seconds")
            if wait is not None:
                response["Retry-After"] = str(wait)
        return response
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        return Response(
            error_body("invalid", "The input is not valid.", detail),
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
    if isinstance(exc, exceptions.ValidationError):
        message, detail = "The input is not valid.", response.data
    else:
        raw = response.data.get("detail") if isinstance(response.data, dict) else response.data
        message, detail = str(raw), None
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            detail = {"retry_after_seconds": int(exc.wait)}
    response.data = error_body(code, message, detail)
    return response
